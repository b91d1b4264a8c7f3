/* diag_window.c - building the diagnosis window: samples become per-signal series and events,
 * process lists become per-process tracks; trim drops the oldest part of a sliding window. */
#include "diagnosis/diag_window.h"
#include "util.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define EVENT_SAME_US 5000000ull /* an event repeated within 5 s is the same event */

diag_window *diag_window_new(void)
{
    return calloc(1, sizeof(diag_window));
}

static void gpu_release(diag_gpu *g)
{
    for (int s = 0; s < DS_COUNT; s++)
        diag_series_free(&g->s[s]);
    diag_series_free(&g->nproc);
}

static void proc_release(diag_proc *p)
{
    diag_series_free(&p->mem);
    diag_series_free(&p->sm);
    diag_series_free(&p->cpu);
    free(p->spans);
}

void diag_window_clear(diag_window *w)
{
    for (int i = 0; i < w->n_gpus; i++)
        gpu_release(&w->gpus[i]);
    for (int i = 0; i < w->n_procs; i++)
        proc_release(&w->procs[i]);
    free(w->gpus);
    free(w->procs);
    free(w->events);
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

static diag_gpu *gpu_get(diag_window *w, int gpu)
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

static void push(diag_window *w, diag_series *s, uint64_t t, float v, int step)
{
    if (step && s->n > 0 && s->v[s->n - 1] == v)
        return;
    if (s->n > 0 && t < s->t[s->n - 1])
        return; /* out of order: a series only grows forward */
    if (diag_series_push(s, t, v) != 0)
        w->oom = 1;
}

static void add_event_raw(diag_window *w, int gpu, uint64_t t, diag_event_kind kind, int code, int count)
{
    for (int i = w->n_events - 1; i >= 0; i--) {
        const diag_event *e = &w->events[i];
        uint64_t d = e->t_us > t ? e->t_us - t : t - e->t_us;
        if (e->gpu == gpu && e->kind == kind && e->code == code && d <= EVENT_SAME_US)
            return;
    }
    if (w->n_events == w->cap_events) {
        int cap = w->cap_events ? w->cap_events * 2 : 16;
        diag_event *ne = realloc(w->events, (size_t)cap * sizeof *ne);
        if (!ne) {
            w->oom = 1;
            return;
        }
        w->events = ne;
        w->cap_events = cap;
    }
    /* kept in time order */
    int k = w->n_events;
    while (k > 0 && w->events[k - 1].t_us > t) {
        w->events[k] = w->events[k - 1];
        k--;
    }
    w->events[k] = (diag_event){.t_us = t, .gpu = gpu, .kind = kind, .code = code, .count = count < 1 ? 1 : count};
    w->n_events++;
}

void diag_window_add_event(diag_window *w, int gpu, uint64_t t_us, diag_event_kind kind, int code, int count)
{
    if (gpu_get(w, gpu))
        add_event_raw(w, gpu, t_us, kind, code, count);
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

/* A counter that grew since the previous sample (a reset, e.g. a driver reload, is not growth). */
static int grew(const gpu_sample *s, metric_id id, double *prev, int has_prev, int *by)
{
    double v;
    if (!sample_get(s, id, &v) || !isfinite(v))
        return 0;
    int up = has_prev && !isnan(*prev) && v > *prev;
    if (up)
        *by = (int)(v - *prev + 0.5);
    *prev = v;
    return up;
}

static void read_events(diag_window *w, diag_gpu *g, int gpu, const gpu_sample *s)
{
    uint64_t t = s->t_us;
    int has_prev = g->has_prev;
    int n = 0;
    double last = 0;
    int have_last = sample_get(s, M_XID_LAST, &last);
    if (grew(s, M_XID_COUNT, &g->prev_xid_count, has_prev, &n))
        add_event_raw(w, gpu, t, DIAG_EV_XID, have_last ? (int)last : 0, n);
    else if (!sample_has(s, M_XID_COUNT) && have_last && has_prev && last != 0 && last != g->prev_xid_last)
        add_event_raw(w, gpu, t, DIAG_EV_XID, (int)last, 1);
    if (have_last)
        g->prev_xid_last = last;
    metric_id dbe = sample_has(s, M_ECC_DBE_VOL) ? M_ECC_DBE_VOL : M_ECC_DBE_AGG;
    if (grew(s, dbe, &g->prev_dbe, has_prev, &n))
        add_event_raw(w, gpu, t, DIAG_EV_ECC_DBE, 0, n);
    if (grew(s, M_REMAP_UNC, &g->prev_remap_unc, has_prev, &n))
        add_event_raw(w, gpu, t, DIAG_EV_REMAP_UNC, 0, n);
    double v;
    /* states: an edge, or already set in the first sample */
    if (sample_get(s, M_REMAP_PENDING, &v)) {
        if (v > 0.5 && !(g->prev_pending > 0.5))
            add_event_raw(w, gpu, t, DIAG_EV_REMAP_PENDING, 0, 1);
        g->prev_pending = v;
    }
    if (sample_get(s, M_REMAP_FAILURE, &v)) {
        if (v > 0.5 && !(g->prev_failure > 0.5))
            add_event_raw(w, gpu, t, DIAG_EV_REMAP_FAILURE, 0, 1);
        g->prev_failure = v;
    }
}

static void first_prev(diag_gpu *g)
{
    g->prev_xid_count = NAN;
    g->prev_dbe = NAN;
    g->prev_remap_unc = NAN;
    g->prev_xid_last = 0;
    g->prev_pending = 0;
    g->prev_failure = 0;
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
        if (have && isfinite(v))
            push(w, &g->s[k], s->t_us, (float)v, k >= DS_FIRST_STEP);
    }
}

void diag_window_add_sample(diag_window *w, int gpu, const gpu_info *info, const gpu_sample *s)
{
    diag_gpu *g = gpu_get(w, gpu);
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
    int lost = s->status == GPU_LOST;
    if (lost && !g->prev_lost)
        add_event_raw(w, gpu, s->t_us, DIAG_EV_GPU_LOST, 0, 1);
    if (!lost && g->prev_lost)
        add_event_raw(w, gpu, s->t_us, DIAG_EV_GPU_BACK, 0, 1);
    g->prev_lost = lost;
    if (s->status != GPU_OK)
        return;
    if (!g->has_prev)
        first_prev(g);
    read_limits(g, s);
    read_series(w, g, s);
    read_events(w, g, gpu, s);
    g->has_prev = 1;
}

static diag_proc *proc_find(diag_window *w, int gpu, const gpu_proc *p)
{
    for (int i = w->n_procs - 1; i >= 0; i--) {
        diag_proc *q = &w->procs[i];
        if (q->gpu == gpu && q->pid == p->pid && strcmp(q->name, p->name) == 0)
            return q;
    }
    if (w->n_procs == w->cap_procs) {
        int cap = w->cap_procs ? w->cap_procs * 2 : 16;
        diag_proc *np = realloc(w->procs, (size_t)cap * sizeof *np);
        if (!np) {
            w->oom = 1;
            return NULL;
        }
        w->procs = np;
        w->cap_procs = cap;
    }
    diag_proc *q = &w->procs[w->n_procs++];
    memset(q, 0, sizeof *q);
    q->gpu = gpu;
    q->pid = p->pid;
    gw_strlcpy(q->name, p->name, sizeof q->name);
    return q;
}

/* prev_obs: the GPU's previous process-list time, 0 for its first list. */
static void proc_seen(diag_window *w, diag_proc *q, uint64_t prev_obs, uint64_t t)
{
    if (q->n_spans > 0 && q->spans[q->n_spans - 1].to_us == prev_obs) {
        q->spans[q->n_spans - 1].to_us = t;
        return;
    }
    if (q->n_spans > 0 && q->spans[q->n_spans - 1].to_us >= t)
        return; /* listed twice at one time */
    if (q->n_spans == q->cap_spans) {
        int cap = q->cap_spans ? q->cap_spans * 2 : 4;
        diag_span *ns = realloc(q->spans, (size_t)cap * sizeof *ns);
        if (!ns) {
            w->oom = 1;
            return;
        }
        q->spans = ns;
        q->cap_spans = cap;
    }
    q->spans[q->n_spans++] = (diag_span){t, t};
}

static void proc_update(diag_window *w, diag_proc *q, const gpu_proc *p, uint64_t prev_obs, uint64_t t)
{
    /* the identity fields are kept from the first read that had them */
    if (!q->cmdline[0] && p->cmdline[0])
        gw_strlcpy(q->cmdline, p->cmdline, sizeof q->cmdline);
    if (!q->user[0] && p->user[0])
        gw_strlcpy(q->user, p->user, sizeof q->user);
    if (!q->container[0] && p->container[0])
        gw_strlcpy(q->container, p->container, sizeof q->container);
    if (!q->start_time_s)
        q->start_time_s = p->start_time_s;
    if (p->has_mem && isfinite(p->mem_mib))
        push(w, &q->mem, t, (float)p->mem_mib, 0);
    if (p->has_sm && isfinite(p->sm_util))
        push(w, &q->sm, t, (float)p->sm_util, 0);
    if (p->has_cpu && isfinite(p->cpu_percent))
        push(w, &q->cpu, t, (float)p->cpu_percent, 0);
    proc_seen(w, q, prev_obs, t);
}

static void observe_gpu(diag_window *w, int gpu, uint64_t t, const gpu_proc *p, int n, int use_own_gpu)
{
    diag_gpu *g = gpu_get(w, gpu);
    if (!g || (g->nproc.n > 0 && t <= g->last_obs_us))
        return;
    uint64_t prev = g->last_obs_us;
    int count = 0;
    for (int i = 0; i < n; i++) {
        if (use_own_gpu && p[i].gpu != gpu)
            continue;
        diag_proc *q = proc_find(w, gpu, &p[i]);
        if (q)
            proc_update(w, q, &p[i], prev, t);
        count++;
    }
    push(w, &g->nproc, t, (float)count, 0);
    g->last_obs_us = t;
}

void diag_window_add_processes(diag_window *w, int gpu, uint64_t t_us, const gpu_proc *p, int n)
{
    if (gpu >= 0) {
        observe_gpu(w, gpu, t_us, p, n, 0);
        return;
    }
    for (int i = 0; i < n; i++)
        gpu_get(w, p[i].gpu); /* a GPU first seen here */
    for (int g = 0; g < w->n_gpus; g++)
        if (w->gpus[g].known)
            observe_gpu(w, g, t_us, p, n, 1);
}

static void trim_spans(diag_proc *q, uint64_t t)
{
    int k = 0;
    while (k < q->n_spans && q->spans[k].to_us < t)
        k++;
    if (k > 0) {
        memmove(q->spans, q->spans + k, (size_t)(q->n_spans - k) * sizeof *q->spans);
        q->n_spans -= k;
    }
    if (q->n_spans > 0 && q->spans[0].from_us < t)
        q->spans[0].from_us = t;
}

void diag_window_trim(diag_window *w, uint64_t t_us)
{
    for (int i = 0; i < w->n_gpus; i++) {
        diag_gpu *g = &w->gpus[i];
        for (int k = 0; k < DS_COUNT; k++)
            diag_series_trim(&g->s[k], t_us, k >= DS_FIRST_STEP);
        diag_series_trim(&g->nproc, t_us, 1);
        if (g->first_us < t_us)
            g->first_us = g->last_us < t_us ? g->last_us : t_us;
    }
    int out = 0;
    for (int i = 0; i < w->n_procs; i++) {
        diag_proc *q = &w->procs[i];
        trim_spans(q, t_us);
        if (q->n_spans == 0) {
            proc_release(q);
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
               (size_t)w->cap_events * sizeof(diag_event);
    for (int i = 0; i < w->n_gpus; i++) {
        for (int k = 0; k < DS_COUNT; k++)
            b += series_bytes(&w->gpus[i].s[k]);
        b += series_bytes(&w->gpus[i].nproc);
    }
    for (int i = 0; i < w->n_procs; i++) {
        const diag_proc *q = &w->procs[i];
        b += series_bytes(&q->mem) + series_bytes(&q->sm) + series_bytes(&q->cpu);
        b += (size_t)q->cap_spans * sizeof(diag_span);
    }
    return b;
}
