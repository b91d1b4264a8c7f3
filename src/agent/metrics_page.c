/* metrics_page.c - /metrics page assembly with a shared, refcounted GPU part (see metrics_page.h). */
#include "metrics_page.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include "agent.h"
#include "expo_text.h"
#include "gzip_page.h"
#include "util.h"

struct page_ref {
    atomic_int refs;
    gw_buf body;
    uint64_t round_gen, cfg_gen;
    pthread_mutex_t gz_lock;    /* taken only until gz is built */
    atomic_int gz_ready;        /* 1 once gz holds the compressed body */
    gzip_head gz;
};

struct page_cache {
    pthread_mutex_t lock;
    page_ref *cur;
};

page_cache *page_cache_new(void)
{
    page_cache *c = calloc(1, sizeof *c);
    if (c)
        pthread_mutex_init(&c->lock, NULL);
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
    pthread_mutex_destroy(&c->lock);
    free(c);
}

static page_ref *build(agent *a, const agent_snapshot *s)
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
    r->round_gen = s->round_gen;
    r->cfg_gen = s->cfg_gen;
    if (r->body.oom) {
        ref_drop(r);
        return NULL;
    }
    return r;
}

int metrics_page_get(agent *a, metrics_page *out)
{
    uint64_t t0 = gw_mono_us();
    agent_snapshot s;
    if (agent_snapshot_take(a, &s, 1) != 0)
        return -1;
    page_cache *c = a->page;
    pthread_mutex_lock(&c->lock);
    if (!c->cur || c->cur->round_gen != s.round_gen || c->cur->cfg_gen != s.cfg_gen) {
        /* A new sampling round or config: one scrape rebuilds the shared part from a full copy. */
        agent_snapshot full;
        if (agent_snapshot_take(a, &full, 0) == 0) {
            page_ref *fresh = build(a, &full);
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
        snapshot_free(&s);
        return -1;
    }
    gw_buf tail;
    buf_init(&tail);
    buf_reserve(&tail, 4096);   /* the health part and the hooks' series: one allocation, no regrowth */
    for (int h = 0; h < a->nhooks; h++)
        if (a->hooks[h].write_metrics)
            a->hooks[h].write_metrics(a->hooks[h].ctx, &tail);
    expo_write_health(&tail, &s, (double)(gw_mono_us() - t0) / 1e6);
    snapshot_free(&s);
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
