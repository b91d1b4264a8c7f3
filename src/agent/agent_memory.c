/* agent_memory.c - the agent's malloc settings and trims, so its RSS stays small over a long run.
 *
 * glibc gives every thread that allocates its own arena (up to 8 x cores), each with its own
 * high-water mark: the HTTP threads' response buffers would keep megabytes resident between
 * scrapes. One arena, a fixed 128 KiB mmap threshold (large page buffers go back at once when
 * freed) and an explicit malloc_trim once a burst of requests is over keep the heap near what
 * is in use. Elsewhere (not glibc) these are no-ops. */
#include "agent_memory.h"
#include <stdatomic.h>
#include <stdlib.h> /* defines __GLIBC__ */
#ifdef __GLIBC__
#include <malloc.h>
#endif

#define THRESHOLD (128 * 1024)

static atomic_ulong requests;
static unsigned long seen_requests; /* sampler thread only */
static int burst_open;              /* sampler thread only */

void agent_memory_setup(void)
{
#ifdef __GLIBC__
    mallopt(M_ARENA_MAX, 1);
    mallopt(M_MMAP_THRESHOLD, THRESHOLD);
    mallopt(M_TRIM_THRESHOLD, THRESHOLD);
#endif
}

void agent_memory_note_request(void)
{
    atomic_fetch_add_explicit(&requests, 1, memory_order_relaxed);
}

void agent_memory_trim(void)
{
#ifdef __GLIBC__
    malloc_trim(0);
#endif
}

void agent_memory_tick(void)
{
    unsigned long now = atomic_load_explicit(&requests, memory_order_relaxed);
    if (now != seen_requests) {
        seen_requests = now;
        burst_open = 1;
        return;
    }
    if (burst_open) {
        burst_open = 0;
        agent_memory_trim();
    }
}
