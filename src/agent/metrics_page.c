/* metrics_page.c - /metrics page assembly with a shared, refcounted GPU part (see metrics_page.h). */
#include "metrics_page.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include "agent.h"
#include "expo_text.h"
#include "gzip_page.h"
#include "util.h"

/* What the GPU part was built from: it is built again when any of these changed. */
typedef struct page_key {
    uint64_t round_gen, cfg_gen;
    int backend_up;
} page_key;

struct page_ref {
    atomic_int refs;
    gw_buf body;
    page_key key;
    pthread_mutex_t gz_lock; /* taken only until gz is built */
    atomic_int gz_ready;     /* 1 once gz holds the compressed body */
    gzip_head gz;
};

struct page_cache {
    pthread_mutex_t lock;
    page_ref *cur;
    /* The versioned plugins' text, written again when the sum of their versions changes: kept apart
     * from the GPU part, so that a hook's change costs no deflate. */
    pthread_mutex_t plugins_lock;
    gw_buf plugins_text;
    uint64_t plugins_version;
    int plugins_ready;
};

page_cache *page_cache_new(void)
{
    page_cache *c = calloc(1, sizeof *c);
    if (c) {
        pthread_mutex_init(&c->lock, NULL);
        pthread_mutex_init(&c->plugins_lock, NULL);
    }
    return c;
}

static void ref_drop(page_ref *r)
{
    if (r && atomic_fetch_sub(&r->refs, 1) == 1) {
        buf_release(&r->body);
        gzip_head_release(&r->gz);
        pthread_mutex_destroy(&r->gz_lock);
        free(r);
    }
}

void page_cache_free(page_cache *c)
{
    if (!c)
        return;
    ref_drop(c->cur);
    buf_release(&c->plugins_text);
    pthread_mutex_destroy(&c->plugins_lock);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

/* The GPU part: GPU and process series, the health of the sampling round. */
static page_ref *build(agent *a, const agent_snapshot *s, const page_key *key)
{
    page_ref *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    atomic_init(&r->refs, 1);
    atomic_init(&r->gz_ready, 0);
    pthread_mutex_init(&r->gz_lock, NULL);
    buf_init(&r->body);
    buf_reserve(&r->body, 64 * 1024);
    pthread_rwlock_rdlock(&a->cfg_lock);
    expo_write_gpus(&r->body, s, &a->expo);
    pthread_rwlock_unlock(&a->cfg_lock);
    expo_write_round_health(&r->body, s);
    r->key = *key;
    if (r->body.oom) {
        ref_drop(r);
        return NULL;
    }
    return r;
}

static int same_key(const page_key *x, const page_key *y)
{
    return x->round_gen == y->round_gen && x->cfg_gen == y->cfg_gen && x->backend_up == y->backend_up;
}

/* Appends the plugins. series to tail: the versioned ones from their kept text (written again when
 * a version moved: versions are read before the text, so a change while it is written is seen by
 * the next scrape), the others written now. */
static void write_plugins(agent *a, page_cache *c, gw_buf *tail)
{
    uint64_t version = 0;
    int versioned = 0;
    for (int i = 0; i < a->nplugins; i++)
        if (a->plugins[i].p->write_metrics && a->plugins[i].p->metrics_version) {
            version += a->plugins[i].p->metrics_version(a->plugins[i].ctx);
            versioned = 1;
        }
    pthread_mutex_lock(&c->plugins_lock);
    if (versioned && (!c->plugins_ready || version != c->plugins_version || c->plugins_text.oom)) {
        buf_clear(&c->plugins_text);
        for (int i = 0; i < a->nplugins; i++)
            if (a->plugins[i].p->write_metrics && a->plugins[i].p->metrics_version)
                a->plugins[i].p->write_metrics(a->plugins[i].ctx, &c->plugins_text);
        c->plugins_version = version;
        c->plugins_ready = 1;
    }
    if (versioned)
        buf_append(tail, c->plugins_text.data ? c->plugins_text.data : "", c->plugins_text.len);
    pthread_mutex_unlock(&c->plugins_lock);
    for (int i = 0; i < a->nplugins; i++)
        if (a->plugins[i].p->write_metrics && !a->plugins[i].p->metrics_version)
            a->plugins[i].p->write_metrics(a->plugins[i].ctx, tail);
}

int metrics_page_get(agent *a, metrics_page *out)
{
    uint64_t t0 = gw_mono_us();
    agent_health h;
    if (agent_health_take(a, &h) != 0)
        return -1;
    page_key key = {h.round_gen, h.cfg_gen, h.backend_up};
    page_cache *c = a->page;
    pthread_mutex_lock(&c->lock);
    if (!c->cur || !same_key(&c->cur->key, &key)) {
        /* A new sampling round, config or backend state: one scrape rebuilds the shared part. */
        agent_snapshot full;
        if (agent_snapshot_take(a, &full) == 0) {
            page_ref *fresh = build(a, &full, &key);
            if (fresh) {
                ref_drop(c->cur);
                c->cur = fresh;
            }
            snapshot_free(&full);
        }
    }
    page_ref *r = c->cur;
    if (r)
        atomic_fetch_add(&r->refs, 1);
    pthread_mutex_unlock(&c->lock);
    if (!r) {
        agent_health_free(&h);
        return -1;
    }
    gw_buf tail;
    buf_init(&tail);
    buf_reserve(&tail, 4096); /* hooks and the live part: one allocation, no regrowth */
    write_plugins(a, c, &tail);
    expo_write_live(&tail, &h, (double)(gw_mono_us() - t0) / 1e6);
    agent_health_free(&h);
    if (tail.oom) {
        buf_release(&tail);
        ref_drop(r);
        return -1;
    }
    out->gpus = r->body.data ? r->body.data : "";
    out->gpus_len = r->body.len;
    out->tail = tail.data;
    out->tail_len = tail.len;
    out->ref = r;
    out->gz = NULL;
    out->gz_len = 0;
    return 0;
}

/* The compressed GPU part, built by the first gzip scrape of this page_ref; NULL if out of memory. */
static const gzip_head *ref_gzip(page_ref *r)
{
    if (atomic_load_explicit(&r->gz_ready, memory_order_acquire))
        return &r->gz;
    pthread_mutex_lock(&r->gz_lock);
    int ok = atomic_load_explicit(&r->gz_ready, memory_order_relaxed) ||
             gzip_head_build(&r->gz, r->body.data ? r->body.data : "", r->body.len) == 0;
    if (ok)
        atomic_store_explicit(&r->gz_ready, 1, memory_order_release);
    pthread_mutex_unlock(&r->gz_lock);
    return ok ? &r->gz : NULL;
}

int metrics_page_gzip(metrics_page *p)
{
    const gzip_head *h = ref_gzip(p->ref);
    if (!h)
        return -1;
    /* One buffer (a 10 KB copy): the server then sends it with the response headers in one call. */
    p->gz = gzip_tail_build(h, 1, p->tail, p->tail_len, &p->gz_len);
    return p->gz ? 0 : -1;
}

void metrics_page_release(metrics_page *p)
{
    ref_drop(p->ref);
    free(p->tail);
    free(p->gz);
    p->ref = NULL;
    p->tail = NULL;
    p->gz = NULL;
}
