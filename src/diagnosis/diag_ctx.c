/* diag_ctx.c - the per-run context of the diagnosis: per-GPU views (utilization marked held or
 * not by the process lists, the job's readings with the gaps between jobs closed up), look-ups
 * of other signals at a reading's time, and the helpers that attribute and chart findings. */
#include "diag_internal.h"
#include "util.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double diag_at(const diag_series *s, uint64_t t, uint64_t tol_us, int *hint)
{
    int i = diag_series_at(s, t, hint);
    if (i < 0 || t - s->t[i] > tol_us)
        return NAN;
    return s->v[i];
}

double diag_series_mean(const diag_series *s, uint64_t from, uint64_t to)
{
    int hint = 0, i = diag_series_at(s, from, &hint);
    if (i < 0 || s->t[i] < from)
        i++;
    double sum = 0;
    int n = 0;
    for (; i < s->n && s->t[i] <= to; i++, n++)
        sum += s->v[i];
    return n ? sum / n : NAN;
}

double diag_step_at(const diag_series *s, uint64_t t, double dflt, int *hint)
{
    int i = diag_series_at(s, t, hint);
    return i < 0 ? (s->n > 0 ? s->v[0] : dflt) : s->v[i];
}

double diag_view_dt(const diag_gpu_view *v, int i)
{
    uint64_t d = i + 1 < v->n ? v->t[i + 1] - v->t[i] : v->step_us;
    if (d > 2 * v->step_us)
        d = v->step_us;
    return (double)d / 1e6;
}

double diag_need_s(const diag_gpu_view *v, double min_s)
{
    double need = min_s < 0.5 * v->act_s ? min_s : 0.5 * v->act_s;
    double floor_s = 5.0 * (double)v->step_us / 1e6;
    return need > floor_s ? need : floor_s;
}

double diag_power_limit_at(const diag_gpu_view *v, uint64_t t, int *hint)
{
    double lim = diag_step_at(&v->g->s[DS_POWER_LIMIT], t, NAN, hint);
    if (isnan(lim) || lim <= 0)
        lim = v->g->power_default_w;
    return lim;
}

double diag_pcie_lane_kbs(int gen)
{
    static const double mbs[] = {0, 250, 500, 984.6, 1969.2, 3938.5, 7563.0};
    return mbs[gen < 1 ? 1 : gen > 6 ? 6 : gen] * 1000.0;
}

double diag_counter_max_minute(const diag_series *s, uint64_t *at)
{
    const uint64_t minute = 60000000ull;
    double best = 0;
    int hint = 0;
    for (int i = 1; i < s->n; i++) {
        double before = diag_step_at(s, s->t[i] > minute ? s->t[i] - minute : 0, s->v[0], &hint);
        if (s->v[i] - before > best) {
            best = s->v[i] - before;
            if (at)
                *at = s->t[i];
        }
    }
    return best;
}

double diag_idle_power(const diag_gpu_view *v, double frac)
{
    const diag_series *pw = &v->g->s[DS_POWER];
    float *idle = malloc((size_t)(v->n + 1) * sizeof *idle);
    int k = 0, hint = 0;
    for (int i = 0; idle && i < v->n; i++) {
        if (v->u[i] >= 1)
            continue;
        double p = diag_at(pw, v->t[i], v->step_us, &hint);
        if (!isnan(p))
            idle[k++] = (float)p;
    }
    double observed = k >= 10 ? dstat_percentile(idle, k, 10) : NAN;
    free(idle);
    double assumed = isnan(v->g->power_default_w) ? NAN : frac * v->g->power_default_w;
    if (isnan(observed))
        return assumed;
    return isnan(assumed) || observed < assumed ? observed : assumed;
}

double diag_proc_mem(const diag_proc *p)
{
    return p->mem.n > 0 ? p->mem.v[p->mem.n - 1] : NAN;
}

/* Marks each reading held (1), not held (0) or unknown (-1) from the GPU's process lists. */
static void mark_held(diag_gpu_view *v)
{
    const diag_series *np = &v->g->nproc;
    v->procs_known = np->n > 0;
    int hint = 0;
    for (int i = 0; i < v->n; i++) {
        if (!v->procs_known) {
            v->held[i] = -1;
            continue;
        }
        double k = diag_step_at(np, v->t[i], np->v[0], &hint);
        v->held[i] = k > 0;
    }
}

/* The job's readings: held (or unknown), with the time between jobs taken out so that the
 * periodicity analysis sees one continuous series. */
static void collect_active(diag_gpu_view *v)
{
    uint64_t shift = 0, prev = 0;
    int have_prev = 0;
    for (int i = 0; i < v->n; i++) {
        if (v->held[i] == 0)
            continue;
        if (have_prev && v->t[i] - prev > 3 * v->step_us)
            shift += v->t[i] - prev - v->step_us;
        prev = v->t[i];
        have_prev = 1;
        if (v->n_act == 0)
            v->act_from = v->t[i];
        v->act_to = v->t[i];
        v->t_act[v->n_act] = v->t[i] - shift;
        v->u_act[v->n_act] = v->u[i];
        v->act_s += diag_view_dt(v, i);
        v->n_act++;
    }
}

static int view_init(diag_gpu_view *v, const diag_gpu *g, int gpu)
{
    memset(v, 0, sizeof *v);
    v->g = g;
    v->gpu = gpu;
    const diag_series *u = &g->s[DS_UTIL];
    if (!g->known || u->n < 2)
        return 0;
    v->n = u->n;
    v->t = u->t;
    v->u = u->v;
    v->held = malloc((size_t)v->n);
    v->t_act = malloc((size_t)v->n * sizeof *v->t_act);
    v->u_act = malloc((size_t)v->n * sizeof *v->u_act);
    if (!v->held || !v->t_act || !v->u_act)
        return -1;
    v->step_us = dstat_median_step(v->t, v->n, v->u_act);
    if (v->step_us == 0)
        v->step_us = 1000000;
    mark_held(v);
    collect_active(v);
    return 0;
}

int diag_ctx_init(diag_ctx *c, const diag_window *w, const diag_config *cfg, diag_report *out)
{
    memset(c, 0, sizeof *c);
    c->w = w;
    c->cfg = cfg;
    c->out = out;
    diag_window_span(w, &c->from_us, &c->to_us);
    c->n_views = w->n_gpus;
    if (c->n_views == 0)
        return 0;
    c->views = calloc((size_t)c->n_views, sizeof *c->views);
    if (!c->views)
        return -1;
    for (int i = 0; i < c->n_views; i++)
        if (view_init(&c->views[i], &w->gpus[i], i) != 0)
            return -1;
    return 0;
}

void diag_ctx_free(diag_ctx *c)
{
    for (int i = 0; i < c->n_views; i++) {
        free(c->views[i].held);
        free(c->views[i].t_act);
        free(c->views[i].u_act);
    }
    free(c->views);
    c->views = NULL;
    c->n_views = 0;
}

const diag_cycles *diag_view_cycles(diag_ctx *c, diag_gpu_view *v)
{
    if (!v->cycles_done) {
        diag_cycles_analyze(v->t_act, v->u_act, v->n_act, v->step_us, c->cfg, &v->cycles);
        v->cycles_done = 1;
    }
    return &v->cycles;
}

static uint64_t overlap(const diag_proc *p, uint64_t from, uint64_t to)
{
    uint64_t total = 0;
    for (int i = 0; i < p->n_spans; i++) {
        uint64_t a = p->spans[i].from_us > from ? p->spans[i].from_us : from;
        uint64_t b = p->spans[i].to_us < to ? p->spans[i].to_us : to;
        if (b >= a)
            total += b - a + 1;
    }
    return total;
}

/* Orders holders: compute processes before graphics-only ones, then the largest memory first
 * (unknown last), then the longest present. */
typedef struct {
    const diag_proc *p;
    double mem;
    uint64_t present;
} holder;

static int holder_cmp(const void *a, const void *b)
{
    const holder *x = a, *y = b;
    if (x->p->compute != y->p->compute)
        return x->p->compute ? -1 : 1;
    if (x->mem != y->mem)
        return x->mem > y->mem ? -1 : 1;
    if (x->present != y->present)
        return x->present > y->present ? -1 : 1;
    return x->p->pid < y->p->pid ? -1 : (x->p->pid > y->p->pid);
}

int diag_procs_in(const diag_ctx *c, int gpu, uint64_t from, uint64_t to, const diag_proc **out, int max)
{
    holder h[DIAG_MAX_PIDS];
    int k = 0;
    for (int i = 0; i < c->w->n_procs && k < DIAG_MAX_PIDS && k < max; i++) {
        const diag_proc *p = &c->w->procs[i];
        uint64_t o = p->gpu == gpu ? overlap(p, from, to) : 0;
        if (o == 0)
            continue;
        double m = diag_proc_mem(p);
        h[k++] = (holder){p, isnan(m) ? -1 : m, o};
    }
    qsort(h, (size_t)k, sizeof *h, holder_cmp);
    for (int i = 0; i < k; i++)
        out[i] = h[i].p;
    return k;
}

void diag_proc_label(const diag_proc *p, char *out, size_t n)
{
    if (!p) {
        if (n)
            out[0] = 0;
        return;
    }
    char extra[200] = "";
    if (p->user[0] && p->container[0])
        snprintf(extra, sizeof extra, ", user %s, container %s", p->user, p->container);
    else if (p->user[0])
        snprintf(extra, sizeof extra, ", user %s", p->user);
    else if (p->container[0])
        snprintf(extra, sizeof extra, ", container %s", p->container);
    snprintf(out, n, "pid %u (%s%s)", p->pid, p->name[0] ? p->name : "?", extra);
}

void diag_attribute(diag_ctx *c, diag_finding *f, int gpu, uint64_t from, uint64_t to)
{
    const diag_proc *procs[DIAG_MAX_PIDS];
    int k = diag_procs_in(c, gpu, from, to, procs, DIAG_MAX_PIDS);
    for (int i = 0; i < k; i++)
        diag_finding_pid(f, procs[i]->pid);
    if (k == 0)
        return;
    const diag_proc *p = procs[0];
    diag_finding_str(f, "process", "%s", p->name);
    if (p->user[0])
        diag_finding_str(f, "user", "%s", p->user);
    if (p->container[0])
        diag_finding_str(f, "container", "%s", p->container);
    if (p->cmdline[0])
        diag_finding_str(f, "command", "%s", p->cmdline);
}

diag_severity diag_level(const diag_ctx *c, const char *detector, int gpu, double x, double margin, diag_severity below,
                         diag_severity at_or_above)
{
    diag_severity now = x >= 0 ? at_or_above : below;
    if (!c->prev || !(fabs(x) < margin))
        return now;
    for (int i = 0; i < c->prev->n; i++) {
        const diag_finding *f = &c->prev->f[i];
        if (strcmp(f->detector, detector) != 0 || (f->severity != below && f->severity != at_or_above))
            continue;
        for (int g = 0; g < f->n_gpus; g++)
            if (f->gpus[g] == gpu)
                return f->severity;
    }
    return now;
}

diag_finding *diag_emit(diag_ctx *c, const char *detector, diag_severity sev, int gpu, uint64_t from, uint64_t to)
{
    diag_finding *f = diag_report_add(c->out, detector, sev);
    if (!f)
        return NULL;
    diag_finding_gpu(f, gpu);
    /* a run of readings lasts a step past its last one: the finding still ends with the window */
    f->from_us = from;
    f->to_us = c->to_us && to > c->to_us ? c->to_us : to;
    if (gpu >= 0 && gpu < c->n_views && c->views[gpu].g->name[0])
        diag_finding_str(f, "gpu_name", "%s", c->views[gpu].g->name);
    diag_attribute(c, f, gpu, from, to);
    return f;
}

void diag_chart_series(diag_finding *f, const diag_series *s, int gpu, const char *metric, const char *unit,
                       uint64_t from, uint64_t to, int pct)
{
    diag_chart *ch = &f->chart;
    memset(ch, 0, sizeof *ch);
    if (s->n == 0 || to < from)
        return;
    gw_strlcpy(ch->metric, metric, sizeof ch->metric);
    gw_strlcpy(ch->unit, unit, sizeof ch->unit);
    ch->gpu = gpu;
    ch->from_us = from;
    ch->to_us = to;
    double sum[DIAG_CHART_POINTS] = {0};
    int cnt[DIAG_CHART_POINTS] = {0};
    uint64_t span = to - from + 1;
    for (int i = 0; i < s->n; i++) {
        if (s->t[i] < from || s->t[i] > to)
            continue;
        int b = (int)((double)(s->t[i] - from) / (double)span * DIAG_CHART_POINTS);
        if (b >= DIAG_CHART_POINTS)
            b = DIAG_CHART_POINTS - 1;
        sum[b] += s->v[i];
        cnt[b]++;
    }
    /* as many buckets as there are readings, when fewer than the chart's width */
    int used = 0;
    for (int b = 0; b < DIAG_CHART_POINTS; b++)
        used += cnt[b] > 0;
    float lo = INFINITY, hi = -INFINITY, last = NAN;
    for (int b = 0; b < DIAG_CHART_POINTS; b++) {
        if (cnt[b] == 0 && (used < DIAG_CHART_POINTS / 2 || isnan(last)))
            continue;
        float val = cnt[b] ? (float)(sum[b] / cnt[b]) : last;
        ch->v[ch->n++] = val;
        last = val;
        lo = val < lo ? val : lo;
        hi = val > hi ? val : hi;
    }
    ch->lo = pct ? 0 : lo;
    ch->hi = pct ? 100 : hi;
    if (!pct && hi <= lo) {
        ch->lo = lo - 1;
        ch->hi = hi + 1;
    }
}
