/* ring.h - in-memory ring buffer of recent samples per GPU (a pipeline's short memory: the agent's, top's).
 * One writer (the sampler thread), many readers (HTTP, UI, rules); readers get copies. */
#ifndef GPUWATCH_RING_H
#define GPUWATCH_RING_H

#include <stddef.h>
#include "sample.h"

typedef struct ring ring;

ring *ring_new(int gpus, int capacity); /* capacity samples per GPU */
void ring_free(ring *r);
void ring_push(ring *r, int gpu, const gpu_sample *s);
/* Latest sample of a GPU; returns 0 when there is none yet. */
int ring_latest(ring *r, int gpu, gpu_sample *out);
/* Samples with t_us >= since_us, oldest first, at most max; returns how many. */
int ring_range(ring *r, int gpu, uint64_t since_us, gpu_sample *out, int max);
/* Calls fn for each sample with t_us >= since_us, oldest first, under the lock (no copies). */
void ring_each(ring *r, int gpu, uint64_t since_us, void (*fn)(const gpu_sample *s, void *ctx), void *ctx);
int ring_capacity(const ring *r);
/* Bytes the ring holds now (blocks and bookkeeping), for benchmarks and diagnostics. */
size_t ring_bytes(ring *r);
int ring_gpus(const ring *r);

#endif
