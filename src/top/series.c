/* series.c - bucketed time series from the history ring (see top_series.h). */
#include "top_series.h"
#include "catalog.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

int series_value(const gpu_sample *s, series_kind k, double *v)
{
    double used, total;
    switch (k) {
    case SER_UTIL: return sample_get(s, M_UTIL_GPU, v);
    case SER_POWER: return sample_get(s, M_POWER_DRAW, v);
    case SER_TEMP: return sample_get(s, M_TEMP_GPU, v);
    case SER_HBM: return sample_get(s, M_TEMP_MEMORY, v);
    case SER_MEM_PCT:
        if (!sample_get(s, M_MEM_USED, &used) || !sample_get(s, M_MEM_TOTAL, &total) || total <= 0)
            return 0;
        *v = 100.0 * used / total;
        return 1;
    default: return 0;
    }
}

const char *series_label(series_kind k)
{
    static const char *labels[SER_COUNT] = {"util", "mem", "power", "temp", "hbm"};
    return labels[k];
}

const char *series_unit(series_kind k)
{
    switch (k) {
    case SER_UTIL: return catalog_get(M_UTIL_GPU)->unit;
    case SER_MEM_PCT: return "%";
    case SER_POWER: return catalog_get(M_POWER_DRAW)->unit;
    default: return "C"; /* the catalog's temperatures are in degrees C */
    }
}

typedef struct fill_ctx {
    series_kind k;
    uint64_t start_us;
    double bucket_us;
    int buckets;
    double *sum;
    int *n;
} fill_ctx;

static void add_sample(const gpu_sample *s, void *vctx)
{
    fill_ctx *c = vctx;
    double v;
    if (s->status != 0 || !series_value(s, c->k, &v) || s->t_us < c->start_us)
        return;
    int b = (int)((double)(s->t_us - c->start_us) / c->bucket_us);
    if (b >= c->buckets)
        b = c->buckets - 1;
    c->sum[b] += v;
    c->n[b]++;
}

void series_fill(ring *r, int gpu, series_kind k, uint64_t end_us, double bucket_s, int buckets, double *out)
{
    if (buckets <= 0)
        return;
    double span_us = bucket_s * 1e6 * buckets;
    uint64_t start = end_us > (uint64_t)span_us ? end_us - (uint64_t)span_us : 0;
    int *n = calloc((size_t)buckets, sizeof *n);
    if (!n) {
        for (int i = 0; i < buckets; i++)
            out[i] = NAN;
        return;
    }
    for (int i = 0; i < buckets; i++)
        out[i] = 0;
    fill_ctx c = {k, start, bucket_s * 1e6, buckets, out, n};
    if (r)
        ring_each(r, gpu, start, add_sample, &c);
    for (int i = 0; i < buckets; i++)
        out[i] = n[i] ? out[i] / n[i] : NAN;
    free(n);
}
