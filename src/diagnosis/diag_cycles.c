/* diag_cycles.c - periodic busy/idle analysis of a utilization series (see diag_cycles.h).
 * Periodicity is judged on the autocorrelation of the series resampled on a regular grid and on
 * the regularity of the busy-to-idle transitions; the period is then the strongest spectral line
 * near those two estimates (and their fractions), computed on the readings' own times. */
#include "diagnosis/diag_cycles.h"
#include "diagnosis/diag_stats.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MIN_SAMPLES 20
#define MIN_SWING 20.0 /* percentage points between p5 and p95 to speak of busy and idle */
#define MAX_GRID 20000 /* autocorrelation grid points */
#define AGREE 0.25     /* both period estimates within 25 %: use the transition one */

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

/* The period from the autocorrelation of the series on a regular grid. */
static void acf_period(const uint64_t *t, const float *u, int n, uint64_t step, const diag_config *cfg, double *period,
                       double *peak)
{
    *period = 0;
    *peak = 0;
    uint64_t span = t[n - 1] - t[0];
    while (span / step + 1 > MAX_GRID)
        step *= 2;
    int m = (int)(span / step) + 1;
    int max_lag = (int)(cfg->input_stall.max_period_s * 1.5e6 / (double)step);
    if (max_lag > m / 2)
        max_lag = m / 2;
    if (max_lag < 4)
        return;
    float *grid = malloc((size_t)m * sizeof *grid);
    double *acf = malloc((size_t)(max_lag + 1) * sizeof *acf);
    if (grid && acf) {
        dstat_resample(t, u, n, t[0], step, grid, m);
        dstat_autocorr(grid, m, max_lag, acf);
        double lag, height;
        if (dstat_acf_peak(acf, max_lag, &lag, &height) == 0) {
            *period = lag * (double)step / 1e6;
            *peak = height;
        }
    }
    free(grid);
    free(acf);
}

/* The strongest spectral line within 20 % of each candidate period, refined to 0.05 %: the
 * autocorrelation and transition estimates can be a multiple of the period (a sampled series may
 * repeat exactly only after two or three periods; missed busy phases lengthen cycles), but the
 * spectrum of a periodic signal peaks at its own frequency. 0 when no candidate is usable. */
static double spectral_period(const uint64_t *t, const float *u, int n, uint64_t step, const double *cand, int n_cand,
                              double max_period)
{
    double *ts = malloc((size_t)n * sizeof *ts);
    float *x = malloc((size_t)n * sizeof *x);
    double mean = 0, best_f = 0, best_p = -1;
    if (!ts || !x)
        goto out;
    for (int i = 0; i < n; i++)
        mean += u[i];
    mean /= n;
    for (int i = 0; i < n; i++) {
        ts[i] = (double)(t[i] - t[0]) / 1e6;
        x[i] = (float)(u[i] - mean);
    }
    double f_hi = 1e6 / (2.0 * (double)step), f_lo = 1 / (1.5 * max_period);
    for (int c = 0; c < n_cand; c++)
        for (int k = -20; k <= 20 && cand[c] > 0; k++) {
            double f = (1 + 0.01 * k) / cand[c];
            if (f < f_lo || f > f_hi)
                continue;
            double p = dstat_power_at(ts, x, n, f);
            if (p > best_p) {
                best_p = p;
                best_f = f;
            }
        }
    double f0 = best_f;
    for (int k = -20; k <= 20 && f0 > 0; k++) {
        double f = f0 * (1 + 0.0005 * k);
        double p = f <= f_hi ? dstat_power_at(ts, x, n, f) : -1;
        if (p > best_p) {
            best_p = p;
            best_f = f;
        }
    }
out:
    free(ts);
    free(x);
    return best_f > 0 ? 1 / best_f : 0;
}

static int is_periodic(const diag_cycles *c, const diag_config *cfg)
{
    if (c->cycles < cfg->input_stall.min_cycles || c->period_s <= 0 || c->period_s > cfg->input_stall.max_period_s)
        return 0;
    double acf_min = cfg->input_stall.acf_min, cv_max = cfg->input_stall.cv_max;
    if (c->cv < 0)
        return 0;
    /* regular cycles; or an autocorrelation so strong that cycle lengths blurred by sampling (a
     * busy phase shorter than the reading interval is sometimes missed) do not matter */
    return (c->acf_peak >= acf_min && c->cv <= cv_max) || c->acf_peak >= cfg->input_stall.acf_strong;
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
    double p_acf, peak;
    acf_period(t, u, n, step_us, cfg, &p_acf, &peak);
    out->acf_peak = peak;
    double p_cnt = out->period_s;
    double cand[5] = {p_acf, p_acf / 2, p_acf / 3, p_cnt, p_cnt / 2};
    double p_spec = spectral_period(t, u, n, step_us, cand, 5, cfg->input_stall.max_period_s);
    if (p_spec > 0)
        out->period_s = p_spec;
    else if (p_acf > 0)
        out->period_s = p_acf;
    double mean;
    dstat_mean_sd(u, n, &mean, NULL);
    double span = out->busy_level - out->idle_level;
    out->duty = span > 0 ? (mean - out->idle_level) / span : 1;
    if (out->duty < 0)
        out->duty = 0;
    if (out->duty > 1)
        out->duty = 1;
    out->gap_s = (1 - out->duty) * out->period_s;
    out->periodic = is_periodic(out, cfg);
}
