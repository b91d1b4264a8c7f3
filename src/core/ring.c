/* ring.c - per-GPU ring of recent samples, stored exactly but compactly (see ring.h).
 *
 * Memory: a GPU's samples are kept in blocks of RING_BLOCK, each sample delta-coded against the
 * previous one (sample_codec.c: unchanged values cost nothing, changed ones their XOR's significant
 * bytes), each block starting from an empty state so that it decodes on its own and the oldest can
 * be dropped whole. The newest block grows as samples arrive and is shrunk to size when full. Memory
 * grows as the ring fills (about 60-100 bytes a sample for a busy GPU, instead of 744 for a
 * gpu_sample). The latest sample of each GPU is also kept whole, so ring_latest() costs a copy. */
#include "ring.h"
#include "sample_codec.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define RING_BLOCK 64

typedef struct {
    unsigned char *data;
    size_t len, cap;
    uint64_t t_last; /* time of its newest sample */
    int n;           /* samples in it */
} block;

typedef struct {
    block *blocks; /* circular: nblocks slots, `used` of them from `first` */
    int first, used;
    int count;         /* samples held in the blocks (may exceed capacity by < RING_BLOCK) */
    gpu_sample state;  /* coding state after the newest sample */
    gpu_sample latest; /* exact copy of the newest sample */
} gpu_ring;

struct ring {
    pthread_mutex_t lock;
    int gpus, capacity, nblocks;
    gpu_ring *g;
};

ring *ring_new(int gpus, int capacity)
{
    if (gpus < 0 || capacity < 1)
        return NULL;
    ring *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->gpus = gpus;
    r->capacity = capacity;
    r->nblocks = (capacity + RING_BLOCK - 1) / RING_BLOCK + 1;
    r->g = calloc((size_t)(gpus ? gpus : 1), sizeof *r->g);
    if (!r->g) {
        free(r);
        return NULL;
    }
    for (int i = 0; i < gpus; i++) {
        r->g[i].blocks = calloc((size_t)r->nblocks, sizeof *r->g[i].blocks);
        if (!r->g[i].blocks) {
            ring_free(r);
            return NULL;
        }
    }
    pthread_mutex_init(&r->lock, NULL);
    return r;
}

void ring_free(ring *r)
{
    if (!r)
        return;
    for (int i = 0; i < r->gpus; i++) {
        for (int b = 0; r->g[i].blocks && b < r->nblocks; b++)
            free(r->g[i].blocks[b].data);
        free(r->g[i].blocks);
    }
    free(r->g);
    pthread_mutex_destroy(&r->lock);
    free(r);
}

static block *block_at(const ring *r, const gpu_ring *g, int i)
{
    return &g->blocks[(g->first + i) % r->nblocks];
}

static void drop_oldest(const ring *r, gpu_ring *g)
{
    block *b = block_at(r, g, 0);
    g->count -= b->n;
    free(b->data);
    memset(b, 0, sizeof *b);
    g->first = (g->first + 1) % r->nblocks;
    g->used--;
}

/* The block the next sample goes into: the newest, or a new one when that is full. */
static block *open_block(const ring *r, gpu_ring *g)
{
    if (g->used) {
        block *b = block_at(r, g, g->used - 1);
        if (b->n < RING_BLOCK)
            return b;
        unsigned char *fit = realloc(b->data, b->len); /* full: shrink to size */
        if (fit) {
            b->data = fit;
            b->cap = b->len;
        }
    }
    if (g->used == r->nblocks)
        drop_oldest(r, g);
    block *b = block_at(r, g, g->used++);
    scodec_reset(&g->state);
    return b;
}

void ring_push(ring *r, int gpu, const gpu_sample *s)
{
    if (!r || gpu < 0 || gpu >= r->gpus)
        return;
    unsigned char code[SCODEC_MAX];
    pthread_mutex_lock(&r->lock);
    gpu_ring *g = &r->g[gpu];
    block *b = open_block(r, g);
    gpu_sample state = g->state;
    size_t n = scodec_put(code, &state, s);
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 1024;
        while (cap < b->len + n)
            cap *= 2;
        unsigned char *d = realloc(b->data, cap);
        if (!d) { /* out of memory: this sample is not kept */
            pthread_mutex_unlock(&r->lock);
            return;
        }
        b->data = d;
        b->cap = cap;
    }
    memcpy(b->data + b->len, code, n);
    b->len += n;
    b->n++;
    b->t_last = s->t_us;
    g->state = state;
    g->count++;
    /* Drop the oldest block once the others hold the whole capacity. */
    while (g->used > 1 && g->count - block_at(r, g, 0)->n >= r->capacity)
        drop_oldest(r, g);
    g->latest = *s;
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

void ring_each(ring *r, int gpu, uint64_t since_us, void (*fn)(const gpu_sample *s, void *ctx), void *ctx)
{
    if (!r || gpu < 0 || gpu >= r->gpus)
        return;
    gpu_sample state, tmp;
    pthread_mutex_lock(&r->lock);
    const gpu_ring *g = &r->g[gpu];
    int skip = g->count > r->capacity ? g->count - r->capacity : 0; /* beyond capacity, in the oldest block */
    for (int i = 0; i < g->used; i++) {
        const block *b = block_at(r, g, i);
        if (b->t_last < since_us) {
            skip -= b->n;
            continue;
        }
        scodec_reset(&state);
        size_t pos = 0;
        for (int k = 0; k < b->n; k++) {
            size_t used = scodec_get(b->data + pos, b->len - pos, &state, &tmp);
            if (!used)
                break;
            pos += used;
            if (k >= skip && tmp.t_us >= since_us)
                fn(&tmp, ctx);
        }
        skip -= b->n;
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

size_t ring_bytes(ring *r)
{
    if (!r)
        return 0;
    pthread_mutex_lock(&r->lock);
    size_t n = sizeof *r + (size_t)(r->gpus ? r->gpus : 1) * sizeof *r->g;
    for (int i = 0; i < r->gpus; i++) {
        n += (size_t)r->nblocks * sizeof(block);
        for (int b = 0; b < r->nblocks; b++)
            n += r->g[i].blocks[b].cap;
    }
    pthread_mutex_unlock(&r->lock);
    return n;
}

int ring_capacity(const ring *r)
{
    return r ? r->capacity : 0;
}
int ring_gpus(const ring *r)
{
    return r ? r->gpus : 0;
}
