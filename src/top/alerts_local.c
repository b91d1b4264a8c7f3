/* alerts_local.c - top evaluates gpuwatch's default alert rules on its own samples (local mode),
 * through the alerts engine's public API, and keeps the pending/firing ones in the model. */
#include "top_alerts.h"
#include "top_ui.h"
#include "alerts.h"
#include "alerts.h"
#include "util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct local_alerts {
    alert_engine *e;
    sample_source src;
    top_model *m;
} local_alerts;

/* ---- the engine reads top's ring and GPU identities ---- */
static int src_count(void *ctx)
{
    return ring_gpus(((local_alerts *)ctx)->m->hist);
}

static int src_info(void *ctx, int gpu, gpu_info *out)
{
    top_model *m = ((local_alerts *)ctx)->m;
    pthread_mutex_lock(&m->lock);
    int ok = gpu >= 0 && gpu < m->ngpus;
    if (ok)
        *out = m->gpus[gpu].info;
    pthread_mutex_unlock(&m->lock);
    return ok;
}

static void src_each(void *ctx, int gpu, uint64_t since_us, void (*fn)(const gpu_sample *, void *), void *arg)
{
    ring_each(((local_alerts *)ctx)->m->hist, gpu, since_us, fn, arg);
}

static int src_latest(void *ctx, int gpu, int64_t now_us, gpu_sample *out)
{
    (void)now_us;
    return ring_latest(((local_alerts *)ctx)->m->hist, gpu, out);
}

static const char *label_of(const alert_view *v, const char *name)
{
    for (int i = 0; i < v->nlabels; i++)
        if (strcmp(v->label_names[i], name) == 0)
            return v->label_values[i];
    return NULL;
}

static const char *annotation_of(const alert_view *v, const char *name)
{
    for (int i = 0; i < v->nannotations; i++)
        if (strcmp(v->annotation_names[i], name) == 0)
            return v->annotation_values[i];
    return NULL;
}

static void eval_after_refresh(void *ctx, top_model *m)
{
    local_alerts *la = ctx;
    alert_engine_eval(la->e, &la->src, (int64_t)gw_now_us(), 0);
    alert_list l;
    if (alert_engine_snapshot(la->e, &l) != 0)
        return; /* out of memory: the panel keeps the previous alerts */
    top_alert_line lines[TOP_MAX_ALERTS];
    int n = 0;
    for (int i = 0; i < l.n && n < TOP_MAX_ALERTS; i++) {
        const alert_view *v = &l.v[i];
        if (v->state == ALERT_INACTIVE)
            continue;
        top_alert_line_make(&lines[n++], v->alertname, label_of(v, "severity"), alert_state_name(v->state),
                            annotation_of(v, "summary"));
    }
    alert_list_free(&l);
    top_alert_lines_sort(lines, n);
    pthread_mutex_lock(&m->lock);
    memcpy(m->alerts, lines, (size_t)n * sizeof *lines);
    m->nalerts = n;
    pthread_mutex_unlock(&m->lock);
}

int top_alerts_local_start(top_source *src, top_model *m, const struct top_thresholds *th, char *why, size_t n)
{
    char *path = alerts_default_rules_path();
    if (!path) {
        snprintf(why, n, "no default alert rules file found");
        return -1;
    }
    local_alerts *la = calloc(1, sizeof *la);
    la->e = la ? alert_engine_new() : NULL;
    if (!la || !la->e) {
        free(la);
        free(path);
        snprintf(why, n, "out of memory");
        return -1;
    }
    char *errs = NULL;
    size_t errlen = 0;
    FILE *ef = open_memstream(&errs, &errlen);
    int bad = ef ? alert_engine_load(la->e, path, ef) : 1;
    if (ef)
        fclose(ef);
    if (bad) {
        snprintf(why, n, "alert rules %s: %s", path, errs && *errs ? errs : "cannot be read");
        free(errs);
        free(path);
        alert_engine_free(la->e);
        free(la);
        return -1;
    }
    free(errs);
    free(path);
    /* The panel agrees with the colours: top's thresholds replace the rules' ones. */
    alert_engine_set_threshold(la->e, "GPUTemperatureWarning", th->temp_warn);
    alert_engine_set_threshold(la->e, "GPUTemperatureCritical", th->temp_crit);
    alert_engine_set_threshold(la->e, "GPUMemoryTemperatureWarning", th->hbm_warn);
    alert_engine_set_threshold(la->e, "GPUMemoryTemperatureCritical", th->hbm_crit);
    la->m = m;
    la->src = (sample_source){
        .ctx = la, .gpu_count = src_count, .gpu_info = src_info, .each = src_each, .latest = src_latest};
    src->after = eval_after_refresh;
    src->actx = la;
    return 0;
}

void top_alerts_local_stop(top_source *src)
{
    local_alerts *la = src->actx;
    if (!la)
        return;
    alert_engine_free(la->e);
    free(la);
    src->after = NULL;
    src->actx = NULL;
}
