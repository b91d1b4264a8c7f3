/* sample_source.h - where a consumer that looks back over time reads samples: a pipeline's ring and
 * latest processes (the agent's, top's local one) or a test's arrays. The alert engine and the
 * pipeline's plugins read through it and never know which it is. The diagnosis fills its window
 * from its own sources instead (diag_window_add_*). */
#ifndef GPUWATCH_SAMPLE_SOURCE_H
#define GPUWATCH_SAMPLE_SOURCE_H

#include <stdint.h>
#include "sample.h"

typedef struct sample_source {
    void *ctx;
    int (*gpu_count)(void *ctx);
    /* Identity of a GPU (UUID, name...); returns 0 when unknown. */
    int (*gpu_info)(void *ctx, int gpu, gpu_info *out);
    /* Calls fn for each sample of gpu with t_us >= since_us, oldest first. */
    void (*each)(void *ctx, int gpu, uint64_t since_us, void (*fn)(const gpu_sample *s, void *arg), void *arg);
    /* The newest sample of gpu taken at or before now_us; returns 0 when there is none. */
    int (*latest)(void *ctx, int gpu, int64_t now_us, gpu_sample *out);
    /* Processes on gpu at now_us; returns how many (<= max). NULL: no process information. */
    int (*procs)(void *ctx, int gpu, int64_t now_us, gpu_proc *out, int max);
    /* How many samples per GPU the source keeps (a ring's capacity); NULL or 0: unbounded. */
    int (*capacity)(void *ctx);
} sample_source;

#endif
