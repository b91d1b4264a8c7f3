/* model.c - the model's life cycle, the staleness rule, the findings' hand-over, and the chart
 * history: per GPU a ring of sample times and five float series (utilization, memory %, power, core
 * and HBM temperature), so charts and sparklines read plain arrays instead of decoding full samples
 * at every redraw. */
#include "top_model.h"
#include "catalog.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int top_model_init(top_model *m)
{
    memset(m, 0, sizeof *m);
    if (pthread_mutex_init(&m->lock, NULL) != 0)
        return -1;
    m->procs = calloc(TOP_MAX_PROCS, sizeof *m->procs);
    if (!m->procs)
        return -1;
    if (gethostname(m->host, sizeof m->host - 1) != 0)
        strcpy(m->host, "localhost");
    return 0;
}

void top_model_free(top_model *m)
{
    history_free(m->hist);
    diag_report_free(&m->find.r);
    free(m->procs);
    pthread_mutex_destroy(&m->lock);
    memset(m, 0, sizeof *m);
}

int top_gpu_stale(const top_gpu *g, uint64_t now_mono_us, double interval_s)
{
    if (!g->have_sample || g->lost)
        return 0;
    double limit_us = interval_s * 1e6 * TOP_STALE_INTERVALS;
    if (limit_us < 3e6)
        limit_us = 3e6;
    return now_mono_us > g->fresh_us && (double)(now_mono_us - g->fresh_us) > limit_us;
}

void top_findings_publish(top_model *m, diag_report *r, find_state st, const char *why, uint64_t at_us)
{
    pthread_mutex_lock(&m->lock);
    diag_report old = m->find.r;
    m->find.r = *r;
    m->find.state = st;
    m->find.at_us = at_us;
    snprintf(m->find.why, sizeof m->find.why, "%s", why ? why : "");
    m->find.seq++;
    m->seq++;
    pthread_mutex_unlock(&m->lock);
    *r = old; /* the previous findings, freed by the caller outside the lock */
    diag_report_clear(r);
}

/* ---- history ---- */

typedef struct hist_gpu {
    uint64_t *t;         /* sample times, a ring of cap */
    float *v[SER_COUNT]; /* values, same slots */
    int head, n;         /* next slot, samples held */
} hist_gpu;

struct top_history {
    int ngpus, cap;
    hist_gpu *g;
};

top_history *history_new(int ngpus, int capacity)
{
    top_history *h = calloc(1, sizeof *h);
    if (!h || ngpus < 0 || capacity < 1) {
        free(h);
        return NULL;
    }
    h->ngpus = ngpus;
    h->cap = capacity;
    h->g = calloc((size_t)(ngpus ? ngpus : 1), sizeof *h->g);
    for (int i = 0; h->g && i < ngpus; i++) {
        h->g[i].t = calloc((size_t)capacity, sizeof *h->g[i].t);
        int ok = h->g[i].t != NULL;
        for (int k = 0; k < SER_COUNT; k++)
            ok = ok && (h->g[i].v[k] = calloc((size_t)capacity, sizeof(float))) != NULL;
        if (!ok) {
            history_free(h);
            return NULL;
        }
    }
    if (!h->g) {
        free(h);
        return NULL;
    }
    return h;
}

void history_free(top_history *h)
{
    if (!h)
        return;
    for (int i = 0; h->g && i < h->ngpus; i++) {
        free(h->g[i].t);
        for (int k = 0; k < SER_COUNT; k++)
            free(h->g[i].v[k]);
    }
    free(h->g);
    free(h);
}

void history_push(top_history *h, int gpu, const gpu_sample *s)
{
    if (!h || gpu < 0 || gpu >= h->ngpus)
        return;
    hist_gpu *g = &h->g[gpu];
    if (g->n && s->t_us < g->t[(g->head + h->cap - 1) % h->cap])
        return; /* out of order: the charts only go forward */
    g->t[g->head] = s->t_us;
    for (int k = 0; k < SER_COUNT; k++) {
        double v;
        g->v[k][g->head] = series_value(s, (series_kind)k, &v) ? (float)v : NAN;
    }
    g->head = (g->head + 1) % h->cap;
    if (g->n < h->cap)
        g->n++;
}

void series_fill(const top_history *h, int gpu, series_kind k, uint64_t end_us, double bucket_s, int buckets,
                 double *out)
{
    if (buckets <= 0)
        return;
    for (int i = 0; i < buckets; i++)
        out[i] = NAN;
    if (!h || gpu < 0 || gpu >= h->ngpus || bucket_s <= 0)
        return;
    const hist_gpu *g = &h->g[gpu];
    double bucket_us = bucket_s * 1e6, span_us = bucket_us * buckets;
    uint64_t start = end_us > (uint64_t)span_us ? end_us - (uint64_t)span_us : 0;
    int cur = -1, cnt = 0;
    double sum = 0;
    /* Samples are in time order: walk back from the newest to the window's start, then forward. */
    int first = g->n;
    while (first > 0 && g->t[(g->head + h->cap - (g->n - first + 1)) % h->cap] >= start)
        first--;
    for (int i = first; i < g->n; i++) {
        int slot = (g->head + h->cap - (g->n - i)) % h->cap;
        float v = g->v[k][slot];
        if (isnan(v) || g->t[slot] < start)
            continue;
        /* a sample newer than end_us (another host's clock, up to the client's window) counts in the
         * last bucket; the index is bounded before it becomes an int */
        double at = (double)(g->t[slot] - start) / bucket_us;
        int b = at >= (double)buckets ? buckets - 1 : (int)at;
        if (b != cur) {
            if (cnt)
                out[cur] = sum / cnt;
            cur = b;
            sum = 0;
            cnt = 0;
        }
        sum += v;
        cnt++;
    }
    if (cnt)
        out[cur] = sum / cnt;
}

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
