/* metrics_page.c - /metrics page assembly with a shared, refcounted page part (see metrics_page.h). */
#include "metrics_page.h"
#include <pthread.h>
#include <stdlib.h>
#include "agent.h"
#include "gzip_page.h"
#include "http_guard.h"
#include "util.h"

/* The part of the page every scrape of a sampling round shares, and the snapshot it was built from. */
struct page_ref {
    page_cache *cache;
    int refs; /* under the cache's lock, as gz */
    agent_snapshot snap;
    uint64_t plugins_version; /* sum of the versioned plugins' metrics_version */
    gw_buf body;
    gzip_head gz; /* body deflated, by the first gzip scrape (data NULL until then) */
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

static void ref_free(page_ref *r)
{
    snapshot_free(&r->snap);
    buf_release(&r->body);
    gzip_head_release(&r->gz);
    free(r);
}

/* Drops a reference; called with the cache's lock held. */
static void ref_drop_locked(page_ref *r)
{
    if (r && --r->refs == 0)
        ref_free(r);
}

void page_cache_free(page_cache *c)
{
    if (!c)
        return;
    ref_drop_locked(c->cur);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

/* The shared part: GPU and process series, the round's health and the versioned plugins' series.
 * Versions are read before the text is written: a change meanwhile is seen by the next scrape. */
static page_ref *build(agent *a, page_cache *c, uint64_t version)
{
    page_ref *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->cache = c;
    r->refs = 1;
    r->plugins_version = version;
    buf_init(&r->body);
    if (agent_snapshot_take(a, &r->snap) != 0) {
        ref_free(r);
        return NULL;
    }
    pthread_rwlock_rdlock(&a->cfg_lock);
    expo_write_gpus(&r->body, &r->snap, &a->expo);
    pthread_rwlock_unlock(&a->cfg_lock);
    expo_write_round_health(&r->body, &r->snap);
    pipeline_write_metrics(a->pl, &r->body, 1);
    if (r->body.oom) {
        ref_free(r);
        return NULL;
    }
    return r;
}

int metrics_page_get(agent *a, const struct guard_stats *http, metrics_page *out)
{
    uint64_t t0 = gw_mono_us();
    uint64_t gen = agent_state_gen(a);
    uint64_t version = pipeline_metrics_version(a->pl);
    page_cache *c = a->page;
    pthread_mutex_lock(&c->lock);
    if (!c->cur || c->cur->snap.gen != gen || c->cur->plugins_version != version) {
        /* A new sampling round, config, backend state or plugin text: one scrape builds it again. */
        page_ref *fresh = build(a, c, version);
        if (fresh) {
            ref_drop_locked(c->cur);
            c->cur = fresh;
        }
    }
    page_ref *r = c->cur;
    if (r)
        r->refs++;
    pthread_mutex_unlock(&c->lock);
    if (!r)
        return -1;
    /* The tail: the plugins without a version, written on every scrape, and the live part. */
    gw_buf tail;
    buf_init(&tail);
    buf_reserve(&tail, 4096);
    pipeline_write_metrics(a->pl, &tail, 0);
    if (http)
        expo_write_http(&tail, http);
    expo_write_live(&tail, &r->snap, gw_now_us(), (double)(gw_mono_us() - t0) / 1e6);
    *out = (metrics_page){.gpus = r->body.data ? r->body.data : "", .gpus_len = r->body.len, .ref = r};
    if (tail.oom) {
        buf_release(&tail);
        metrics_page_release(out);
        return -1;
    }
    out->tail = tail.data;
    out->tail_len = tail.len;
    return 0;
}

int metrics_page_gzip(metrics_page *p)
{
    page_ref *r = p->ref;
    pthread_mutex_lock(&r->cache->lock);
    int ok = r->gz.data || gzip_head_build(&r->gz, p->gpus, p->gpus_len) == 0;
    pthread_mutex_unlock(&r->cache->lock);
    if (!ok)
        return -1;
    /* One buffer (a copy of the deflated part): the server sends it with the response headers in one call. */
    p->gz = gzip_page_build(&r->gz, p->tail, p->tail_len, &p->gz_len);
    return p->gz ? 0 : -1;
}

void metrics_page_release(metrics_page *p)
{
    if (p->ref) {
        page_cache *c = p->ref->cache;
        pthread_mutex_lock(&c->lock);
        ref_drop_locked(p->ref);
        pthread_mutex_unlock(&c->lock);
    }
    free(p->tail);
    free(p->gz);
    p->ref = NULL;
    p->tail = NULL;
    p->gz = NULL;
}
