/* diag_stats.h - the statistics the detectors share: percentiles, mean and deviation, least-squares
 * line with R², resampling onto a regular grid, autocorrelation and its first peak (period),
 * runs of a condition over time, and the Jensen-Shannon distance of histograms. */
#ifndef GPUWATCH_DIAG_STATS_H
#define GPUWATCH_DIAG_STATS_H

#include <stdint.h>

/* p-th percentile (0..100), linear between order statistics. Sorts v in place. NAN when n == 0. */
double dstat_percentile(float *v, int n, double p);
/* Several percentiles at once (one sort): out[i] for ps[i]. */
void dstat_percentiles(float *v, int n, const double *ps, double *out, int k);

void dstat_mean_sd(const float *v, int n, double *mean, double *sd);

typedef struct dstat_fit {
    double slope;     /* y units per x unit */
    double intercept; /* y at x = 0 */
    double r2;        /* 1 - residual / total variance (0 when y is constant) */
} dstat_fit;
/* Least squares y = intercept + slope * x. 0 on success, -1 with fewer than 3 points or constant x. */
int dstat_linfit(const double *x, const float *y, int n, dstat_fit *out);

/* Median spacing of increasing times (0 with fewer than 2). Uses scratch (n - 1 floats). */
uint64_t dstat_median_step(const uint64_t *t, int n, float *scratch);

/* Resamples (t, v) onto m points t0 + i * step, holding each value until the next reading.
 * Returns the number of points written. */
int dstat_resample(const uint64_t *t, const float *v, int n, uint64_t t0, uint64_t step, float *out, int m);

/* Normalised autocorrelation acf[0..max_lag] of x (acf[0] = 1; all 0 when x is constant). */
void dstat_autocorr(const float *x, int n, int max_lag, double *acf);

/* The period in an autocorrelation: after it has gone below 0, the first local maximum of at
 * least half the highest one (so a multiple of the period is not taken). Its lag (refined between
 * lags) and height. 0 when found, -1 otherwise. */
int dstat_acf_peak(const double *acf, int max_lag, double *lag, double *height);

/* A stretch of time where a condition holds. */
typedef struct dstat_run {
    uint64_t from_us, to_us; /* first sample, and the end of the last sample's interval */
    int n;                   /* samples in it */
} dstat_run;

/* Runs of mask[i] over samples at t[i]; a sample stands for the time until the next one (at most
 * step_us). Runs separated by less than merge_us are joined. Writes at most max runs; returns
 * how many there are (may exceed max). */
int dstat_runs(const uint64_t *t, const unsigned char *mask, int n, uint64_t step_us, uint64_t merge_us, dstat_run *out,
               int max);

/* A histogram of v over [lo, hi] in `bins` bins with linear (two-bin) assignment, normalised. */
void dstat_hist(const float *v, int n, double lo, double hi, int bins, double *h);
/* Jensen-Shannon distance (square root of the divergence, base 2): 0 same, 1 disjoint. */
double dstat_js_distance(const double *p, const double *q, int bins);

#endif
