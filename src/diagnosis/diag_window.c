/* diag_window.c - building the diagnosis window: a GPU's samples become per-signal series (and,
 * through diag_events.c, events); trim drops the oldest part of a sliding window. Process lists:
 * diag_procs.c. */
#include "diag_window_internal.h"
#include "util.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

diag_window *diag_window_new(void)
{
    return calloc(1, sizeof(diag_window));
}

static void gpu_release(diag_gpu *g)
{
    for (int s = 0; s < DS_COUNT; s++)
        diag_series_free(&g->s[s]);
    for (int l = 0; l < NVLINK_NLINKS; l++)
        for (int k = 0; k < NVL_NKINDS; k++)
            diag_series_free(&g->nvl[l][k]);
    diag_series_free(&g->nproc);
}

static void diag_window_clear(diag_window *w)
{
    for (int i = 0; i < w->n_gpus; i++)
        gpu_release(&w->gpus[i]);
    for (int i = 0; i < w->n_procs; i++)
        diag_proc_release(&w->procs[i]);
    free(w->gpus);
    free(w->procs);
    free(w->events);
    free(w->notes);
    memset(w, 0, sizeof *w);
}

void diag_window_free(diag_window *w)
{
    if (!w)
        return;
    diag_window_clear(w);
    free(w);
}

static void gpu_init(diag_gpu *g, int index)
{
    memset(g, 0, sizeof *g);
    g->index = index;
    g->power_default_w = NAN;
    g->mem_total_mib = NAN;
    g->temp_slowdown_c = NAN;
    g->temp_shutdown_c = NAN;
    g->temp_gpu_max_c = NAN;
    g->temp_mem_max_c = NAN;
    g->clock_max_sm_mhz = NAN;
    g->pcie_gen_max = NAN;
    g->pcie_width_max = NAN;
}

diag_gpu *diag_window_gpu(diag_window *w, int gpu)
{
    if (gpu < 0 || gpu > 4095)
        return NULL;
    if (gpu >= w->n_gpus) {
        diag_gpu *ng = realloc(w->gpus, (size_t)(gpu + 1) * sizeof *ng);
        if (!ng) {
            w->oom = 1;
            return NULL;
        }
        w->gpus = ng;
        for (int i = w->n_gpus; i <= gpu; i++)
            gpu_init(&w->gpus[i], i);
        w->n_gpus = gpu + 1;
    }
    diag_gpu *g = &w->gpus[gpu];
    g->known = 1;
    return g;
}

void diag_window_push(diag_window *w, diag_series *s, uint64_t t, float v, int step)
{
    if (step && s->n > 0 && s->v[s->n - 1] == v)
        return;
    if (s->n > 0 && t < s->t[s->n - 1])
        return; /* out of order: a series only grows forward */
    if (diag_series_push(s, t, v) != 0)
        w->oom = 1;
}

static void set_limit(double *dst, const gpu_sample *s, metric_id id)
{
    double v;
    if (sample_get(s, id, &v) && isfinite(v) && v > 0)
        *dst = v;
}

static void read_limits(diag_gpu *g, const gpu_sample *s)
{
    set_limit(&g->power_default_w, s, M_POWER_DEFAULT_LIMIT);
    set_limit(&g->mem_total_mib, s, M_MEM_TOTAL);
    set_limit(&g->temp_slowdown_c, s, M_TEMP_SLOWDOWN);
    set_limit(&g->temp_shutdown_c, s, M_TEMP_SHUTDOWN);
    set_limit(&g->temp_gpu_max_c, s, M_TEMP_GPU_MAX);
    set_limit(&g->temp_mem_max_c, s, M_TEMP_MEM_MAX);
    set_limit(&g->clock_max_sm_mhz, s, M_CLOCK_MAX_SM);
    set_limit(&g->pcie_gen_max, s, M_PCIE_GEN_MAX);
    set_limit(&g->pcie_width_max, s, M_PCIE_WIDTH_MAX);
}

/* GPM's PCIe rates (MiB/s) in the KB/s of pcie.rx/tx_throughput. */
static int gpm_rate(const gpu_sample *s, metric_id id, double *v)
{
    if (!sample_get(s, id, v))
        return 0;
    *v *= 1048.576;
    return 1;
}

static void read_series(diag_window *w, diag_gpu *g, const gpu_sample *s)
{
    for (int k = 0; k < DS_COUNT; k++) {
        double v;
        int have = sample_get(s, diag_signal_metric((diag_signal)k), &v);
        if (!have && k == DS_PCIE_RX)
            have = gpm_rate(s, M_GPM_PCIE_RX, &v);
        if (!have && k == DS_PCIE_TX)
            have = gpm_rate(s, M_GPM_PCIE_TX, &v);
        /* a reading past these is none (a broken or hostile source): the detectors cast bitmasks,
         * link widths and generations to 32 bits */
        if (have && isfinite(v) && v >= -DIAG_MAX_READING && v <= DIAG_MAX_READING)
            diag_window_push(w, &g->s[k], s->t_us, (float)v, k >= DS_FIRST_STEP);
    }
    if (!sample_has(s, M_NVLINK_ACTIVE) && !sample_has(s, M_NVLINK_CRC_TOTAL))
        return; /* no NVLink: no link to look at */
    for (int l = 0; l < NVLINK_NLINKS; l++)
        for (int k = 0; k < NVL_NKINDS; k++) {
            double v;
            if (sample_get(s, nvlink_id(l, (nvlink_kind)k), &v) && isfinite(v))
                diag_window_push(w, &g->nvl[l][k], s->t_us, (float)v, 1);
        }
}

void diag_window_add_sample(diag_window *w, int gpu, const gpu_info *info, const gpu_sample *s)
{
    diag_gpu *g = diag_window_gpu(w, gpu);
    if (!g || !s)
        return;
    if (info) {
        if (mset_has(&info->str_present, M_NAME))
            gw_strlcpy(g->name, info->str[M_NAME], sizeof g->name);
        if (mset_has(&info->str_present, M_UUID))
            gw_strlcpy(g->uuid, info->str[M_UUID], sizeof g->uuid);
    }
    if (g->n_samples > 0 && s->t_us < g->last_us)
        return; /* samples of a GPU arrive in time order */
    if (g->n_samples == 0)
        g->first_us = s->t_us;
    g->last_us = s->t_us;
    g->n_samples++;
    if (!w->events_given)
        diag_window_derive_events(w, g, gpu, s);
    if (s->status != GPU_OK)
        return;
    read_limits(g, s);
    read_series(w, g, s);
}

void diag_window_trim(diag_window *w, uint64_t t_us)
{
    for (int i = 0; i < w->n_gpus; i++) {
        diag_gpu *g = &w->gpus[i];
        for (int k = 0; k < DS_COUNT; k++)
            diag_series_trim(&g->s[k], t_us, k >= DS_FIRST_STEP);
        for (int l = 0; l < NVLINK_NLINKS; l++)
            for (int k = 0; k < NVL_NKINDS; k++)
                diag_series_trim(&g->nvl[l][k], t_us, 1);
        diag_series_trim(&g->nproc, t_us, 1);
        if (g->first_us < t_us)
            g->first_us = g->last_us < t_us ? g->last_us : t_us;
    }
    int out = 0;
    for (int i = 0; i < w->n_procs; i++) {
        diag_proc *q = &w->procs[i];
        diag_proc_trim_spans(q, t_us);
        if (q->n_spans == 0) {
            diag_proc_release(q);
            continue;
        }
        diag_series_trim(&q->mem, t_us, 0);
        diag_series_trim(&q->sm, t_us, 0);
        diag_series_trim(&q->cpu, t_us, 0);
        w->procs[out++] = *q;
    }
    w->n_procs = out;
    int k = 0;
    while (k < w->n_events && w->events[k].t_us < t_us)
        k++;
    if (k > 0) {
        memmove(w->events, w->events + k, (size_t)(w->n_events - k) * sizeof *w->events);
        w->n_events -= k;
    }
    int kept = 0;
    for (int i = 0; i < w->n_notes; i++)
        if (w->notes[i].t_us >= t_us)
            w->notes[kept++] = w->notes[i];
    w->n_notes = kept;
}

int diag_window_span(const diag_window *w, uint64_t *from_us, uint64_t *to_us)
{
    uint64_t a = 0, b = 0;
    int any = 0;
    for (int i = 0; i < w->n_gpus; i++) {
        const diag_gpu *g = &w->gpus[i];
        if (!g->n_samples)
            continue;
        if (!any || g->first_us < a)
            a = g->first_us;
        if (!any || g->last_us > b)
            b = g->last_us;
        any = 1;
    }
    if (from_us)
        *from_us = a;
    if (to_us)
        *to_us = b;
    return any;
}

static size_t series_bytes(const diag_series *s)
{
    return (size_t)s->cap * (sizeof *s->t + sizeof *s->v);
}

size_t diag_window_bytes(const diag_window *w)
{
    size_t b = sizeof *w + (size_t)w->n_gpus * sizeof(diag_gpu) + (size_t)w->cap_procs * sizeof(diag_proc) +
               (size_t)w->cap_events * sizeof(diag_event) + (size_t)w->cap_notes * sizeof(diag_job_note);
    for (int i = 0; i < w->n_gpus; i++) {
        for (int k = 0; k < DS_COUNT; k++)
            b += series_bytes(&w->gpus[i].s[k]);
        for (int l = 0; l < NVLINK_NLINKS; l++)
            for (int k = 0; k < NVL_NKINDS; k++)
                b += series_bytes(&w->gpus[i].nvl[l][k]);
        b += series_bytes(&w->gpus[i].nproc);
    }
    for (int i = 0; i < w->n_procs; i++) {
        const diag_proc *q = &w->procs[i];
        b += series_bytes(&q->mem) + series_bytes(&q->sm) + series_bytes(&q->cpu);
        b += (size_t)q->cap_spans * sizeof(diag_span);
    }
    return b;
}
