/* rw_series.c - the series table and the converter (see rw_series.h). */
#include "rw_series.h"
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "snapshot.h"
#include "util.h"
#include "xid_tally.h"

double rw_stale_nan(void)
{
    uint64_t bits = 0x7ff0000000000002ull;
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

int rw_is_stale(double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    return bits == 0x7ff0000000000002ull;
}

/* ---- the table ---- */

#define BLOCK 256
#define RW_MAX_GPUS 64
#define FORGET_AFTER_US 3600000000ull /* an hour without a sample */

typedef struct slot {
    rw_series s;
    char *key;    /* name{labels text}: what tells series apart */
    void *mem;    /* the labels and key, one allocation */
    size_t bytes; /* of mem */
    uint64_t hash;
    uint32_t next; /* chain: next id + 1, 0 at the end */
    int used;
    uint64_t touched_mono_us; /* last given a sample (monotonic) */
    int64_t last_us;          /* that sample's time */
} slot;

struct rw_table {
    pthread_mutex_t mu;
    const rw_settings *settings;
    rw_label_value external[RW_MAX_EXTERNAL + 2]; /* the settings' and the defaults (instance, job) */
    int nexternal;
    char *instance;
    slot **blocks;
    size_t nblocks;
    uint32_t nids; /* ids handed out */
    uint32_t *free_ids;
    size_t nfree, capfree;
    uint32_t *buckets; /* id + 1 */
    size_t nbuckets;
    size_t count, bytes;
};

static uint64_t hash_text(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ull;
    }
    return h;
}

static slot *slot_at(const rw_table *t, uint32_t id)
{
    return id < t->nids ? &t->blocks[id / BLOCK][id % BLOCK] : NULL;
}

rw_table *rw_table_new(const rw_settings *s, const char *hostname)
{
    rw_table *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->nbuckets = 1024;
    t->buckets = calloc(t->nbuckets, sizeof *t->buckets);
    t->instance = strdup(hostname ? hostname : "");
    if (!t->buckets || !t->instance) {
        free(t->buckets);
        free(t->instance);
        free(t);
        return NULL;
    }
    pthread_mutex_init(&t->mu, NULL);
    t->settings = s;
    int has_instance = 0, has_job = 0;
    for (int i = 0; i < s->nexternal; i++) {
        t->external[t->nexternal++] = s->external[i];
        has_instance |= strcmp(s->external[i].name, "instance") == 0;
        has_job |= strcmp(s->external[i].name, "job") == 0;
    }
    /* as a scrape would label them: which node, and which job (Prometheus' target labels) */
    if (!has_instance && *t->instance)
        t->external[t->nexternal++] = (rw_label_value){"instance", t->instance};
    if (!has_job)
        t->external[t->nexternal++] = (rw_label_value){"job", "gpuwatch"};
    return t;
}

void rw_table_free(rw_table *t)
{
    if (!t)
        return;
    for (uint32_t id = 0; id < t->nids; id++)
        free(slot_at(t, id)->mem);
    for (size_t b = 0; b < t->nblocks; b++)
        free(t->blocks[b]);
    free(t->blocks);
    free(t->free_ids);
    free(t->buckets);
    free(t->instance);
    pthread_mutex_destroy(&t->mu);
    free(t);
}

void rw_table_lock(rw_table *t)
{
    pthread_mutex_lock(&t->mu);
}

void rw_table_unlock(rw_table *t)
{
    pthread_mutex_unlock(&t->mu);
}

const rw_series *rw_table_get(rw_table *t, const rw_entry *e)
{
    slot *s = slot_at(t, e->series);
    return s && s->used && s->s.gen == e->pad ? &s->s : NULL;
}

void rw_table_stats(rw_table *t, size_t *count, size_t *bytes)
{
    pthread_mutex_lock(&t->mu);
    *count = t->count;
    *bytes = t->bytes + t->nbuckets * sizeof *t->buckets + t->nblocks * BLOCK * sizeof(slot);
    pthread_mutex_unlock(&t->mu);
}

static void unlink_slot(rw_table *t, uint32_t id)
{
    slot *s = slot_at(t, id);
    uint32_t *p = &t->buckets[s->hash & (t->nbuckets - 1)];
    while (*p && *p != id + 1)
        p = &slot_at(t, *p - 1)->next;
    if (*p)
        *p = s->next;
}

size_t rw_table_evict(rw_table *t, int64_t before_us, uint64_t now_mono_us)
{
    size_t n = 0;
    pthread_mutex_lock(&t->mu);
    for (uint32_t id = 0; id < t->nids; id++) {
        slot *s = slot_at(t, id);
        if (!s->used || s->last_us >= before_us || s->touched_mono_us + FORGET_AFTER_US > now_mono_us)
            continue;
        if (t->nfree == t->capfree) {
            size_t nc = t->capfree ? t->capfree * 2 : 64;
            uint32_t *grown = realloc(t->free_ids, nc * sizeof *grown);
            if (!grown)
                break;
            t->free_ids = grown;
            t->capfree = nc;
        }
        unlink_slot(t, id);
        t->bytes -= s->bytes;
        t->count--;
        free(s->mem);
        uint16_t gen = s->s.gen;
        memset(s, 0, sizeof *s);
        s->s.gen = gen; /* the next series of this id gets gen + 1 */
        t->free_ids[t->nfree++] = id;
        n++;
    }
    pthread_mutex_unlock(&t->mu);
    return n;
}

static int grow_buckets(rw_table *t)
{
    size_t nb = t->nbuckets * 2;
    uint32_t *b = calloc(nb, sizeof *b);
    if (!b)
        return -1;
    for (uint32_t id = 0; id < t->nids; id++) {
        slot *s = slot_at(t, id);
        if (!s->used)
            continue;
        s->next = b[s->hash & (nb - 1)];
        b[s->hash & (nb - 1)] = id + 1;
    }
    free(t->buckets);
    t->buckets = b;
    t->nbuckets = nb;
    return 0;
}

/* A free id (a forgotten one first), or UINT32_MAX when out of memory. */
static uint32_t new_id(rw_table *t)
{
    if (t->nfree)
        return t->free_ids[--t->nfree];
    if (t->nids % BLOCK == 0) {
        slot **grown = realloc(t->blocks, (t->nblocks + 1) * sizeof *grown);
        if (!grown)
            return UINT32_MAX;
        t->blocks = grown;
        if (!(t->blocks[t->nblocks] = calloc(BLOCK, sizeof(slot))))
            return UINT32_MAX;
        t->nblocks++;
    }
    return t->nids++;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const rw_label *)a)->name, ((const rw_label *)b)->name);
}

/* A label's value in a series being made (for the keep/drop rules). */
static const char *series_label(void *ctx, const char *name)
{
    const rw_series *s = ctx;
    for (int i = 0; i < s->nlabels; i++)
        if (strcmp(s->labels[i].name, name) == 0)
            return s->labels[i].value;
    return "";
}

/* Makes the series: the walk's labels (empty ones left out), __name__ and the external labels the
 * series does not have, sorted; everything in one allocation. */
static uint32_t make_series(rw_table *t, const char *name, const char *help, int counter, int gpu,
                            const expo_pair *pairs, int npairs, const char *key, size_t keylen, uint64_t hash)
{
    rw_label tmp[EXPO_MAX_LABELS + RW_MAX_EXTERNAL + 3];
    int n = 0;
    tmp[n++] = (rw_label){"__name__", name};
    for (int i = 0; i < npairs; i++)
        if (pairs[i].value && *pairs[i].value)
            tmp[n++] = (rw_label){pairs[i].name, pairs[i].value};
    for (int i = 0; i < t->nexternal; i++) {
        int have = 0;
        for (int k = 0; k < npairs && !have; k++)
            have = strcmp(pairs[k].name, t->external[i].name) == 0;
        if (!have)
            tmp[n++] = (rw_label){t->external[i].name, t->external[i].value};
    }
    size_t bytes = (size_t)n * sizeof(rw_label) + keylen + 1;
    for (int i = 0; i < n; i++)
        bytes += strlen(tmp[i].name) + strlen(tmp[i].value) + 2;
    char *mem = malloc(bytes);
    uint32_t id = mem ? new_id(t) : UINT32_MAX;
    if (id == UINT32_MAX) {
        free(mem);
        return UINT32_MAX;
    }
    rw_label *labels = (rw_label *)mem;
    char *p = mem + (size_t)n * sizeof(rw_label);
    for (int i = 0; i < n; i++) {
        size_t a = strlen(tmp[i].name) + 1, b = strlen(tmp[i].value) + 1;
        labels[i].name = memcpy(p, tmp[i].name, a);
        labels[i].value = memcpy(p + a, tmp[i].value, b);
        p += a + b;
    }
    qsort(labels, (size_t)n, sizeof *labels, by_name);
    char *k = memcpy(p, key, keylen);
    k[keylen] = 0;
    slot *s = slot_at(t, id);
    uint16_t gen = (uint16_t)(s->s.gen + 1);
    memset(s, 0, sizeof *s);
    s->used = 1;
    s->mem = mem;
    s->bytes = bytes;
    s->key = k;
    s->hash = hash;
    s->s = (rw_series){.help = help, .labels = labels, .nlabels = n, .counter = counter, .gpu = gpu, .gen = gen};
    for (int i = 0; i < n; i++)
        if (strcmp(labels[i].name, "__name__") == 0)
            s->s.name = labels[i].value;
    for (int e = 0; e < t->settings->nendpoints; e++)
        if (rw_rules_keep(&t->settings->ep[e], series_label, &s->s))
            s->s.keep |= 1u << e;
    uint32_t *bucket = &t->buckets[hash & (t->nbuckets - 1)];
    s->next = *bucket;
    *bucket = id + 1;
    t->count++;
    t->bytes += bytes;
    if (t->count > t->nbuckets)
        grow_buckets(t); /* out of memory: the chains get longer, nothing is lost */
    return id;
}

/* ---- the converter ---- */

typedef struct live_ref {
    uint32_t id;
    uint16_t gen;
} live_ref;

typedef struct gpu_state {
    live_ref *live; /* the series its previous sample had */
    size_t nlive, cap;
    xid_tally xids;
} gpu_state;

struct rw_converter {
    rw_table *t;
    uint64_t walk;   /* walks done (any GPU) */
    uint64_t *stamp; /* per id: the walk that last gave it a sample */
    size_t nstamp;
    gpu_state gpus[RW_MAX_GPUS];
    live_ref *now; /* the series of the walk in progress */
    size_t nnow, capnow;
    gw_buf key;
    /* the walk in progress */
    const char *help;
    int counter, gpu, oom;
    int64_t t_us;
    rw_entry **out;
    size_t *n, *cap;
};

rw_converter *rw_converter_new(rw_table *t)
{
    rw_converter *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->t = t;
    buf_init(&c->key);
    return c;
}

void rw_converter_free(rw_converter *c)
{
    if (!c)
        return;
    for (int g = 0; g < RW_MAX_GPUS; g++)
        free(c->gpus[g].live);
    free(c->stamp);
    free(c->now);
    buf_release(&c->key);
    free(c);
}

static int push_entry(rw_converter *c, uint32_t id, uint16_t gen, double v)
{
    if (*c->n == *c->cap) {
        size_t nc = *c->cap ? *c->cap * 2 : 1024;
        rw_entry *grown = realloc(*c->out, nc * sizeof *grown);
        if (!grown)
            return -1;
        *c->out = grown;
        *c->cap = nc;
    }
    (*c->out)[(*c->n)++] = (rw_entry){.series = id, .gpu = (uint16_t)c->gpu, .pad = gen, .t_us = c->t_us, .v = v};
    return 0;
}

static int push_ref(live_ref **arr, size_t *n, size_t *cap, live_ref r)
{
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 256;
        live_ref *grown = realloc(*arr, nc * sizeof *grown);
        if (!grown)
            return -1;
        *arr = grown;
        *cap = nc;
    }
    (*arr)[(*n)++] = r;
    return 0;
}

static int stamp_room(rw_converter *c, uint32_t id)
{
    if (id < c->nstamp)
        return 0;
    size_t nc = c->nstamp ? c->nstamp : 1024;
    while (nc <= id)
        nc *= 2;
    uint64_t *grown = realloc(c->stamp, nc * sizeof *grown);
    if (!grown)
        return -1;
    memset(grown + c->nstamp, 0, (nc - c->nstamp) * sizeof *grown);
    c->stamp = grown;
    c->nstamp = nc;
    return 0;
}

static void sink_family(void *ctx, const char *name, const char *help, const char *type)
{
    rw_converter *c = ctx;
    (void)name;
    c->help = help;
    c->counter = strcmp(type, "counter") == 0;
}

static void sink_sample(void *ctx, const char *name, const expo_pair *labels, int n, const char *text, double v)
{
    rw_converter *c = ctx;
    rw_table *t = c->t;
    buf_clear(&c->key);
    buf_puts(&c->key, name);
    buf_putc(&c->key, '{');
    buf_puts(&c->key, text);
    buf_putc(&c->key, '}');
    if (c->key.oom) {
        c->oom = 1;
        return;
    }
    uint64_t h = hash_text(c->key.data, c->key.len);
    uint32_t id = UINT32_MAX;
    for (uint32_t k = t->buckets[h & (t->nbuckets - 1)]; k; k = slot_at(t, k - 1)->next) {
        slot *s = slot_at(t, k - 1);
        if (s->hash == h && strcmp(s->key, c->key.data) == 0) {
            id = k - 1;
            break;
        }
    }
    if (id == UINT32_MAX)
        id = make_series(t, name, c->help, c->counter, c->gpu, labels, n, c->key.data, c->key.len, h);
    if (id == UINT32_MAX || stamp_room(c, id) != 0) {
        c->oom = 1;
        return;
    }
    if (c->stamp[id] == c->walk)
        return; /* the same series twice in one walk: the first value stands */
    c->stamp[id] = c->walk;
    slot *s = slot_at(t, id);
    if (c->t_us > s->last_us)
        s->last_us = c->t_us;
    if (push_ref(&c->now, &c->nnow, &c->capnow, (live_ref){id, s->s.gen}) != 0 || push_entry(c, id, s->s.gen, v) != 0)
        c->oom = 1;
}

/* Stale markers for the series the GPU's previous walk had and this one has not. */
static void end_walk(rw_converter *c, gpu_state *g, uint64_t now_mono)
{
    for (size_t i = 0; i < g->nlive; i++) {
        live_ref r = g->live[i];
        slot *s = slot_at(c->t, r.id);
        if (!s || !s->used || s->s.gen != r.gen || (r.id < c->nstamp && c->stamp[r.id] == c->walk))
            continue;
        if (push_entry(c, r.id, r.gen, rw_stale_nan()) != 0)
            c->oom = 1;
    }
    for (size_t i = 0; i < c->nnow; i++)
        slot_at(c->t, c->now[i].id)->touched_mono_us = now_mono;
    live_ref *swap = g->live;
    size_t cap = g->cap;
    g->live = c->now;
    g->nlive = c->nnow;
    g->cap = c->capnow;
    c->now = swap;
    c->capnow = cap;
    c->nnow = 0;
}

int rw_convert(rw_converter *c, const rw_walk_context *ctx, int gpu, const gpu_info *info, const gpu_sample *s,
               const gpu_proc *procs, int nprocs, rw_entry **out, size_t *n, size_t *cap)
{
    if (gpu < 0 || gpu >= RW_MAX_GPUS)
        return 0;
    gpu_state *g = &c->gpus[gpu];
    xid_tally_add(&g->xids, s);
    agent_gpu_view view;
    memset(&view, 0, sizeof view);
    if (info) {
        view.info = *info;
        view.have_info = 1;
    } else
        view.info.index = gpu;
    view.sample = *s;
    view.has_sample = 1;
    view.lost = s->status == GPU_LOST;
    view.xids = g->xids;
    agent_snapshot snap;
    memset(&snap, 0, sizeof snap);
    snap.simulated = ctx->simulated;
    snap.ngpus = 1;
    snap.gpus = &view;
    snap.procs = (gpu_proc *)procs;
    snap.nprocs = nprocs;
    rw_table_lock(c->t);
    c->walk++;
    c->gpu = gpu;
    c->t_us = (int64_t)s->t_us;
    c->out = out;
    c->n = n;
    c->cap = cap;
    c->oom = 0;
    c->nnow = 0;
    expo_sink sink = {.ctx = c, .family = sink_family, .sample = sink_sample, .oom = &c->oom};
    expo_walk_gpus(&snap, ctx->expo, &sink);
    end_walk(c, g, gw_mono_us());
    rw_table_unlock(c->t);
    return c->oom ? -1 : 0;
}
