/* rw_sender.c - one endpoint's thread: batches, retries, fallback, progress, resending (see
 * rw_sender.h). */
#include "rw_sender.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "history_read.h"
#include "rw_backfill.h"
#include "rw_client.h"
#include "rw_encode.h"
#include "rw_progress.h"
#include "util.h"

#define READ_CHUNK 4096
#define RESEND_SLICE_US 30000000ll /* history read per step: at most 30 s of samples */
#define FILE_MARGIN_US 2000000ll   /* a sample is in the file once the file holds one this much newer */
#define MAX_RETRY_AFTER_S 300.0    /* a receiver asking for longer is retried after this */
#define WARN_EVERY_US 60000000ull  /* the same kind of warning at most once a minute */

enum { SENT, DROPPED, ABORTED };
enum { WARN_RETRY, WARN_REJECTED, WARN_PROGRESS, WARN_RESEND, WARN_MEMORY, WARN_KINDS };

typedef struct entries {
    rw_entry *e;
    size_t n, cap;
} entries;

struct rw_sender {
    const rw_shared *sh;
    const rw_endpoint_settings *ep;
    int index;
    uint32_t bit;
    rw_client *client;
    pthread_t thread;
    int started;
    volatile int stop;
    pthread_mutex_t mu; /* st, holds_from */
    rw_sender_stats st;
    int64_t holds_from;
    /* the thread's own */
    uint64_t seq; /* the next ring entry to take */
    rw_progress acked;
    int persist; /* there is a history: progress is kept and what is missed is resent */
    char progress_path[4200];
    int version;
    int v2_taken; /* a 2.0 request was written: a later 400 is about the samples, not the version */
    int resending;
    int64_t resend_started_us;      /* wall time when the resend began */
    int64_t cursor_us[RW_GPUS];     /* per GPU: read from the file and sent up to here (0: nothing to resend) */
    int64_t live_after_us[RW_GPUS]; /* per GPU: the ring's entries up to here were resent: skipped */
    rw_converter *conv;             /* the resend's own */
    entries batch, slice;
    gw_buf body;
    uint64_t warned[WARN_KINDS];
    unsigned rng;
};

/* Logs a warning of a kind at most once a minute. */
static int may_warn(rw_sender *s, int kind)
{
    uint64_t now = gw_mono_us();
    if (s->warned[kind] && now - s->warned[kind] < WARN_EVERY_US)
        return 0;
    s->warned[kind] = now;
    return 1;
}

static void set_state(rw_sender *s, rw_state st)
{
    pthread_mutex_lock(&s->mu);
    s->st.state = st;
    pthread_mutex_unlock(&s->mu);
}

/* Sleeps up to seconds, waking early when stopped. */
static void nap(rw_sender *s, double seconds)
{
    uint64_t until = gw_mono_us() + (uint64_t)(seconds * 1e6);
    while (!s->stop) {
        uint64_t now = gw_mono_us();
        if (now >= until)
            break;
        rw_ring_wait(s->sh->ring, UINT64_MAX, now + (until - now < 200000 ? until - now : 200000), &s->stop);
    }
}

static int push(entries *b, const rw_entry *e)
{
    if (b->n == b->cap) {
        size_t nc = b->cap ? b->cap * 2 : 1024;
        rw_entry *grown = realloc(b->e, nc * sizeof *grown);
        if (!grown)
            return -1;
        b->e = grown;
        b->cap = nc;
    }
    b->e[b->n++] = *e;
    return 0;
}

/* ---- sending one request ---- */

static int encode(rw_sender *s, const rw_entry *e, size_t n, rw_encoded *info)
{
    rw_table_lock(s->sh->table);
    int rc = rw_encode(s->sh->table, e, n, s->version, &s->body, info);
    rw_table_unlock(s->sh->table);
    return rc;
}

/* The receiver does not take 2.0: every later request is 1.0. 1 when that was possible. */
static int fall_back(rw_sender *s, const char *why)
{
    if (s->ep->protocol != RW_PROTO_AUTO || s->version != 2)
        return 0;
    gw_log(GW_LOG_INFO, "remote write: the receiver does not take Remote-Write 2.0; sending 1.0",
           "remote_name=%s why=\"%s\"", s->ep->name, why);
    s->version = 1;
    pthread_mutex_lock(&s->mu);
    s->st.version = 1;
    pthread_mutex_unlock(&s->mu);
    return 1;
}

static void count_answer(rw_sender *s, int answered, long status, size_t bytes)
{
    pthread_mutex_lock(&s->mu);
    s->st.requests++;
    s->st.bytes += bytes;
    s->st.status_counts[answered ? (status / 100 >= 1 && status / 100 <= 5 ? status / 100 : 0) : 0]++;
    pthread_mutex_unlock(&s->mu);
}

/* The next wait: exponential from min_backoff, capped at max_backoff, with jitter (between half and
 * all of it), and at least what Retry-After asks (up to MAX_RETRY_AFTER_S). */
static double next_wait(rw_sender *s, double *backoff, double retry_after)
{
    double j = (double)(rand_r(&s->rng) % 1000) / 1000.0;
    double wait = *backoff * (0.5 + 0.5 * j);
    *backoff = fmin(*backoff * 2, s->ep->max_backoff_s);
    if (retry_after >= 0)
        wait = fmax(wait, fmin(retry_after, MAX_RETRY_AFTER_S));
    return wait;
}

/* Sends entries as one request until it is taken (SENT), refused for good (DROPPED) or the thread
 * stops (ABORTED). */
static int send_entries(rw_sender *s, const rw_entry *e, size_t n, int resent)
{
    rw_encoded info;
    if (n == 0)
        return SENT;
    if (encode(s, e, n, &info) != 0) {
        if (may_warn(s, WARN_MEMORY))
            gw_log(GW_LOG_ERROR, "remote write: out of memory encoding a request; its samples are dropped",
                   "remote_name=%s samples=%zu", s->ep->name, n);
        pthread_mutex_lock(&s->mu);
        s->st.samples_dropped += n;
        pthread_mutex_unlock(&s->mu);
        return DROPPED;
    }
    if (info.samples == 0)
        return SENT;
    double backoff = s->ep->min_backoff_s;
    uint64_t t0 = gw_mono_us();
    while (!s->stop) {
        rw_response r;
        int answered = rw_client_post(s->client, s->body.data, s->body.len, s->version, &r) == 0;
        count_answer(s, answered, r.status, s->body.len);
        int v2_unread = answered && s->version == 2 && r.status / 100 == 2 && !r.written_headers;
        int v2_refused = answered && s->version == 2 && (r.status == 415 || (r.status == 400 && !s->v2_taken));
        if ((v2_unread || v2_refused) && fall_back(s, v2_unread ? "2xx without Written headers" : "415 or 400")) {
            if (encode(s, e, n, &info) != 0)
                return DROPPED;
            continue;
        }
        if (answered && r.status / 100 == 2) {
            if (s->version == 2)
                s->v2_taken = 1;
            int64_t newest = 0;
            for (size_t i = 0; i < n; i++)
                newest = e[i].t_us > newest ? e[i].t_us : newest;
            pthread_mutex_lock(&s->mu);
            s->st.samples_sent += info.samples;
            if (resent)
                s->st.samples_resent += info.samples;
            s->st.batches++;
            s->st.batch_seconds_sum += (double)(gw_mono_us() - t0) / 1e6;
            if (newest > s->st.highest_sent_us)
                s->st.highest_sent_us = newest;
            pthread_mutex_unlock(&s->mu);
            return SENT;
        }
        int retry = !answered || r.status >= 500 || (r.status == 429 && s->ep->retry_on_429);
        if (!retry) {
            pthread_mutex_lock(&s->mu);
            s->st.samples_failed += info.samples;
            s->st.requests_failed++;
            pthread_mutex_unlock(&s->mu);
            if (may_warn(s, WARN_REJECTED))
                gw_log(GW_LOG_WARN, "remote write: the receiver refused a request; its samples are not retried",
                       "remote_name=%s status=%ld samples=%zu body=\"%s\"", s->ep->name, r.status, info.samples,
                       r.body);
            return DROPPED;
        }
        pthread_mutex_lock(&s->mu);
        s->st.samples_retried += info.samples;
        s->st.state = RW_STATE_RETRYING;
        pthread_mutex_unlock(&s->mu);
        double wait = next_wait(s, &backoff, answered ? r.retry_after_s : -1);
        if (may_warn(s, WARN_RETRY))
            gw_log(GW_LOG_WARN, "remote write: sending failed, retrying",
                   "remote_name=%s status=%ld error=\"%s\" body=\"%s\" retry_in_s=%.2f", s->ep->name, r.status,
                   answered ? "" : r.error, r.body, wait);
        nap(s, wait);
    }
    return ABORTED;
}

/* ---- what was acknowledged ---- */

static void save_progress(rw_sender *s)
{
    char err[256];
    if (s->persist && rw_progress_save(s->progress_path, s->ep->url, &s->acked, err, sizeof err) != 0 &&
        may_warn(s, WARN_PROGRESS))
        gw_log(GW_LOG_WARN, "remote write: cannot record progress", "remote_name=%s err=\"%s\"", s->ep->name, err);
}

/* The receiver has e[0..n): each GPU's newest time in it is acknowledged, but for the last entry's
 * sample when it may not be whole: the entry after it (next) is of the same GPU and time, or is not
 * known (NULL: the ring lost what followed). A sample's entries are contiguous (pushed at once), so
 * only the last one can be cut. */
static void acknowledge(rw_sender *s, const rw_entry *e, size_t n, const rw_entry *next)
{
    int64_t newest[RW_GPUS] = {0};
    for (size_t i = 0; i < n; i++)
        if (e[i].gpu < RW_GPUS && e[i].t_us > newest[e[i].gpu])
            newest[e[i].gpu] = e[i].t_us;
    const rw_entry *last = n ? &e[n - 1] : NULL;
    if (last && last->gpu < RW_GPUS && (!next || (next->gpu == last->gpu && next->t_us == last->t_us)))
        newest[last->gpu] = last->t_us - 1;
    for (int g = 0; g < RW_GPUS; g++)
        if (newest[g] > s->acked.acked_us[g])
            s->acked.acked_us[g] = newest[g];
    save_progress(s);
}

/* ---- resending from the history ---- */

/* When the ring overwrote entries from s->seq on, moves s->seq to the oldest kept one and past the
 * rest of the sample it belongs to (its first entries may be gone: it is resent whole from the
 * history). Returns how many were lost. */
static uint64_t skip_lost(rw_sender *s)
{
    rw_entry e;
    uint64_t lost, skipped, seq;
    rw_ring_read(s->sh->ring, &s->seq, &e, 0, &lost);
    if (!lost)
        return 0;
    seq = s->seq;
    if (rw_ring_read(s->sh->ring, &seq, &e, 1, &skipped) != 1)
        return lost;
    uint16_t gpu = e.gpu;
    int64_t t = e.t_us;
    for (;;) {
        seq = s->seq;
        if (rw_ring_read(s->sh->ring, &seq, &e, 1, &skipped) != 1 || skipped || e.gpu != gpu || e.t_us != t)
            break;
        s->seq = seq;
    }
    return lost;
}

static void begin_resend(rw_sender *s)
{
    if (s->resending)
        return;
    rw_converter_free(s->conv); /* a fresh one: no stale markers against an older resend */
    s->conv = rw_converter_new(s->sh->table);
    s->resending = s->conv != NULL;
    s->resend_started_us = (int64_t)gw_now_us();
    int64_t oldest_wanted = s->resend_started_us - (int64_t)(s->sh->settings->resend_max_age_s * 1e6);
    for (int g = 0; g < RW_GPUS; g++) /* a GPU the receiver never had a sample of is not resent */
        s->cursor_us[g] = s->acked.acked_us[g] > oldest_wanted ? s->acked.acked_us[g]
                          : s->acked.acked_us[g]               ? oldest_wanted
                                                               : 0;
    if (s->resending)
        set_state(s, RW_STATE_RESENDING);
}

/* Sends what was converted from the file, in requests of max_samples_per_send. */
static int send_slice(rw_sender *s)
{
    size_t max = (size_t)s->ep->max_samples_per_send;
    for (size_t at = 0; at < s->slice.n && !s->stop;) {
        size_t k = s->slice.n - at < max ? s->slice.n - at : max;
        int rc = send_entries(s, s->slice.e + at, k, 1);
        if (rc == ABORTED)
            return ABORTED;
        acknowledge(s, s->slice.e + at, k, at + k < s->slice.n ? &s->slice.e[at + k] : NULL);
        at += k;
    }
    return SENT;
}

/* The GPUs' identity as sampled now, for what is resent (NULL when out of memory; caller frees). */
static gpu_info *live_infos(const rw_shared *sh, rw_backfill_range *range)
{
    gpu_info *infos = malloc(RW_GPUS * sizeof *infos);
    pthread_mutex_lock(sh->mu);
    for (int g = 0; infos && g < RW_GPUS; g++) {
        infos[g] = sh->infos[g];
        range->live[g] = sh->have_info[g] ? &infos[g] : NULL;
    }
    pthread_mutex_unlock(sh->mu);
    return infos;
}

/* Reads range from the file into s->slice, this endpoint's series only. 0, or -1 (logged). */
static int read_slice(rw_sender *s, rw_backfill_range *range)
{
    const rw_shared *sh = s->sh;
    char err[256] = "out of memory";
    gpu_info *infos = live_infos(sh, range);
    rw_walk_context ctx = {.expo = sh->expo, .simulated = sh->simulated(sh->simulated_ctx)};
    int64_t newest[RW_GPUS] = {0};
    s->slice.n = 0;
    long got = infos ? rw_backfill_read(sh->db, s->conv, &ctx, range, newest, &s->slice.e, &s->slice.n, &s->slice.cap,
                                        err, sizeof err)
                     : -1;
    free(infos);
    if (got < 0) {
        if (may_warn(s, WARN_RESEND))
            gw_log(GW_LOG_WARN, "remote write: cannot read the history to resend", "remote_name=%s err=\"%s\"",
                   s->ep->name, err);
        return -1;
    }
    size_t k = 0;
    rw_table_lock(sh->table);
    for (size_t i = 0; i < s->slice.n; i++) {
        const rw_series *ser = rw_table_get(sh->table, &s->slice.e[i]);
        if (ser && (ser->keep & s->bit))
            s->slice.e[k++] = s->slice.e[i];
    }
    rw_table_unlock(sh->table);
    s->slice.n = k;
    return 0;
}

/* One step of resending: the next slice of what the receiver misses, each GPU from its cursor (what
 * it acknowledged, then what was resent), reading only what the file holds for sure
 * (FILE_MARGIN_US behind its newest sample). The resend is over when the ring holds every GPU's
 * samples from just after its cursor on: then the ring's entries the resend covered are skipped
 * (live_after). While the receiver was away the ring is full and overwrites on, its oldest entry
 * moving at the sampling's pace: the cursors move faster (resend_rate) and overtake it. */
static void resend_step(rw_sender *s)
{
    const rw_shared *sh = s->sh;
    skip_lost(s); /* the ring went on meanwhile: from its oldest whole sample */
    int64_t first[RW_GPUS];
    rw_ring_first_times(sh->ring, s->seq, first, RW_GPUS);
    rw_backfill_range range;
    memset(&range, 0, sizeof range);
    int64_t lower = INT64_MAX;
    for (int g = 0; g < RW_GPUS; g++) {
        /* a GPU the ring has nothing of: the file has all of it from when the resend began */
        int64_t bound = first[g] != INT64_MAX ? first[g] : s->resend_started_us + FILE_MARGIN_US;
        range.before_us[g] = INT64_MAX;
        range.after_us[g] = INT64_MAX;
        if (!s->cursor_us[g] || s->cursor_us[g] >= bound - 1)
            continue; /* nothing (left) to resend for it */
        range.after_us[g] = s->cursor_us[g];
        lower = s->cursor_us[g] < lower ? s->cursor_us[g] : lower;
    }
    if (lower == INT64_MAX) {
        for (int g = 0; g < RW_GPUS; g++)
            s->live_after_us[g] = s->cursor_us[g];
        s->resending = 0;
        set_state(s, RW_STATE_SENDING);
        return;
    }
    int64_t file_newest = 0;
    char err[256];
    if (history_newest_sample_us(sh->db, &file_newest, err, sizeof err) != 0) {
        if (may_warn(s, WARN_RESEND))
            gw_log(GW_LOG_WARN, "remote write: cannot read the history to resend", "remote_name=%s err=\"%s\"",
                   s->ep->name, err);
        nap(s, 1);
        return;
    }
    int64_t to = lower + RESEND_SLICE_US;
    if (file_newest - FILE_MARGIN_US < to)
        to = file_newest - FILE_MARGIN_US;
    if (to <= lower) {
        nap(s, 1); /* the file has not got that far yet */
        return;
    }
    range.from_us = lower + 1;
    range.to_us = to;
    uint64_t t0 = gw_mono_us();
    if (read_slice(s, &range) != 0) {
        nap(s, 1);
        return;
    }
    pthread_mutex_lock(&s->mu);
    s->holds_from = lower;
    pthread_mutex_unlock(&s->mu);
    if (send_slice(s) == ABORTED)
        return;
    for (int g = 0; g < RW_GPUS; g++)
        if (range.after_us[g] != INT64_MAX)
            s->cursor_us[g] = to;
    double took = (double)(gw_mono_us() - t0) / 1e6, budget = (double)s->slice.n / sh->settings->resend_rate;
    if (budget > took)
        nap(s, budget - took); /* at most resend_rate samples a second */
}

/* ---- the live stream ---- */

/* Takes this endpoint's entries from the ring into the batch, waiting at most until the batch's
 * deadline. Returns 1 when the ring lost entries this endpoint had not taken. */
static int fill_batch(rw_sender *s, uint64_t *deadline)
{
    const rw_shared *sh = s->sh;
    size_t max = (size_t)s->ep->max_samples_per_send;
    rw_entry chunk[256];
    while (!s->stop && s->batch.n < max) {
        uint64_t lost;
        size_t room = max - s->batch.n < 256 ? max - s->batch.n : 256;
        if (s->persist && skip_lost(s))
            return 1;
        rw_entry none;
        rw_ring_read(sh->ring, &s->seq, &none, 0, &lost);
        if (lost) {
            pthread_mutex_lock(&s->mu);
            s->st.samples_dropped += lost;
            pthread_mutex_unlock(&s->mu);
            if (may_warn(s, WARN_RESEND))
                gw_log(GW_LOG_WARN, "remote write: queue full, samples dropped (no history to resend them from)",
                       "remote_name=%s samples=%llu", s->ep->name, (unsigned long long)lost);
        }
        size_t n = rw_ring_read(sh->ring, &s->seq, chunk, room, &lost);
        rw_table_lock(sh->table);
        for (size_t i = 0; i < n; i++) {
            const rw_series *ser = rw_table_get(sh->table, &chunk[i]);
            if (chunk[i].gpu < RW_GPUS && chunk[i].t_us <= s->live_after_us[chunk[i].gpu])
                continue; /* resent from the history already */
            if (ser && (ser->keep & s->bit) && push(&s->batch, &chunk[i]) != 0) {
                pthread_mutex_lock(&s->mu);
                s->st.samples_dropped++;
                pthread_mutex_unlock(&s->mu);
            }
        }
        rw_table_unlock(sh->table);
        if (s->batch.n && !*deadline)
            *deadline = gw_mono_us() + (uint64_t)(s->ep->batch_send_deadline_s * 1e6);
        if (n == room)
            continue;
        uint64_t now = gw_mono_us();
        if (*deadline && now >= *deadline)
            break;
        rw_ring_wait(sh->ring, s->seq, *deadline ? *deadline : now + 1000000, &s->stop);
    }
    return 0;
}

static void send_live(rw_sender *s)
{
    uint64_t deadline = 0;
    int lost = fill_batch(s, &deadline);
    if (s->batch.n) {
        pthread_mutex_lock(&s->mu);
        s->holds_from = s->batch.e[0].t_us;
        pthread_mutex_unlock(&s->mu);
        int rc = send_entries(s, s->batch.e, s->batch.n, 0);
        if (rc == ABORTED)
            return;
        rw_entry next;
        uint64_t seq = s->seq, skipped;
        int have_next = rw_ring_read(s->sh->ring, &seq, &next, 1, &skipped) == 1 && !skipped;
        if (!have_next && !lost) /* nothing after it yet: the ring holds whole samples only */
            next = (rw_entry){.gpu = UINT16_MAX};
        acknowledge(s, s->batch.e, s->batch.n, have_next || !lost ? &next : NULL);
        s->batch.n = 0;
        set_state(s, RW_STATE_SENDING);
    }
    if (lost)
        begin_resend(s);
}

static void *sender_main(void *arg)
{
    rw_sender *s = arg;
    while (!s->stop) {
        pthread_mutex_lock(&s->mu);
        s->st.pending = rw_ring_pending(s->sh->ring, s->seq);
        s->holds_from = INT64_MAX;
        pthread_mutex_unlock(&s->mu);
        if (s->resending)
            resend_step(s);
        else
            send_live(s);
    }
    set_state(s, RW_STATE_STOPPED);
    return NULL;
}

rw_sender *rw_sender_start(const rw_shared *sh, int index, char *err, size_t n)
{
    rw_sender *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, n, "out of memory");
        return NULL;
    }
    s->sh = sh;
    s->ep = &sh->settings->ep[index];
    s->index = index;
    s->bit = 1u << index;
    s->version = s->ep->protocol == RW_PROTO_V1 ? 1 : 2;
    s->st.version = s->version;
    s->holds_from = INT64_MAX;
    s->rng = (unsigned)gw_now_us() ^ (unsigned)index;
    buf_init(&s->body);
    pthread_mutex_init(&s->mu, NULL);
    s->client = rw_client_new(s->ep, &s->stop, err, n);
    if (!s->client) {
        rw_sender_free(s);
        return NULL;
    }
    s->seq = rw_ring_head(sh->ring);
    if (sh->db) {
        s->persist = 1;
        rw_progress_path(sh->db, s->ep->name, s->progress_path, sizeof s->progress_path);
        char why[256];
        int rc = rw_progress_load(s->progress_path, s->ep->url, &s->acked, why, sizeof why);
        if (rc < 0)
            gw_log(GW_LOG_WARN, "remote write: progress not read; starting from now", "remote_name=%s err=\"%s\"",
                   s->ep->name, why);
        if (rc == 1)
            begin_resend(s); /* what the receiver missed while the agent was away */
    }
    if (pthread_create(&s->thread, NULL, sender_main, s) != 0) {
        snprintf(err, n, "cannot start a thread");
        rw_sender_free(s);
        return NULL;
    }
    s->started = 1;
    return s;
}

void rw_sender_stop(rw_sender *s)
{
    if (!s || !s->started)
        return;
    s->stop = 1;
    rw_ring_wake(s->sh->ring);
    pthread_join(s->thread, NULL);
    s->started = 0;
}

void rw_sender_free(rw_sender *s)
{
    if (!s)
        return;
    rw_sender_stop(s);
    rw_client_free(s->client);
    rw_converter_free(s->conv);
    free(s->batch.e);
    free(s->slice.e);
    buf_release(&s->body);
    pthread_mutex_destroy(&s->mu);
    free(s);
}

void rw_sender_get_stats(rw_sender *s, rw_sender_stats *out)
{
    pthread_mutex_lock(&s->mu);
    *out = s->st;
    pthread_mutex_unlock(&s->mu);
}

int64_t rw_sender_holds_from(rw_sender *s)
{
    pthread_mutex_lock(&s->mu);
    int64_t t = s->holds_from;
    pthread_mutex_unlock(&s->mu);
    return t;
}
