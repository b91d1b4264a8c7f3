/* rw_engine.c - remote write's engine: the hand-over from the sampler thread, the converting thread
 * that fills the shared ring, the endpoints' threads and the engine's own series (see
 * remote_write.h). */
#include "remote_write.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "expo_text.h"
#include "rw_sender.h"
#include "util.h"

#define MAX_QUEUED 512              /* readings handed over and not converted yet */
#define EVICT_EVERY_US 600000000ull /* series not seen for an hour are looked for every 10 minutes */

typedef struct handoff {
    struct handoff *next;
    int gpu;
    int has_info;
    gpu_info info;
    gpu_sample sample;
    gpu_proc *procs;
    int nprocs;
} handoff;

struct rw_engine {
    rw_engine_config cfg;
    expo_options expo;
    char hostname[256];
    char *db;
    rw_table *table;
    rw_ring *ring;
    rw_converter *live;
    rw_shared shared;
    rw_sender *senders[RW_MAX_ENDPOINTS];
    int nsenders;
    pthread_mutex_t mu; /* the hand-over, infos, dropped */
    pthread_cond_t cv;
    handoff *pending[RW_GPUS]; /* a sample waiting for its processes */
    handoff *head, *tail;
    int queued;
    gpu_info infos[RW_GPUS];
    int have_info[RW_GPUS];
    uint64_t readings_dropped;
    pthread_t thread;
    int started;
    volatile int stop;
    /* the converting thread's, read by the HTTP thread under stats_mu */
    pthread_mutex_t stats_mu;
    uint64_t readings, samples_in;
    int64_t highest_us;
    rw_entry *out;
    size_t nout, capout;
    uint64_t evicted_mono;
};

static void handoff_free(handoff *h)
{
    if (h) {
        free(h->procs);
        free(h);
    }
}

/* Queues a complete reading (mu held); the oldest goes when the converting thread is behind. */
static void enqueue(rw_engine *e, handoff *h)
{
    if (e->queued == MAX_QUEUED) {
        handoff *old = e->head;
        e->head = old->next;
        if (!e->head)
            e->tail = NULL;
        e->queued--;
        e->readings_dropped++;
        handoff_free(old);
    }
    h->next = NULL;
    if (e->tail)
        e->tail->next = h;
    else
        e->head = h;
    e->tail = h;
    e->queued++;
}

void rw_engine_sample(rw_engine *e, int gpu, const gpu_info *info, const gpu_sample *s)
{
    if (gpu < 0 || gpu >= RW_GPUS)
        return;
    handoff *h = malloc(sizeof *h);
    pthread_mutex_lock(&e->mu);
    if (e->pending[gpu]) /* no process list came for the previous one */
        enqueue(e, e->pending[gpu]);
    e->pending[gpu] = NULL;
    if (!h) {
        e->readings_dropped++;
    } else {
        h->next = NULL;
        h->gpu = gpu;
        h->has_info = info != NULL;
        if (info)
            h->info = *info;
        h->sample = *s;
        h->procs = NULL;
        h->nprocs = 0;
        e->pending[gpu] = h;
    }
    pthread_mutex_unlock(&e->mu);
}

void rw_engine_processes(rw_engine *e, int gpu, const gpu_proc *procs, int n)
{
    if (gpu < 0 || gpu >= RW_GPUS)
        return;
    gpu_proc *copy = n > 0 ? malloc((size_t)n * sizeof *copy) : NULL;
    if (copy)
        memcpy(copy, procs, (size_t)n * sizeof *copy);
    pthread_mutex_lock(&e->mu);
    handoff *h = e->pending[gpu];
    e->pending[gpu] = NULL;
    if (h) {
        h->procs = copy;
        h->nprocs = copy ? n : 0;
        copy = NULL;
        enqueue(e, h);
    }
    pthread_mutex_unlock(&e->mu);
    free(copy);
}

void rw_engine_round(rw_engine *e)
{
    pthread_mutex_lock(&e->mu);
    pthread_cond_signal(&e->cv);
    pthread_mutex_unlock(&e->mu);
}

static int simulated(rw_engine *e)
{
    return e->cfg.simulated ? e->cfg.simulated(e->cfg.simulated_ctx) : 0;
}

/* Forgets series no sample has come for in an hour, when neither the ring nor an endpoint holds
 * samples of theirs. */
static void evict(rw_engine *e)
{
    uint64_t now = gw_mono_us();
    if (now - e->evicted_mono < EVICT_EVERY_US)
        return;
    e->evicted_mono = now;
    int64_t first[RW_GPUS], before = INT64_MAX;
    rw_ring_first_times(e->ring, 0, first, RW_GPUS);
    for (int g = 0; g < RW_GPUS; g++)
        before = first[g] < before ? first[g] : before;
    for (int i = 0; i < e->nsenders; i++) {
        int64_t t = rw_sender_holds_from(e->senders[i]);
        before = t < before ? t : before;
    }
    size_t n = rw_table_evict(e->table, before, now);
    if (n)
        gw_log(GW_LOG_DEBUG, "remote write: series forgotten", "series=%zu", n);
}

static void convert(rw_engine *e, handoff *h)
{
    rw_walk_context ctx = {.expo = &e->expo, .simulated = simulated(e)};
    e->nout = 0;
    int rc = rw_convert(e->live, &ctx, h->gpu, h->has_info ? &h->info : NULL, &h->sample, h->procs, h->nprocs, &e->out,
                        &e->nout, &e->capout);
    if (rc != 0)
        gw_log(GW_LOG_WARN, "remote write: out of memory converting a sample; part of it is not sent", "gpu=%d",
               h->gpu);
    rw_ring_push(e->ring, e->out, e->nout);
    pthread_mutex_lock(&e->stats_mu);
    e->readings++;
    e->samples_in += e->nout;
    if ((int64_t)h->sample.t_us > e->highest_us)
        e->highest_us = (int64_t)h->sample.t_us;
    pthread_mutex_unlock(&e->stats_mu);
}

static void *engine_main(void *arg)
{
    rw_engine *e = arg;
    pthread_mutex_lock(&e->mu);
    while (!e->stop) {
        if (!e->head) {
            pthread_cond_wait(&e->cv, &e->mu);
            continue;
        }
        handoff *h = e->head;
        e->head = h->next;
        if (!e->head)
            e->tail = NULL;
        e->queued--;
        if (h->has_info) {
            e->infos[h->gpu] = h->info;
            e->have_info[h->gpu] = 1;
        }
        pthread_mutex_unlock(&e->mu);
        convert(e, h);
        handoff_free(h);
        evict(e);
        pthread_mutex_lock(&e->mu);
    }
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

static int shared_simulated(void *ctx)
{
    return simulated(ctx);
}

rw_engine *rw_engine_start(const rw_engine_config *c, char *err, size_t n)
{
    rw_engine *e = calloc(1, sizeof *e);
    if (!e) {
        snprintf(err, n, "out of memory");
        return NULL;
    }
    e->cfg = *c;
    e->expo = c->expo;
    e->expo.series = c->settings->series;
    gw_strlcpy(e->hostname, c->hostname ? c->hostname : "", sizeof e->hostname);
    e->expo.hostname = e->hostname;
    pthread_mutex_init(&e->mu, NULL);
    pthread_mutex_init(&e->stats_mu, NULL);
    pthread_cond_init(&e->cv, NULL);
    e->db = c->db ? strdup(c->db) : NULL;
    e->table = rw_table_new(c->settings, e->hostname);
    e->ring = rw_ring_new((size_t)c->settings->queue_capacity);
    e->live = e->table ? rw_converter_new(e->table) : NULL;
    if ((c->db && !e->db) || !e->table || !e->ring || !e->live) {
        snprintf(err, n, "out of memory");
        rw_engine_free(e);
        return NULL;
    }
    e->shared = (rw_shared){.settings = c->settings,
                            .table = e->table,
                            .ring = e->ring,
                            .db = e->db,
                            .expo = &e->expo,
                            .simulated = shared_simulated,
                            .simulated_ctx = e,
                            .mu = &e->mu,
                            .infos = e->infos,
                            .have_info = e->have_info};
    e->evicted_mono = gw_mono_us();
    if (pthread_create(&e->thread, NULL, engine_main, e) != 0) {
        snprintf(err, n, "cannot start a thread");
        rw_engine_free(e);
        return NULL;
    }
    e->started = 1;
    for (int i = 0; i < c->settings->nendpoints; i++) {
        char why[256];
        rw_sender *s = rw_sender_start(&e->shared, i, why, sizeof why);
        if (!s) {
            snprintf(err, n, "endpoint %s: %s", c->settings->ep[i].name, why);
            rw_engine_free(e);
            return NULL;
        }
        e->senders[e->nsenders++] = s;
    }
    return e;
}

void rw_engine_stop(rw_engine *e)
{
    if (!e)
        return;
    for (int i = 0; i < e->nsenders; i++)
        rw_sender_stop(e->senders[i]);
    if (e->started) {
        pthread_mutex_lock(&e->mu);
        e->stop = 1;
        pthread_cond_signal(&e->cv);
        pthread_mutex_unlock(&e->mu);
        pthread_join(e->thread, NULL);
        e->started = 0;
    }
}

void rw_engine_free(rw_engine *e)
{
    if (!e)
        return;
    rw_engine_stop(e);
    for (int i = 0; i < e->nsenders; i++)
        rw_sender_free(e->senders[i]);
    for (int g = 0; g < RW_GPUS; g++)
        handoff_free(e->pending[g]);
    while (e->head) {
        handoff *h = e->head;
        e->head = h->next;
        handoff_free(h);
    }
    rw_converter_free(e->live);
    rw_ring_free(e->ring);
    rw_table_free(e->table);
    free(e->out);
    free(e->db);
    pthread_mutex_destroy(&e->mu);
    pthread_mutex_destroy(&e->stats_mu);
    pthread_cond_destroy(&e->cv);
    free(e);
}

/* ---- the engine's own series ---- */

/* One family per endpoint, written as the kind says; plain ones take their value from the stats. */
typedef enum { FAM_PLAIN, FAM_BY_CODE, FAM_SUMMARY, FAM_BY_STATE } family_kind;

typedef struct family_def {
    const char *name, *help, *type;
    family_kind kind;
    double (*value)(const rw_sender_stats *x);
} family_def;

static double sent(const rw_sender_stats *x)
{
    return (double)x->samples_sent;
}
static double failed(const rw_sender_stats *x)
{
    return (double)x->samples_failed;
}
static double retried(const rw_sender_stats *x)
{
    return (double)x->samples_retried;
}
static double dropped(const rw_sender_stats *x)
{
    return (double)x->samples_dropped;
}
static double resent(const rw_sender_stats *x)
{
    return (double)x->samples_resent;
}
static double pending(const rw_sender_stats *x)
{
    return (double)x->pending;
}
static double bytes_sent(const rw_sender_stats *x)
{
    return (double)x->bytes;
}
static double highest_sent(const rw_sender_stats *x)
{
    return (double)x->highest_sent_us / 1e6;
}
static double one(const rw_sender_stats *x)
{
    return x ? 1 : 0;
}
static double version(const rw_sender_stats *x)
{
    return x->version;
}

static const family_def families[] = {
    {"gpuwatch_remote_write_samples_total",
     "Samples sent and taken by the receiver (as prometheus_remote_storage_samples_total).", "counter", FAM_PLAIN,
     sent},
    {"gpuwatch_remote_write_samples_failed_total",
     "Samples the receiver refused for good (4xx but 429); never retried.", "counter", FAM_PLAIN, failed},
    {"gpuwatch_remote_write_samples_retried_total", "Samples sent again after a 5xx, a 429 or no answer.", "counter",
     FAM_PLAIN, retried},
    {"gpuwatch_remote_write_samples_dropped_total",
     "Samples never sent: the queue was full with no history to resend from, or memory ran out.", "counter", FAM_PLAIN,
     dropped},
    {"gpuwatch_remote_write_samples_resent_total",
     "Samples resent from the history after an outage or a restart (counted in samples_total too).", "counter",
     FAM_PLAIN, resent},
    {"gpuwatch_remote_write_samples_pending", "Samples in the queue not yet taken for sending.", "gauge", FAM_PLAIN,
     pending},
    {"gpuwatch_remote_write_bytes_total", "Request bodies sent (snappy-compressed), retries included.", "counter",
     FAM_PLAIN, bytes_sent},
    {"gpuwatch_remote_write_requests_total", "Requests sent, by the class of the answer (none: no answer).", "counter",
     FAM_BY_CODE, NULL},
    {"gpuwatch_remote_write_sent_batch_duration_seconds",
     "Time from a request's first attempt to its answer, retries included.", "summary", FAM_SUMMARY, NULL},
    {"gpuwatch_remote_write_queue_highest_sent_timestamp_seconds", "Time of the newest sample the receiver took.",
     "gauge", FAM_PLAIN, highest_sent},
    {"gpuwatch_remote_write_shards", "Sending threads (one per endpoint).", "gauge", FAM_PLAIN, one},
    {"gpuwatch_remote_write_queue_state",
     "1 for what the endpoint's queue is doing: sending, resending (from the history), retrying, stopped.", "gauge",
     FAM_BY_STATE, NULL},
    {"gpuwatch_remote_write_protocol_version", "Remote-Write version in use: 2 or 1 (after a receiver refused 2.0).",
     "gauge", FAM_PLAIN, version},
};

static const char *const state_names[] = {"sending", "resending", "retrying", "stopped"};
static const char *const code_classes[] = {"none", "1xx", "2xx", "3xx", "4xx", "5xx"};

static void endpoint_labels(gw_buf *l, const rw_endpoint_settings *ep, const char *extra_name, const char *extra)
{
    int first = 1;
    buf_clear(l);
    expo_label(l, &first, "remote_name", ep->name);
    expo_label(l, &first, "url", ep->url);
    if (extra_name)
        expo_label(l, &first, extra_name, extra);
}

static void write_family(gw_buf *out, gw_buf *l, const family_def *f, const rw_endpoint_settings *ep,
                         const rw_sender_stats *x)
{
    switch (f->kind) {
    case FAM_PLAIN:
        endpoint_labels(l, ep, NULL, NULL);
        expo_sample(out, f->name, l->data, f->value(x));
        break;
    case FAM_BY_CODE:
        for (int c = 0; c < 6; c++) {
            endpoint_labels(l, ep, "code", code_classes[c]);
            expo_sample(out, f->name, l->data, (double)x->status_counts[c]);
        }
        break;
    case FAM_SUMMARY:
        endpoint_labels(l, ep, NULL, NULL);
        buf_printf(out, "%s_sum{%s} %.6f\n%s_count{%s} %llu\n", f->name, l->data, x->batch_seconds_sum, f->name,
                   l->data, (unsigned long long)x->batches);
        break;
    case FAM_BY_STATE:
        for (int k = 0; k < 4; k++) {
            endpoint_labels(l, ep, "state", state_names[k]);
            expo_sample(out, f->name, l->data, (int)x->state == k);
        }
        break;
    }
}

void rw_engine_metrics(rw_engine *e, gw_buf *out)
{
    gw_buf l;
    buf_init(&l);
    rw_sender_stats st[RW_MAX_ENDPOINTS];
    for (int i = 0; i < e->nsenders; i++)
        rw_sender_get_stats(e->senders[i], &st[i]);
    const rw_settings *s = e->cfg.settings;
    for (size_t f = 0; f < sizeof families / sizeof families[0]; f++) {
        expo_family(out, families[f].name, families[f].help, families[f].type);
        for (int i = 0; i < e->nsenders; i++)
            write_family(out, &l, &families[f], &s->ep[i], &st[i]);
    }
    size_t nseries, bytes;
    rw_table_stats(e->table, &nseries, &bytes);
    pthread_mutex_lock(&e->stats_mu);
    int64_t highest = e->highest_us;
    uint64_t samples_in = e->samples_in;
    pthread_mutex_unlock(&e->stats_mu);
    pthread_mutex_lock(&e->mu);
    uint64_t dropped = e->readings_dropped;
    pthread_mutex_unlock(&e->mu);
    expo_family(out, "gpuwatch_remote_write_highest_timestamp_in_seconds",
                "Time of the newest sample queued for remote write (as "
                "prometheus_remote_storage_highest_timestamp_in_seconds).",
                "gauge");
    expo_sample(out, "gpuwatch_remote_write_highest_timestamp_in_seconds", "", (double)highest / 1e6);
    expo_family(out, "gpuwatch_remote_write_samples_in_total",
                "Samples queued for remote write (stale markers included).", "counter");
    expo_sample(out, "gpuwatch_remote_write_samples_in_total", "", (double)samples_in);
    expo_family(out, "gpuwatch_remote_write_readings_dropped_total",
                "GPU readings not converted for remote write: the converting thread was too far behind.", "counter");
    expo_sample(out, "gpuwatch_remote_write_readings_dropped_total", "", (double)dropped);
    expo_family(out, "gpuwatch_remote_write_series", "Series remote write knows (those of the last hour).", "gauge");
    expo_sample(out, "gpuwatch_remote_write_series", "", (double)nseries);
    expo_family(out, "gpuwatch_remote_write_memory_bytes",
                "Memory remote write holds: its series and the queue (queue_capacity samples).", "gauge");
    expo_sample(out, "gpuwatch_remote_write_memory_bytes", "",
                (double)(bytes + (size_t)s->queue_capacity * sizeof(rw_entry)));
    buf_release(&l);
}
