/* det_memory_leak.c - memory_leak: a process's GPU memory keeps rising after its warm-up: a line
 * fits it well (R² >= 0.8), the rise is material for the GPU, and it has not levelled off. A
 * smooth rise has levelled off when the last part of the window rises much slower than the whole;
 * a rise in steps (a cache or a list appended every N iterations) when its last step is overdue
 * (older than a few of its own step intervals): between two steps it is flat whatever the window.
 * Projects when the GPU runs out from the trend (the fitted rate), not from the last step. GPUs
 * without process lists are judged on their memory.used as a whole. */
#include "diag_internal.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIN_POINTS 10
#define TAIL_SHARE 0.25 /* a tail rising slower than a quarter of the average has levelled off */

typedef struct {
    int steps;              /* jumps above the readings' noise (0: a smooth rise) */
    double step_interval_s; /* median time between them */
    double step_mib;        /* median jump */
    double since_last_s;    /* from the last jump to the last reading */
} staircase;

typedef struct {
    int i0; /* first reading after warm-up */
    staircase st;
    dstat_fit fit;     /* MiB per second */
    double span_s;     /* fitted time */
    double rise_mib;   /* slope * span */
    double tail_slope; /* MiB per second over the last plateau_frac of the span */
    double now_mib;
} leak;

#define STEP_NOISE 6     /* a jump is a step when above this many times the median change between readings */
#define STEP_MIN_MIB 16  /* ... and at least this (the allocator's smallest growth is 2 MiB blocks of 20 MiB) */
#define STEP_SHARE 0.6   /* a staircase when its steps make at least this share of the rise */
#define STEP_MIN_COUNT 3 /* and there are at least this many of them (an interval needs two) */

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* The jumps of s from i0 on, when they make most of the rise; st->steps = 0 otherwise. */
static void find_steps(const diag_series *s, int i0, staircase *st)
{
    memset(st, 0, sizeof *st);
    int m = s->n - i0;
    float *d = malloc((size_t)m * sizeof *d), *gap = malloc((size_t)m * sizeof *gap),
          *jump = malloc((size_t)m * sizeof *jump);
    if (!d || !gap || !jump || m < 3)
        goto out;
    for (int i = 1; i < m; i++)
        d[i - 1] = fabsf(s->v[i0 + i] - s->v[i0 + i - 1]);
    qsort(d, (size_t)(m - 1), sizeof *d, cmp_float);
    double noise = d[(m - 1) / 2], thr = fmax(STEP_MIN_MIB, STEP_NOISE * noise), up = 0;
    int k = 0;
    uint64_t last = 0;
    for (int i = i0 + 1; i < s->n; i++) {
        double dv = s->v[i] - s->v[i - 1];
        if (dv < thr)
            continue;
        up += dv;
        jump[k] = (float)dv;
        if (k > 0)
            gap[k - 1] = (float)((double)(s->t[i] - last) / 1e6);
        last = s->t[i];
        k++;
    }
    double rise = s->v[s->n - 1] - s->v[i0];
    if (k < STEP_MIN_COUNT || !(rise > 0) || up < STEP_SHARE * rise)
        goto out;
    qsort(gap, (size_t)(k - 1), sizeof *gap, cmp_float);
    qsort(jump, (size_t)k, sizeof *jump, cmp_float);
    st->steps = k;
    st->step_interval_s = gap[(k - 1) / 2];
    st->step_mib = jump[k / 2];
    st->since_last_s = (double)(s->t[s->n - 1] - last) / 1e6;
out:
    free(d);
    free(gap);
    free(jump);
}

/* 1 when s (after skip_until) rises steadily and has not levelled off. */
static int analyze(const diag_series *s, uint64_t skip_until, double total, const diag_config *cfg, leak *out)
{
    int i0 = 0;
    while (i0 < s->n && s->t[i0] < skip_until)
        i0++;
    int m = s->n - i0;
    if (m < MIN_POINTS)
        return 0;
    out->i0 = i0;
    out->span_s = (double)(s->t[s->n - 1] - s->t[i0]) / 1e6;
    if (out->span_s < cfg->memory_leak.min_span_s)
        return 0;
    double *x = malloc((size_t)m * sizeof *x);
    if (!x)
        return 0;
    for (int i = 0; i < m; i++)
        x[i] = (double)(s->t[i0 + i] - s->t[i0]) / 1e6;
    int ok = dstat_linfit(x, s->v + i0, m, &out->fit) == 0;
    free(x);
    if (!ok || out->fit.slope <= 0)
        return 0;
    out->rise_mib = out->fit.slope * out->span_s;
    out->now_mib = s->v[s->n - 1];
    double need = cfg->memory_leak.min_rise_mib;
    if (!isnan(total) && cfg->memory_leak.min_rise_frac * total > need)
        need = cfg->memory_leak.min_rise_frac * total;
    if (out->rise_mib < need || out->fit.r2 < cfg->memory_leak.min_r2)
        return 0;
    /* a staircase is still rising while its last step is not overdue */
    find_steps(s, i0, &out->st);
    out->tail_slope = 0;
    if (out->st.steps)
        return out->st.since_last_s <= cfg->memory_leak.step_overdue * out->st.step_interval_s;
    /* a smooth rise still rises at the end: the last plateau_frac of the span keeps at least a quarter
     * of the average rate (a rise that flattened has a flat tail; noise averages out in the fit) */
    uint64_t tail_from = s->t[s->n - 1] - (uint64_t)(cfg->memory_leak.plateau_frac * out->span_s * 1e6);
    int j0 = i0;
    while (j0 < s->n && s->t[j0] < tail_from)
        j0++;
    if (s->n - j0 >= 5) {
        double *xt = malloc((size_t)(s->n - j0) * sizeof *xt);
        dstat_fit tail;
        if (!xt)
            return 0;
        for (int i = j0; i < s->n; i++)
            xt[i - j0] = (double)(s->t[i] - s->t[j0]) / 1e6;
        if (dstat_linfit(xt, s->v + j0, s->n - j0, &tail) == 0)
            out->tail_slope = tail.slope;
        free(xt);
    }
    return out->tail_slope >= TAIL_SHARE * out->fit.slope;
}

static void report(diag_ctx *c, const diag_gpu_view *v, const diag_series *s, const diag_proc *p, const leak *lk)
{
    const diag_gpu *g = v->g;
    const diag_series *used = &g->s[DS_MEM_USED];
    /* the GPU's memory when the fit ends: now, or when a process that has exited last grew */
    int hint = 0;
    double gpu_now = diag_at(used, s->t[s->n - 1], 2 * v->step_us, &hint);
    if (isnan(gpu_now))
        gpu_now = used->n ? used->v[used->n - 1] : lk->now_mib;
    double free_mib = isnan(g->mem_total_mib) ? NAN : g->mem_total_mib - gpu_now;
    double tte_s = !isnan(free_mib) ? fmax(free_mib, 0) / lk->fit.slope : NAN;
    const diag_config *cfg = c->cfg;
    diag_severity sev = isnan(tte_s)
                            ? DIAG_WARNING
                            : diag_level(c, "memory_leak", v->gpu, tte_s / 3600 - cfg->memory_leak.critical_hours,
                                         cfg->memory_leak.severity_margin, DIAG_CRITICAL, DIAG_WARNING);
    uint64_t from = s->t[lk->i0], to = s->t[s->n - 1];
    diag_finding *f = diag_emit(c, "memory_leak", sev, v->gpu, from, to);
    if (!f)
        return;
    f->score = isnan(tte_s) ? 0 : 1 / (1 + tte_s / 3600);
    char who[180] = "the GPU's processes";
    if (p) {
        /* the leaking process first, and its identity as evidence */
        f->n_pids = 0;
        diag_finding_pid(f, p->pid);
        diag_finding_str(f, "process", "%s", p->name);
        if (p->user[0])
            diag_finding_str(f, "user", "%s", p->user);
        if (p->container[0])
            diag_finding_str(f, "container", "%s", p->container);
        diag_proc_label(p, who, sizeof who);
    }
    double per_min = lk->fit.slope * 60;
    diag_finding_num(f, "slope_mib_per_min", per_min, "MiB/min");
    diag_finding_num(f, "r2", lk->fit.r2, "");
    if (lk->st.steps) {
        diag_finding_num(f, "steps", lk->st.steps, "");
        diag_finding_num(f, "step_mib", lk->st.step_mib, "MiB");
        diag_finding_num(f, "step_interval_s", lk->st.step_interval_s, "s");
    } else {
        diag_finding_num(f, "recent_slope_mib_per_min", lk->tail_slope * 60, "MiB/min");
    }
    diag_finding_num(f, "rise_mib", lk->rise_mib, "MiB");
    diag_finding_num(f, "fit_span_s", lk->span_s, "s");
    diag_finding_num(f, "memory_mib", lk->now_mib, "MiB");
    if (!isnan(g->mem_total_mib))
        diag_finding_num(f, "total_mib", g->mem_total_mib, "MiB");
    if (!isnan(tte_s))
        diag_finding_num(f, "time_to_full_s", tte_s, "s");
    char eta[80] = "";
    if (!isnan(tte_s))
        snprintf(eta, sizeof eta, "; at this rate GPU %d is full in %.0f min", v->gpu, tte_s / 60);
    char how[96] = "steadily";
    if (lk->st.steps)
        snprintf(how, sizeof how, "in steps of %.0f MiB every %.0f s", lk->st.step_mib, lk->st.step_interval_s);
    diag_finding_summary(f,
                         "Memory of %s on GPU %d grows %s, %.0f MiB/min on the trend (R^2 %.2f over %.0f min, now "
                         "%.0f MiB)%s",
                         who, v->gpu, how, per_min, lk->fit.r2, lk->span_s / 60, lk->now_mib, eta);
    diag_finding_advice(f, "Look for tensors kept across steps: a loss or output accumulated without .item() or "
                           ".detach(), lists of batches, growing caches");
    diag_finding_advice(f, "Print torch.cuda.memory_summary() every N steps, or record a snapshot "
                           "(torch.cuda.memory._record_memory_history) to see which allocations grow");
    diag_finding_advice(f, "Tell the caching allocator from real growth: torch.cuda.memory_allocated() rising is "
                           "tensors; only memory_reserved() rising is the cache (empty_cache() returns it)");
    char metric[48];
    if (p)
        snprintf(metric, sizeof metric, "memory.used (pid %u)", p->pid);
    else
        snprintf(metric, sizeof metric, "memory.used");
    diag_chart_series(f, s, v->gpu, metric, "MiB", from, to, 0);
}

void det_memory_leak(diag_ctx *c)
{
    const diag_config *cfg = c->cfg;
    uint64_t warmup = (uint64_t)(cfg->memory_leak.warmup_s * 1e6);
    for (int i = 0; i < c->w->n_procs; i++) {
        const diag_proc *p = &c->w->procs[i];
        if (p->gpu < 0 || p->gpu >= c->n_views || p->mem.n < MIN_POINTS || p->n_spans == 0)
            continue;
        const diag_gpu_view *v = &c->views[p->gpu];
        /* a process that started inside the window gets its warm-up */
        uint64_t first = p->spans[0].from_us;
        int started_here =
            first > c->from_us + 2 * v->step_us || (p->start_time_s && p->start_time_s * 1000000ull >= c->from_us);
        leak lk;
        if (analyze(&p->mem, started_here ? first + warmup : 0, v->g->mem_total_mib, cfg, &lk))
            report(c, v, &p->mem, p, &lk);
    }
    for (int i = 0; i < c->n_views; i++) {
        const diag_gpu_view *v = &c->views[i];
        leak lk;
        if (v->g->known && !v->procs_known && analyze(&v->g->s[DS_MEM_USED], 0, v->g->mem_total_mib, cfg, &lk))
            report(c, v, &v->g->s[DS_MEM_USED], NULL, &lk);
    }
}
