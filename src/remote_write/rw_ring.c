/* rw_ring.c - the shared ring of samples waiting to be sent (see rw_ring.h). */
#include "rw_ring.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct rw_ring {
    pthread_mutex_t mu;
    pthread_cond_t more; /* CLOCK_MONOTONIC */
    rw_entry *e;
    size_t cap;
    uint64_t head; /* number of the next entry; entries [head - held, head) are kept */
    uint64_t held;
};

rw_ring *rw_ring_new(size_t capacity)
{
    rw_ring *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->e = malloc((capacity ? capacity : 1) * sizeof *r->e);
    if (!r->e) {
        free(r);
        return NULL;
    }
    r->cap = capacity ? capacity : 1;
    pthread_mutex_init(&r->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&r->more, &ca);
    pthread_condattr_destroy(&ca);
    return r;
}

void rw_ring_free(rw_ring *r)
{
    if (!r)
        return;
    pthread_mutex_destroy(&r->mu);
    pthread_cond_destroy(&r->more);
    free(r->e);
    free(r);
}

void rw_ring_push(rw_ring *r, const rw_entry *e, size_t n)
{
    pthread_mutex_lock(&r->mu);
    for (size_t i = 0; i < n; i++) {
        r->e[r->head % r->cap] = e[i];
        r->head++;
        if (r->held < r->cap)
            r->held++;
    }
    pthread_cond_broadcast(&r->more);
    pthread_mutex_unlock(&r->mu);
}

size_t rw_ring_read(rw_ring *r, uint64_t *seq, rw_entry *out, size_t max, uint64_t *lost)
{
    pthread_mutex_lock(&r->mu);
    uint64_t oldest = r->head - r->held;
    *lost = *seq < oldest ? oldest - *seq : 0;
    if (*seq < oldest)
        *seq = oldest;
    size_t n = 0;
    while (n < max && *seq < r->head) {
        out[n++] = r->e[*seq % r->cap];
        (*seq)++;
    }
    pthread_mutex_unlock(&r->mu);
    return n;
}

uint64_t rw_ring_head(rw_ring *r)
{
    pthread_mutex_lock(&r->mu);
    uint64_t h = r->head;
    pthread_mutex_unlock(&r->mu);
    return h;
}

uint64_t rw_ring_pending(rw_ring *r, uint64_t seq)
{
    pthread_mutex_lock(&r->mu);
    uint64_t oldest = r->head - r->held;
    uint64_t n = r->head - (seq < oldest ? oldest : seq > r->head ? r->head : seq);
    pthread_mutex_unlock(&r->mu);
    return n;
}

void rw_ring_first_times(rw_ring *r, uint64_t seq, int64_t *first_us, int ngpus)
{
    for (int g = 0; g < ngpus; g++)
        first_us[g] = INT64_MAX;
    pthread_mutex_lock(&r->mu);
    uint64_t oldest = r->head - r->held;
    int left = ngpus;
    for (uint64_t s = seq < oldest ? oldest : seq; s < r->head && left > 0; s++) {
        const rw_entry *e = &r->e[s % r->cap];
        if (e->gpu < ngpus && first_us[e->gpu] == INT64_MAX) {
            first_us[e->gpu] = e->t_us;
            left--;
        }
    }
    pthread_mutex_unlock(&r->mu);
}

int rw_ring_wait(rw_ring *r, uint64_t seq, uint64_t deadline_us, const volatile int *stop)
{
    struct timespec ts = {(time_t)(deadline_us / 1000000), (long)(deadline_us % 1000000) * 1000};
    pthread_mutex_lock(&r->mu);
    int woken = 0;
    while (r->head <= seq && !*stop && !woken) {
        if (pthread_cond_timedwait(&r->more, &r->mu, &ts) != 0)
            break;
        woken = 1; /* a push, or rw_ring_wake: the caller looks again */
    }
    int ready = r->head > seq;
    pthread_mutex_unlock(&r->mu);
    return ready;
}

void rw_ring_wake(rw_ring *r)
{
    pthread_mutex_lock(&r->mu);
    pthread_cond_broadcast(&r->more);
    pthread_mutex_unlock(&r->mu);
}
