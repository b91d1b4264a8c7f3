/* ring.c - fixed-size per-GPU ring of recent samples, stored compactly (see ring.h).
 *
 * Memory: an entry keeps the time, the status, the presence bits and only the dynamic
 * metrics (MF_STATIC ones are kept once per GPU and merged back on read). Counters are
 * kept as doubles (they grow large and rates need their precision), everything else as
 * floats. For 8 GPUs x 900 samples this is about 2.5 MB instead of 6 MB of gpu_sample.
 * The latest sample of each GPU is also kept whole, so ring_latest() is exact. */
#include "ring.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    uint64_t t_us;
    uint32_t status;
    metric_set present;
    /* followed by the packed values */
} entry_head;

typedef struct {
    unsigned char *entries;     /* capacity * entry_size bytes */
    int head;                   /* index of the next write */
    int count;
    gpu_sample latest;          /* exact copy of the newest sample */
    gpu_sample statics;         /* MF_STATIC values, from the newest sample that had them */
} gpu_ring;

struct ring {
    pthread_mutex_t lock;
    int gpus, capacity;
    size_t entry_size;
    int16_t offset[M_COUNT];    /* byte offset of a metric's value in an entry, -1 = not stored */
    unsigned char is_double[M_COUNT];
    gpu_ring *g;
};

static void layout(ring *r)
{
    size_t off = sizeof(entry_head);
    /* Doubles first so they stay 8-byte aligned, then floats. */
    for (int pass = 0; pass < 2; pass++) {
        for (int id = M_STR_END; id < M_COUNT; id++) {
            const metric_def *d = catalog_get((metric_id)id);
            if (d->flags & MF_STATIC)
                continue;
            int dbl = d->kind == MK_COUNTER || d->kind == MK_BITMASK;
            if (dbl != (pass == 0))
                continue;
            r->offset[id] = (int16_t)off;
            r->is_double[id] = (unsigned char)dbl;
            off += dbl ? sizeof(double) : sizeof(float);
        }
    }
    r->entry_size = (off + 7) & ~(size_t)7;
}

ring *ring_new(int gpus, int capacity)
{
    if (gpus < 0 || capacity < 1)
        return NULL;
    ring *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    for (int i = 0; i < M_COUNT; i++)
        r->offset[i] = -1;
    layout(r);
    r->gpus = gpus;
    r->capacity = capacity;
    r->g = calloc((size_t)(gpus ? gpus : 1), sizeof *r->g);
    if (!r->g) {
        free(r);
        return NULL;
    }
    for (int i = 0; i < gpus; i++) {
        r->g[i].entries = malloc((size_t)capacity * r->entry_size);
        if (!r->g[i].entries) {
            ring_free(r);
            return NULL;
        }
        /* Touch every page now: memory use is flat from the start (no growth as the ring fills). */
        memset(r->g[i].entries, 0xff, (size_t)capacity * r->entry_size);
    }
    pthread_mutex_init(&r->lock, NULL);
    return r;
}

void ring_free(ring *r)
{
    if (!r)
        return;
    for (int i = 0; i < r->gpus; i++)
        free(r->g[i].entries);
    free(r->g);
    pthread_mutex_destroy(&r->lock);
    free(r);
}

static unsigned char *entry_at(const ring *r, const gpu_ring *g, int i)
{
    return g->entries + (size_t)i * r->entry_size;
}

static void pack(const ring *r, const gpu_sample *s, unsigned char *e)
{
    entry_head h = {.t_us = s->t_us, .status = (uint32_t)s->status, .present = s->present};
    memcpy(e, &h, sizeof h);
    for (int id = M_STR_END; id < M_COUNT; id++) {
        if (r->offset[id] < 0)
            continue;
        double v = sample_has(s, (metric_id)id) ? s->v[id] : 0;
        if (r->is_double[id]) {
            memcpy(e + r->offset[id], &v, sizeof v);
        } else {
            float f = (float)v;
            memcpy(e + r->offset[id], &f, sizeof f);
        }
    }
}

static void unpack(const ring *r, const gpu_ring *g, const unsigned char *e, gpu_sample *out)
{
    entry_head h;
    memcpy(&h, e, sizeof h);
    memset(out, 0, sizeof *out);
    out->t_us = h.t_us;
    out->status = (gpu_status)h.status;
    out->present = h.present;
    for (int id = M_STR_END; id < M_COUNT; id++) {
        if (!mset_has(&h.present, (metric_id)id))
            continue;
        if (r->offset[id] < 0) {
            if (sample_has(&g->statics, (metric_id)id))
                out->v[id] = g->statics.v[id];
            else
                mset_del(&out->present, (metric_id)id);
        } else if (r->is_double[id]) {
            memcpy(&out->v[id], e + r->offset[id], sizeof(double));
        } else {
            float f;
            memcpy(&f, e + r->offset[id], sizeof f);
            out->v[id] = f;
        }
    }
}

void ring_push(ring *r, int gpu, const gpu_sample *s)
{
    if (!r || gpu < 0 || gpu >= r->gpus)
        return;
    pthread_mutex_lock(&r->lock);
    gpu_ring *g = &r->g[gpu];
    pack(r, s, entry_at(r, g, g->head));
    g->head = (g->head + 1) % r->capacity;
    if (g->count < r->capacity)
        g->count++;
    g->latest = *s;
    for (int id = M_STR_END; id < M_COUNT; id++)
        if (r->offset[id] < 0 && sample_has(s, (metric_id)id))
            sample_set(&g->statics, (metric_id)id, s->v[id]);
    pthread_mutex_unlock(&r->lock);
}

int ring_latest(ring *r, int gpu, gpu_sample *out)
{
    if (!r || gpu < 0 || gpu >= r->gpus)
        return 0;
    pthread_mutex_lock(&r->lock);
    int have = r->g[gpu].count > 0;
    if (have)
        *out = r->g[gpu].latest;
    pthread_mutex_unlock(&r->lock);
    return have;
}

/* Index (0 = oldest) of the first entry with t_us >= since_us; binary search, times only grow. */
static int first_since(const ring *r, const gpu_ring *g, uint64_t since_us)
{
    int oldest = (g->head - g->count + r->capacity) % r->capacity;
    int lo = 0, hi = g->count;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        entry_head h;
        memcpy(&h, entry_at(r, g, (oldest + mid) % r->capacity), sizeof h);
        if (h.t_us < since_us)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void ring_each(ring *r, int gpu, uint64_t since_us, void (*fn)(const gpu_sample *s, void *ctx), void *ctx)
{
    if (!r || gpu < 0 || gpu >= r->gpus)
        return;
    gpu_sample tmp;
    pthread_mutex_lock(&r->lock);
    const gpu_ring *g = &r->g[gpu];
    int oldest = (g->head - g->count + r->capacity) % r->capacity;
    for (int i = first_since(r, g, since_us); i < g->count; i++) {
        unpack(r, g, entry_at(r, g, (oldest + i) % r->capacity), &tmp);
        fn(&tmp, ctx);
    }
    pthread_mutex_unlock(&r->lock);
}

typedef struct {
    gpu_sample *out;
    int n, max;
} range_ctx;

static void range_add(const gpu_sample *s, void *ctx)
{
    range_ctx *c = ctx;
    if (c->n < c->max)
        c->out[c->n++] = *s;
}

int ring_range(ring *r, int gpu, uint64_t since_us, gpu_sample *out, int max)
{
    if (!r || gpu < 0 || gpu >= r->gpus || max <= 0)
        return 0;
    range_ctx c = {out, 0, max};
    ring_each(r, gpu, since_us, range_add, &c);
    return c.n;
}

int ring_capacity(const ring *r) { return r ? r->capacity : 0; }
int ring_gpus(const ring *r) { return r ? r->gpus : 0; }
