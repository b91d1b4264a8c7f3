/* diag_cycles.c - periodic busy/idle analysis of a utilization series (see diag_cycles.h).
 * Periodicity is judged on the autocorrelation of the series resampled on a regular grid and on
 * the regularity of the busy-to-idle transitions; the period is then the strongest spectral line
 * near those two estimates (and their fractions), on the same grid. */
#include "diag_cycles.h"
#include "diag_stats.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MIN_SAMPLES 20
#define MIN_SWING 20.0    /* percentage points between p5 and p95 to speak of busy and idle */
#define MAX_GRID 20000    /* autocorrelation grid points */
#define AGREE 0.25        /* irregular cycles, both period estimates within 25 %: the transition one */
#define IRREGULAR_CV 0.08 /* cycle lengths varying more than this: irregular cycles */
#define JITTER_CYCLES 20  /* cycles enough to trust their variation (cv) */

/* Busy and idle phases with hysteresis, the transition times, and the level of each phase. */
static void count_cycles(const uint64_t *t, const float *u, int n, diag_cycles *c, float *scratch)
{
    double range = c->p95 - c->p5;
    double enter_idle = c->p5 + 0.35 * range, enter_busy = c->p5 + 0.65 * range;
    int busy = u[0] >= c->p5 + 0.5 * range;
    int n_idle = 0, n_busy = 0;
    float *idle_v = scratch, *busy_v = scratch + n;
    uint64_t first = 0, prev = 0;
    double sum = 0, sum2 = 0;
    int gaps = 0;
    for (int i = 0; i < n; i++) {
        if (busy && u[i] < enter_idle) {
            busy = 0;
            if (c->cycles > 0) {
                double d = (double)(t[i] - prev) / 1e6;
                sum += d;
                sum2 += d * d;
                gaps++;
            } else {
                first = t[i];
            }
            prev = t[i];
            c->cycles++;
        } else if (!busy && u[i] > enter_busy) {
            busy = 1;
        }
        if (busy)
            busy_v[n_busy++] = u[i];
        else
            idle_v[n_idle++] = u[i];
    }
    c->idle_level = n_idle ? dstat_percentile(idle_v, n_idle, 50) : c->p5;
    c->busy_level = n_busy ? dstat_percentile(busy_v, n_busy, 50) : c->p95;
    c->cv = -1;
    if (gaps >= 2) {
        double mean = sum / gaps;
        double var = sum2 / gaps - mean * mean;
        c->cv = mean > 0 ? sqrt(var > 0 ? var : 0) / mean : -1;
    }
    c->period_s = gaps >= 1 ? (double)(prev - first) / 1e6 / gaps : 0;
}

/* The series on a regular grid (each reading held until the next), mean removed. */
typedef struct {
    float *x;
    int m;
    double step_s;
} grid;

static int grid_make(const uint64_t *t, const float *u, int n, uint64_t step, grid *g)
{
    uint64_t span = t[n - 1] - t[0];
    while (span / step + 1 > MAX_GRID)
        step *= 2;
    g->m = (int)(span / step) + 1;
    g->step_s = (double)step / 1e6;
    g->x = malloc((size_t)g->m * sizeof *g->x);
    if (!g->x)
        return -1;
    dstat_resample(t, u, n, t[0], step, g->x, g->m);
    double mean = 0;
    for (int i = 0; i < g->m; i++)
        mean += g->x[i];
    mean /= g->m;
    for (int i = 0; i < g->m; i++)
        g->x[i] = (float)(g->x[i] - mean);
    return 0;
}

/* The period at the autocorrelation's peak, and the peak's height. */
static void acf_period(const grid *g, const diag_config *cfg, double *period, double *peak)
{
    *period = 0;
    *peak = 0;
    int max_lag = (int)(cfg->input_stall.max_period_s * 1.5 / g->step_s);
    if (max_lag > g->m / 2)
        max_lag = g->m / 2;
    if (max_lag < 4)
        return;
    double *acf = malloc((size_t)(max_lag + 1) * sizeof *acf);
    double lag, height;
    if (acf) {
        dstat_autocorr(g->x, g->m, max_lag, acf);
        if (dstat_acf_peak(acf, max_lag, &lag, &height) == 0) {
            *period = lag * g->step_s;
            *peak = height;
        }
    }
    free(acf);
}

#define SCAN 41 /* frequencies of one scan: +-20 steps around a centre */

/* Spectral power of the grid at each frequency f[k] (<= 0: not asked, p[k] = -1), by rotating
 * phasors (no trigonometry per point). The frequencies of a scan advance together: each phasor's
 * arithmetic is its own, but independent phasors keep the CPU's pipelines full (one alone waits on
 * its previous product) and vectorise. */
static void power_scan(const grid *g, const double *f, double *p)
{
    double rr[SCAN], ri[SCAN], zr[SCAN], zi[SCAN], ar[SCAN], ai[SCAN];
    for (int k = 0; k < SCAN; k++) {
        double w = -2 * M_PI * f[k] * g->step_s;
        rr[k] = cos(w);
        ri[k] = sin(w);
        zr[k] = 1;
        zi[k] = ar[k] = ai[k] = 0;
    }
    for (int i = 0; i < g->m; i++) {
        double x = g->x[i];
        for (int k = 0; k < SCAN; k++) {
            ar[k] += x * zr[k];
            ai[k] += x * zi[k];
            double nr = zr[k] * rr[k] - zi[k] * ri[k];
            zi[k] = zr[k] * ri[k] + zi[k] * rr[k];
            zr[k] = nr;
        }
    }
    for (int k = 0; k < SCAN; k++)
        p[k] = f[k] > 0 ? ar[k] * ar[k] + ai[k] * ai[k] : -1;
}

/* The strongest of a scan's frequencies, when stronger than *best_p. */
static void scan_best(const grid *g, const double *f, double *best_p, double *best_f)
{
    double p[SCAN];
    power_scan(g, f, p);
    for (int k = 0; k < SCAN; k++)
        if (p[k] > *best_p) {
            *best_p = p[k];
            *best_f = f[k];
        }
}

/* The strongest spectral line within 20 % of each candidate period, refined to 0.05 %: the
 * autocorrelation and transition estimates can be a multiple of the period (a sampled series may
 * repeat exactly only after two or three periods; missed busy phases lengthen cycles), but the
 * spectrum of a periodic signal peaks at its own frequency. 0 when no candidate is usable. */
static double spectral_period(const grid *g, const double *cand, int n_cand, double max_period)
{
    double f_hi = 1 / (2 * g->step_s), f_lo = 1 / (1.5 * max_period);
    double best_f = 0, best_p = -1, f[SCAN];
    for (int c = 0; c < n_cand; c++) {
        if (!(cand[c] > 0))
            continue;
        int any = 0;
        for (int k = 0; k < SCAN; k++) {
            f[k] = (1 + 0.01 * (k - SCAN / 2)) / cand[c];
            if (f[k] < f_lo || f[k] > f_hi)
                f[k] = 0;
            any |= f[k] > 0;
        }
        if (any)
            scan_best(g, f, &best_p, &best_f);
    }
    double f0 = best_f;
    if (f0 > 0) {
        for (int k = 0; k < SCAN; k++) {
            f[k] = f0 * (1 + 0.0005 * (k - SCAN / 2));
            if (f[k] > f_hi)
                f[k] = 0;
        }
        scan_best(g, f, &best_p, &best_f);
    }
    return best_f > 0 ? 1 / best_f : 0;
}

int diag_cycles_reach_idle(const diag_cycles *c, const diag_config *cfg)
{
    return c->valid && c->p5 < cfg->input_stall.p5_util;
}

static int is_periodic(const diag_cycles *c, const diag_config *cfg)
{
    if (c->cycles < cfg->input_stall.min_cycles || c->period_s <= 0 || c->period_s > cfg->input_stall.max_period_s)
        return 0;
    double acf_min = cfg->input_stall.acf_min, cv_max = cfg->input_stall.cv_max;
    if (c->cv < 0)
        return 0;
    /* Cycle lengths that vary from cycle to cycle (waits with a long tail) smear the
     * autocorrelation: over many cycles its peak falls to about exp(-2 pi^2 cv^2) of that of exact
     * cycles (0.29 at cv 0.25), although each cycle is a clear stall. Once there are enough cycles
     * for cv to be trusted, the peak asked for is acf_min scaled by that; cv_max still keeps out
     * request-driven bursts (cv about 1). */
    double need = acf_min;
    if (c->cycles >= JITTER_CYCLES)
        need *= exp(-2 * M_PI * M_PI * c->cv * c->cv);
    /* regular cycles; or an autocorrelation so strong that cycle lengths blurred by sampling (a
     * busy phase shorter than the reading interval is sometimes missed) do not matter */
    return (c->acf_peak > 0 && c->acf_peak >= need && c->cv <= cv_max) || c->acf_peak >= cfg->input_stall.acf_strong;
}

void diag_cycles_analyze(const uint64_t *t, const float *u, int n, uint64_t step_us, const diag_config *cfg,
                         diag_cycles *out)
{
    memset(out, 0, sizeof *out);
    if (n < MIN_SAMPLES || step_us == 0)
        return;
    float *scratch = malloc((size_t)n * 2 * sizeof *scratch);
    if (!scratch)
        return;
    out->valid = 1;
    memcpy(scratch, u, (size_t)n * sizeof *scratch);
    static const double ps[3] = {5, 50, 95};
    double q[3];
    dstat_percentiles(scratch, n, ps, q, 3);
    out->p5 = q[0];
    out->p50 = q[1];
    out->p95 = q[2];
    if (out->p95 - out->p5 < MIN_SWING) {
        free(scratch);
        return;
    }
    count_cycles(t, u, n, out, scratch);
    free(scratch);
    grid g;
    if (grid_make(t, u, n, step_us, &g) != 0)
        return;
    double p_acf, peak;
    acf_period(&g, cfg, &p_acf, &peak);
    out->acf_peak = peak;
    double mean;
    dstat_mean_sd(u, n, &mean, NULL);
    double span = out->busy_level - out->idle_level;
    out->duty = span > 0 ? (mean - out->idle_level) / span : 1;
    if (out->duty < 0)
        out->duty = 0;
    if (out->duty > 1)
        out->duty = 1;
    double p_cnt = out->period_s;
    double cand[5] = {p_acf, p_acf / 2, p_acf / 3, p_cnt, p_cnt / 2};
    double p_spec = spectral_period(&g, cand, 5, cfg->input_stall.max_period_s);
    free(g.x);
    if (p_spec > 0)
        out->period_s = p_spec;
    else if (p_acf > 0)
        out->period_s = p_acf;
    /* Cycles whose lengths vary (waits with a long tail) smear the spectral line, whose highest
     * point then wanders around the mean period; the mean distance between transitions is that
     * period, unless busy phases were missed (then it is a multiple of the spectral one, which is
     * kept). Irregular: the cycle lengths vary well beyond what reading times alone make of them (a
     * transition is seen up to one step late: an sd of step/sqrt(6) per cycle). */
    double step_s = (double)step_us / 1e6;
    int irregular = p_cnt > 0 && out->cv > IRREGULAR_CV && out->cv > 2 * (step_s / sqrt(6)) / p_cnt;
    if (irregular && fabs(out->period_s - p_cnt) <= AGREE * p_cnt)
        out->period_s = p_cnt;
    out->gap_s = (1 - out->duty) * out->period_s;
    out->periodic = is_periodic(out, cfg);
}
