/* rw_ring.h - the samples waiting to be sent, shared by every endpoint: a fixed ring of entries
 * numbered by sequence, each endpoint reading on from its own number. When it is full the oldest
 * entry is overwritten; an endpoint that had not sent it learns how many it lost (and resends them
 * from the history, or counts them dropped). Thread-safe. */
#ifndef GPUWATCH_RW_RING_H
#define GPUWATCH_RW_RING_H

#include <stddef.h>
#include <stdint.h>

/* One sample of one series. */
typedef struct rw_entry {
    uint32_t series; /* rw_table id */
    uint16_t gpu;    /* the GPU whose sample it comes from */
    uint16_t pad;
    int64_t t_us; /* the sample's time (CLOCK_REALTIME) */
    double v;     /* RW_STALE_NAN for a stale marker */
} rw_entry;

typedef struct rw_ring rw_ring;

/* NULL when out of memory. */
rw_ring *rw_ring_new(size_t capacity);
void rw_ring_free(rw_ring *r);
/* Appends n entries (overwriting the oldest) and wakes the readers. */
void rw_ring_push(rw_ring *r, const rw_entry *e, size_t n);
/* Copies at most max entries from sequence number *seq on and advances *seq past them. When entries
 * from *seq on were overwritten, *lost says how many (and reading starts at the oldest kept).
 * Returns how many were copied. */
size_t rw_ring_read(rw_ring *r, uint64_t *seq, rw_entry *out, size_t max, uint64_t *lost);
/* The sequence number the next pushed entry will get. */
uint64_t rw_ring_head(rw_ring *r);
/* Entries held from seq on (0 when seq is at the head). */
uint64_t rw_ring_pending(rw_ring *r, uint64_t seq);
/* For each GPU below ngpus: the time of its first entry from seq on, or INT64_MAX when it has none. */
void rw_ring_first_times(rw_ring *r, uint64_t seq, int64_t *first_us, int ngpus);
/* Waits until an entry with a number >= seq exists, *stop is set, rw_ring_wake is called or the
 * monotonic deadline_us passes. Returns 1 when there is such an entry. */
int rw_ring_wait(rw_ring *r, uint64_t seq, uint64_t deadline_us, const volatile int *stop);
void rw_ring_wake(rw_ring *r);

#endif
