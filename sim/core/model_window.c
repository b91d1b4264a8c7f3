/* model_window.c - the mean of an activity curve over the sample period [t - P, t] (from 0 at
 * the start of the scenario). The window is cut at the curves' breakpoints (edges, ramp ends,
 * trace points, process start and end, noise intervals, quarter sines); a stepwise piece is
 * exact with one value, other pieces use 5-point Gauss-Legendre (exact for the linear pieces,
 * never evaluated on a piece's ends, where a curve may jump), and a window with more breakpoints
 * than WIN_MAX_BREAKS falls back to WIN_DENSE midpoint samples. */
#include "model_window.h"
#include "model_phys.h"
#include <math.h>
#include <stdlib.h>

#define WIN_MAX_BREAKS 256
#define WIN_DENSE 512

/* The curve being averaged: a GPU activity (proc < 0: utilization.gpu or .memory, by metric)
 * or one process field. */
typedef struct win_curve {
    const scenario *sc;
    const sim_gpu *g;
    metric_id metric;
    int proc;
    sim_proc_field field;
} win_curve;

static double curve_at(const win_curve *c, double t)
{
    if (c->proc < 0)
        return c->metric == M_UTIL_GPU ? phys_act_gpu(c->sc, c->g, t) : phys_act_mem(c->sc, c->g, t);
    const sim_proc *p = &c->g->spec->procs[c->proc];
    if (t < p->start || t >= p->end)
        return 0;
    return fmin(sim_proc_value(c->sc, c->g, c->proc, c->field, t), 100);
}

static int add_time(double *br, int n, double a, double b, double x)
{
    if (n < 0 || !(x > a && x < b))
        return n;
    if (n >= WIN_MAX_BREAKS)
        return -1;
    br[n] = x;
    return n + 1;
}

/* One process's breakpoints in (a, b); *stepwise cleared when its curve is not stepwise. */
static int proc_breaks(const win_curve *c, int proc, sim_proc_field f, double a, double b, double *br, int n,
                       int *stepwise)
{
    const sim_proc *p = &c->g->spec->procs[proc];
    const sim_gen *gen = sim_proc_gen(p, f);
    if (!gen && !(p->hang_from < b))
        return n;
    n = add_time(br, n, a, b, p->start);
    n = add_time(br, n, a, b, p->end);
    n = add_time(br, n, a, b, p->hang_from);
    if (!gen)
        return n;
    if (n >= 0)
        n = gen_breaks(gen, a, b, br, n, WIN_MAX_BREAKS);
    *stepwise &= gen_is_stepwise(gen);
    return n;
}

/* Breakpoints of the curve in (a, b); -1 when there are too many. */
static int curve_breaks(const win_curve *c, double a, double b, double *br, int *stepwise)
{
    *stepwise = 1;
    if (c->proc >= 0)
        return proc_breaks(c, c->proc, c->field, a, b, br, 0, stepwise);
    const sim_gen *gen = c->g->spec->metric[c->metric];
    if (gen) {
        *stepwise = gen_is_stepwise(gen);
        return gen_breaks(gen, a, b, br, 0, WIN_MAX_BREAKS);
    }
    int n = 0;
    for (int i = 0; i < c->g->spec->nprocs && n >= 0; i++)
        n = proc_breaks(c, i, PF_SM, a, b, br, n, stepwise);
    return n;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

/* Integral of the curve over [a, b], a piece without breakpoints inside. */
static double piece(const win_curve *c, double a, double b, int stepwise)
{
    if (b <= a)
        return 0;
    static const double x[5] = {0, -0.5384693101056831, 0.5384693101056831, -0.9061798459386640, 0.9061798459386640};
    static const double w[5] = {0.5688888888888889, 0.4786286704993665, 0.4786286704993665, 0.2369268850561891,
                                0.2369268850561891};
    double mid = 0.5 * (a + b), half = 0.5 * (b - a), sum = 0;
    if (stepwise)
        return curve_at(c, mid) * (b - a);
    for (int i = 0; i < 5; i++)
        sum += w[i] * curve_at(c, mid + half * x[i]);
    return sum * half;
}

static double window_mean(const win_curve *c, double t)
{
    double period = c->g->spec->p.util_period_s, a = t - period;
    if (a < 0)
        a = 0;
    if (!(t > a))
        return curve_at(c, t);
    double br[WIN_MAX_BREAKS + 2], sum = 0;
    int stepwise, n = curve_breaks(c, a, t, br + 1, &stepwise);
    if (n < 0) {
        double h = (t - a) / WIN_DENSE;
        for (int i = 0; i < WIN_DENSE; i++)
            sum += curve_at(c, a + (i + 0.5) * h);
        return sum / WIN_DENSE;
    }
    qsort(br + 1, (size_t)n, sizeof br[0], cmp_double);
    br[0] = a;
    br[n + 1] = t;
    for (int i = 0; i <= n; i++)
        sum += piece(c, br[i], br[i + 1], stepwise);
    return sum / (t - a);
}

double win_gpu_util(const scenario *sc, const sim_gpu *g, double t)
{
    win_curve c = {.sc = sc, .g = g, .metric = M_UTIL_GPU, .proc = -1};
    return window_mean(&c, t);
}

/* A process of the GPU hangs at some time (`hang:`): its memory activity is not 0.4 x the GPU's. */
static int any_hang(const sim_gpu *g)
{
    for (int i = 0; i < g->spec->nprocs; i++)
        if (g->spec->procs[i].hang_from < INFINITY)
            return 1;
    return 0;
}

double win_mem_util(const scenario *sc, const sim_gpu *g, double t)
{
    if (!g->spec->metric[M_UTIL_MEMORY] && (g->spec->metric[M_UTIL_GPU] || !any_hang(g)))
        return 0.4 * win_gpu_util(sc, g, t); /* the mean of 0.4 x the GPU's activity */
    win_curve c = {.sc = sc, .g = g, .metric = M_UTIL_MEMORY, .proc = -1};
    return window_mean(&c, t);
}

double win_proc(const scenario *sc, const sim_gpu *g, int proc, sim_proc_field f, double t)
{
    win_curve c = {.sc = sc, .g = g, .metric = M_UTIL_GPU, .proc = proc, .field = f};
    return window_mean(&c, t);
}
