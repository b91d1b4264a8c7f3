/* sampler_pool.h - reads the GPUs of a sampler on reader threads, so that a backend call that
 * hangs on one GPU holds up only that GPU. Healthy GPUs share one reader (one wake-up a round); a
 * read still in progress after a quarter of a round's time (200 ms at least) gets its reader to
 * itself and the GPUs behind it move to a new one at once. A round asks each idle GPU for a sample and its processes
 * and waits for the answers until a deadline; a GPU whose read has not answered by then is left to
 * finish in its own time (it is not asked again until it has), and its result, late, is handed
 * over by a later round. Readers that never come back from the backend are abandoned when the
 * pool stops: the process can always end.
 *
 * One thread (the agent's sampler thread) calls round/take/stop; sampler_pool_interrupt may come
 * from any thread. While the pool runs, only its threads call the sampler's read functions. */
#ifndef GPUWATCH_SAMPLER_POOL_H
#define GPUWATCH_SAMPLER_POOL_H

#include <stdint.h>
#include "sampler.h"

typedef struct sampler_pool sampler_pool;

typedef enum {
    POOL_IDLE, /* nothing new: not asked (busy before the round) or already taken */
    POOL_DONE, /* a result is there (this round's, or a late one of an earlier round) */
    POOL_BUSY  /* still inside a read, since busy_since_us */
} pool_state;

/* What one read gave: the sample, the GPU's identity after it, its processes. */
typedef struct pool_result {
    gpu_sample sample; /* status and t_us set by sampler_read */
    gpu_info info;
    int have_info;
    int nprocs;          /* < 0: the process read failed (or none was asked for) */
    uint64_t took_us;    /* how long the read (sample and processes) took */
    uint64_t busy_since; /* POOL_BUSY: monotonic us the read began */

    /* its MIG devices, read with the processes (nmig < 0: not read) */
    gpu_mig mig[GW_MIG_MAX];
    int nmig;
} pool_result;

/* Starts the reader for the GPUs of s (s must stay open until the pool is stopped). max_procs:
 * room for each GPU's processes (0: processes are not read). NULL when out of memory or threads. */
sampler_pool *sampler_pool_start(sampler *s, int max_procs);

/* How many reader threads the pool has started (1, plus one for each GPU that was slow). */
int sampler_pool_threads(sampler_pool *p);

/* Asks every idle GPU with no result waiting for a sample (all metrics), its processes and MIG
 * devices, then waits until no GPU is inside a read (those of earlier rounds may end in time too),
 * the monotonic deadline_us passes, or the pool is interrupted. Returns how many GPUs were asked. */
int sampler_pool_round(sampler_pool *p, uint64_t deadline_us);

/* A GPU's state after a round. POOL_DONE: the result is copied into *out and procs[0..nprocs-1]
 * (procs has room for max_procs) and is handed over once. POOL_BUSY: out->busy_since is set. */
pool_state sampler_pool_take(sampler_pool *p, int gpu, pool_result *out, gpu_proc *procs);

/* Makes a round in progress return at once (any thread; stopping the agent). */
void sampler_pool_interrupt(sampler_pool *p);

/* Ends the threads: those that are idle at once, those inside a read until deadline_us; the ones
 * still inside the backend then are abandoned (detached; the pool's memory is then kept for
 * them). Returns how many were abandoned: when > 0 the sampler must not be closed (a call into it
 * is in progress), and the process should just exit. Frees the pool when none was. */
int sampler_pool_stop(sampler_pool *p, uint64_t deadline_us);

#endif
