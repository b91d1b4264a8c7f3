/* diag_stats.c - shared statistics of the diagnosis detectors (see diag_stats.h). */
#include "diag_stats.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static double sorted_percentile(const float *v, int n, double p)
{
    if (n <= 0)
        return NAN;
    if (p <= 0)
        return v[0];
    if (p >= 100)
        return v[n - 1];
    double pos = p / 100.0 * (n - 1);
    int i = (int)pos;
    double frac = pos - i;
    if (i + 1 >= n)
        return v[n - 1];
    return v[i] + (v[i + 1] - v[i]) * frac;
}

double dstat_percentile(float *v, int n, double p)
{
    if (n <= 0)
        return NAN;
    qsort(v, (size_t)n, sizeof *v, cmp_float);
    return sorted_percentile(v, n, p);
}

void dstat_percentiles(float *v, int n, const double *ps, double *out, int k)
{
    if (n > 0)
        qsort(v, (size_t)n, sizeof *v, cmp_float);
    for (int i = 0; i < k; i++)
        out[i] = sorted_percentile(v, n, ps[i]);
}

void dstat_mean_sd(const float *v, int n, double *mean, double *sd)
{
    double s = 0, ss = 0;
    for (int i = 0; i < n; i++)
        s += v[i];
    double m = n > 0 ? s / n : NAN;
    for (int i = 0; i < n; i++)
        ss += (v[i] - m) * (v[i] - m);
    if (mean)
        *mean = m;
    if (sd)
        *sd = n > 1 ? sqrt(ss / (n - 1)) : 0;
}

int dstat_linfit(const double *x, const float *y, int n, dstat_fit *out)
{
    if (n < 3)
        return -1;
    double mx = 0, my = 0;
    for (int i = 0; i < n; i++) {
        mx += x[i];
        my += y[i];
    }
    mx /= n;
    my /= n;
    double sxx = 0, sxy = 0, syy = 0;
    for (int i = 0; i < n; i++) {
        double dx = x[i] - mx, dy = y[i] - my;
        sxx += dx * dx;
        sxy += dx * dy;
        syy += dy * dy;
    }
    if (sxx <= 0)
        return -1;
    out->slope = sxy / sxx;
    out->intercept = my - out->slope * mx;
    out->r2 = syy > 0 ? (sxy * sxy) / (sxx * syy) : 0;
    return 0;
}

uint64_t dstat_median_step(const uint64_t *t, int n, float *scratch)
{
    if (n < 2)
        return 0;
    int k = 0;
    for (int i = 1; i < n; i++)
        if (t[i] > t[i - 1])
            scratch[k++] = (float)(t[i] - t[i - 1]);
    if (k == 0)
        return 0;
    return (uint64_t)dstat_percentile(scratch, k, 50);
}

int dstat_resample(const uint64_t *t, const float *v, int n, uint64_t t0, uint64_t step, float *out, int m)
{
    if (n <= 0 || step == 0)
        return 0;
    int j = 0;
    for (int i = 0; i < m; i++) {
        uint64_t at = t0 + (uint64_t)i * step;
        while (j + 1 < n && t[j + 1] <= at)
            j++;
        out[i] = v[j];
    }
    return m;
}

void dstat_autocorr(const float *x, int n, int max_lag, double *acf)
{
    double mean = 0;
    for (int i = 0; i < n; i++)
        mean += x[i];
    mean = n > 0 ? mean / n : 0;
    double var = 0;
    for (int i = 0; i < n; i++)
        var += (x[i] - mean) * (x[i] - mean);
    for (int lag = 0; lag <= max_lag; lag++) {
        if (var <= 0 || lag >= n) {
            acf[lag] = lag == 0 && var > 0 ? 1 : 0;
            continue;
        }
        double c = 0;
        for (int i = 0; i + lag < n; i++)
            c += (x[i] - mean) * (x[i + lag] - mean);
        /* the unbiased form: each lag is normalised by how many pairs it has */
        acf[lag] = (c / (n - lag)) / (var / n);
    }
}

int dstat_acf_peak(const double *acf, int max_lag, double *lag, double *height)
{
    int k = 1;
    while (k <= max_lag && acf[k] >= 0)
        k++;
    if (k + 2 > max_lag)
        return -1;
    double top = acf[k];
    for (int i = k; i <= max_lag; i++)
        if (acf[i] > top)
            top = acf[i];
    if (top <= 0)
        return -1;
    /* the first local maximum of at least half the highest one: the period, not a multiple of it
     * (on a sampled series the peak at the period can fall between lags and look lower) */
    int best = -1;
    for (int i = k + 1; i < max_lag && best < 0; i++)
        if (acf[i] >= acf[i - 1] && acf[i] >= acf[i + 1] && acf[i] >= 0.5 * top)
            best = i;
    if (best < 0)
        return -1;
    double y0 = acf[best - 1], y1 = acf[best], y2 = acf[best + 1];
    double den = y0 - 2 * y1 + y2;
    double shift = den < 0 ? 0.5 * (y0 - y2) / den : 0;
    if (shift > 0.5)
        shift = 0.5;
    if (shift < -0.5)
        shift = -0.5;
    *lag = best + shift;
    *height = y1 > 1 ? 1 : y1;
    return 0;
}

int dstat_runs(const uint64_t *t, const unsigned char *mask, int n, uint64_t step_us, uint64_t merge_us, dstat_run *out,
               int max)
{
    int count = 0;
    dstat_run cur = {0, 0, 0};
    int open = 0;
    for (int i = 0; i < n; i++) {
        if (!mask[i])
            continue;
        uint64_t end = i + 1 < n && t[i + 1] - t[i] <= step_us ? t[i + 1] : t[i] + step_us;
        if (open && t[i] <= cur.to_us + merge_us) {
            cur.to_us = end;
            cur.n++;
            continue;
        }
        if (open) {
            if (count < max)
                out[count] = cur;
            count++;
        }
        cur = (dstat_run){t[i], end, 1};
        open = 1;
    }
    if (open) {
        if (count < max)
            out[count] = cur;
        count++;
    }
    return count;
}

void dstat_hist(const float *v, int n, double lo, double hi, int bins, double *h)
{
    memset(h, 0, (size_t)bins * sizeof *h);
    if (n <= 0 || hi <= lo || bins < 1)
        return;
    double w = (hi - lo) / bins;
    for (int i = 0; i < n; i++) {
        /* bin centres at lo + (k + 0.5) w; a value between two centres is split between them */
        double pos = (v[i] - lo) / w - 0.5;
        if (pos <= 0) {
            h[0] += 1;
            continue;
        }
        if (pos >= bins - 1) {
            h[bins - 1] += 1;
            continue;
        }
        int k = (int)pos;
        double frac = pos - k;
        h[k] += 1 - frac;
        h[k + 1] += frac;
    }
    for (int k = 0; k < bins; k++)
        h[k] /= n;
}

double dstat_js_distance(const double *p, const double *q, int bins)
{
    double js = 0;
    for (int k = 0; k < bins; k++) {
        double m = 0.5 * (p[k] + q[k]);
        if (p[k] > 0)
            js += 0.5 * p[k] * log2(p[k] / m);
        if (q[k] > 0)
            js += 0.5 * q[k] * log2(q[k] / m);
    }
    if (js < 0)
        js = 0;
    return sqrt(js > 1 ? 1 : js);
}
