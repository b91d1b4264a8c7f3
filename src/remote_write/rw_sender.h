/* rw_sender.h - one endpoint's thread: takes the samples from the shared ring in batches (by count
 * and by time), sends them, retries what may succeed later (5xx, 429, no answer) with capped
 * exponential backoff and jitter, honouring Retry-After, never retries the other 4xx (counted and
 * logged), falls back from 2.0 to 1.0 when the receiver does not take 2.0, and records what was
 * acknowledged. What it could not send in time (the ring overwrote it during an outage, or the
 * agent was restarted) it resends from the history, oldest first at a bounded rate, before going on
 * with the ring; without a history, that is counted as dropped. */
#ifndef GPUWATCH_RW_SENDER_H
#define GPUWATCH_RW_SENDER_H

#include <pthread.h>
#include <stdint.h>
#include "buf.h"
#include "rw_series.h"

#define RW_GPUS 64

/* What every endpoint shares with the engine. */
typedef struct rw_shared {
    const rw_settings *settings;
    rw_table *table;
    rw_ring *ring;
    const char *db; /* the history file, or NULL: nothing can be resent */
    const expo_options *expo;
    int (*simulated)(void *ctx);
    void *simulated_ctx;
    /* The GPUs' latest identity, under mu (for what is resent). */
    pthread_mutex_t *mu;
    const gpu_info *infos;
    const int *have_info;
} rw_shared;

typedef enum { RW_STATE_SENDING, RW_STATE_RESENDING, RW_STATE_RETRYING, RW_STATE_STOPPED } rw_state;

typedef struct rw_sender_stats {
    uint64_t samples_sent, samples_failed, samples_retried, samples_dropped, samples_resent;
    uint64_t requests, requests_failed, bytes;
    uint64_t status_counts[6]; /* answers by class: [2] 2xx, [4] 4xx, [5] 5xx, [0] none */
    double batch_seconds_sum;
    uint64_t batches;
    int64_t highest_sent_us;
    uint64_t pending; /* in the ring, not yet taken */
    int version;      /* in use: 1 or 2 */
    rw_state state;
} rw_sender_stats;

typedef struct rw_sender rw_sender;

/* Starts endpoint index's thread. NULL (why in err) when it cannot. */
rw_sender *rw_sender_start(const rw_shared *sh, int index, char *err, size_t n);
/* Ends the thread (a request in progress is abandoned within a moment); what was acknowledged is
 * already on disk. */
void rw_sender_stop(rw_sender *s);
void rw_sender_free(rw_sender *s);
void rw_sender_get_stats(rw_sender *s, rw_sender_stats *out);
/* The time of the oldest sample the endpoint still holds in a batch or may resend (INT64_MAX when
 * none): series newer than this must not be forgotten. */
int64_t rw_sender_holds_from(rw_sender *s);

#endif
