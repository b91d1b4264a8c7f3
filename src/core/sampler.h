/* sampler.h - opens a backend and reads GPUs into samples: the one place above the
 * backend that talks to it. It merges each GPU's static values into every sample,
 * tracks lost GPUs (and re-reads their identity when they come back), and enriches
 * process lists from /proc. Commands, the agent and the UI all read GPUs through it. */
#ifndef GPUWATCH_SAMPLER_H
#define GPUWATCH_SAMPLER_H

#include "backend.h"

typedef struct gw_gpu {
    gpu_info info;
    gpu_sample statics; /* MF_STATIC metrics, read once (again after a loss) */
    int have_info;      /* info/statics read successfully */
    int lost;           /* last read said GPU_LOST */
} gw_gpu;

typedef struct sampler {
    const backend_ops *ops;
    backend *b;
    int count;
    gw_gpu *gpus;
    backend_versions versions;
} sampler;

/* Opens the NVML backend. On failure writes one clear line into err and returns the status. */
backend_status sampler_open(sampler *s, char *err, size_t errlen);
void sampler_close(sampler *s);

/* Reads one GPU: the metrics in want (NULL = all), statics merged in, t_us set. */
gpu_status sampler_read(sampler *s, int gpu, const metric_set *want, gpu_sample *out);

/* Processes on one GPU, with user/command/container from /proc. Returns count (<= max), <0 on error. */
int sampler_read_processes(sampler *s, int gpu, gpu_proc *out, int max);

/* Exit status for a failed open (always 3). */
#define GW_EXIT_BACKEND 3
#define GW_EXIT_USAGE 2

#endif
