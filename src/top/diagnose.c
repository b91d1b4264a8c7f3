/* diagnose.c - top's own diagnosis in local mode: a diagnosis window (src/diagnosis) fed from what
 * each refresh stored in the model (every GPU's sample, at most one per TOP_DIAG_STEP_US, and the
 * process list with it), trimmed to the last diagnosis.window, and diag_run_from over it every
 * diagnosis.interval (the previous report given, as the agent does, so severities do not flap). It runs as a hook of the source, on the refresh thread: a run never holds
 * the UI, and the model's lock is taken only to copy the new readings and to publish the report. */
#include "top_model.h"
#include "diag.h"
#include "diag_config.h"
#include "util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct local_diag {
    diag_window *w;
    diag_settings set;
    int ngpus;
    gpu_info *info;       /* per GPU, from the model at start (name and UUID for the findings) */
    gpu_sample *smp;      /* per GPU, copied under the model's lock */
    unsigned char *fresh; /* per GPU: smp holds a reading to add */
    uint64_t *fed_us;     /* per GPU: time of the last reading added */
    gpu_proc *procs;      /* TOP_MAX_PROCS */
    int nprocs;
    uint64_t procs_us;      /* time of the last process list added */
    uint64_t next_run_mono; /* when diag_run is due */
} local_diag;

static void diag_free(void *ctx)
{
    local_diag *d = ctx;
    if (!d)
        return;
    diag_window_free(d->w);
    free(d->info);
    free(d->smp);
    free(d->fresh);
    free(d->fed_us);
    free(d->procs);
    free(d);
}

/* The new readings of this refresh, copied under the lock (nothing when none is due). */
static int take(local_diag *d, top_model *m, uint64_t now_wall)
{
    int any = 0;
    pthread_mutex_lock(&m->lock);
    for (int i = 0; i < d->ngpus && i < m->ngpus; i++) {
        const top_gpu *g = &m->gpus[i];
        d->fresh[i] = g->have_sample && (d->fed_us[i] == 0 || g->s.t_us >= d->fed_us[i] + TOP_DIAG_STEP_US);
        if (d->fresh[i]) {
            d->smp[i] = g->s;
            any = 1;
        }
    }
    d->nprocs = -1;
    if (any && now_wall > d->procs_us) {
        d->nprocs = m->nprocs;
        memcpy(d->procs, m->procs, (size_t)m->nprocs * sizeof *d->procs);
    }
    pthread_mutex_unlock(&m->lock);
    return any;
}

static void run(local_diag *d, top_model *m, uint64_t now_wall)
{
    uint64_t window_us = (uint64_t)(d->set.window_s * 1e6);
    diag_window_trim(d->w, now_wall > window_us ? now_wall - window_us : 0);
    diag_report r;
    diag_report_init(&r);
    /* The previous report, so that a measure hovering at a threshold keeps its severity from one run
     * to the next (no flapping). m->find.r is written only by top_findings_publish, on this thread:
     * read here without the lock, as the UI only reads it too. */
    int n = diag_run_from(d->w, &d->set.cfg, m->find.state == FIND_OK ? &m->find.r : NULL, &r);
    pthread_mutex_lock(&m->lock);
    m->find.next_us = now_wall + (uint64_t)(d->set.interval_s * 1e6);
    pthread_mutex_unlock(&m->lock);
    if (n < 0)
        diag_report_clear(&r);
    top_findings_publish(m, &r, n < 0 ? FIND_ERROR : FIND_OK, n < 0 ? "diagnosis: out of memory, run skipped" : NULL,
                         now_wall);
    diag_report_free(&r);
}

/* After each refresh (the refresh thread). */
static void diag_after(void *ctx, top_model *m)
{
    local_diag *d = ctx;
    uint64_t now_wall = gw_now_us();
    if (take(d, m, now_wall)) {
        for (int i = 0; i < d->ngpus; i++)
            if (d->fresh[i]) {
                diag_window_add_sample(d->w, i, d->fed_us[i] ? NULL : &d->info[i], &d->smp[i]);
                d->fed_us[i] = d->smp[i].t_us;
            }
        if (d->nprocs >= 0) {
            diag_window_add_processes(d->w, -1, now_wall, d->procs, d->nprocs);
            d->procs_us = now_wall;
        }
    }
    if (gw_mono_us() >= d->next_run_mono) {
        d->next_run_mono = gw_mono_us() + (uint64_t)(d->set.interval_s * 1e6);
        run(d, m, now_wall);
    }
}

void top_diag_thresholds(diag_config *cfg, const top_thresholds *th)
{
    static const char *const names[] = {"thermal.gpu_warn_c", "thermal.gpu_crit_c", "thermal.mem_warn_c",
                                        "thermal.mem_crit_c"};
    const double tops[] = {th->temp_warn, th->temp_crit, th->hbm_warn, th->hbm_crit};
    for (int k = 0; k < diag_config_count(); k++) {
        const diag_param *q = diag_config_param(k);
        double v;
        for (int i = 0; i < 4; i++)
            if (strcmp(q->name, names[i]) == 0 && diag_config_get(cfg, q->name, &v) == 0 && v == q->def)
                diag_config_set(cfg, q->name, tops[i]);
    }
}

int top_diag_local_start(top_source *src, top_model *m, const diag_settings *set)
{
    pthread_mutex_lock(&m->lock);
    m->find.state = set->enabled ? FIND_WAITING : FIND_OFF;
    m->find.window_s = set->window_s;
    m->find.interval_s = set->interval_s;
    m->find.next_us = gw_now_us() + (uint64_t)(set->interval_s * 1e6);
    pthread_mutex_unlock(&m->lock);
    if (!set->enabled)
        return 0;
    local_diag *d = calloc(1, sizeof *d);
    int n = m->ngpus ? m->ngpus : 1;
    if (d) {
        d->w = diag_window_new();
        d->info = calloc((size_t)n, sizeof *d->info);
        d->smp = calloc((size_t)n, sizeof *d->smp);
        d->fresh = calloc((size_t)n, sizeof *d->fresh);
        d->fed_us = calloc((size_t)n, sizeof *d->fed_us);
        d->procs = calloc(TOP_MAX_PROCS, sizeof *d->procs);
    }
    if (!d || !d->w || !d->info || !d->smp || !d->fresh || !d->fed_us || !d->procs) {
        diag_free(d);
        pthread_mutex_lock(&m->lock);
        m->find.state = FIND_ERROR;
        snprintf(m->find.why, sizeof m->find.why, "diagnosis: out of memory");
        pthread_mutex_unlock(&m->lock);
        return -1;
    }
    d->set = *set;
    pthread_mutex_lock(&m->lock);
    d->ngpus = m->ngpus;
    for (int i = 0; i < m->ngpus; i++)
        d->info[i] = m->gpus[i].info;
    pthread_mutex_unlock(&m->lock);
    d->next_run_mono = gw_mono_us() + (uint64_t)(set->interval_s * 1e6);
    return top_source_hook(src, diag_after, diag_free, d);
}
