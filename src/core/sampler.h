/* sampler.h - opens the registered backends and reads GPUs into samples: the one place above the
 * backends that talks to them. It merges each GPU's static values into every sample, tracks lost
 * GPUs (and re-reads their identity when they come back), and enriches process lists from /proc.
 * Commands, the agent and the UI all read GPUs through it. */
#ifndef GPUWATCH_SAMPLER_H
#define GPUWATCH_SAMPLER_H

#include "backend.h"

typedef struct gw_gpu {
    gpu_info info;
    gpu_sample statics; /* MF_STATIC metrics, read once (again after a loss) */
    int have_info;      /* info/statics read successfully */
    int lost;           /* last read said GPU_LOST */
    int backend;        /* index into sampler.backends */
    int local;          /* the GPU's index in its backend */
} gw_gpu;

typedef struct sampler_backend {
    const backend_ops *ops;
    backend *b;
} sampler_backend;

/* Read-only for callers: change it through the functions below. */
typedef struct sampler {
    sampler_backend backends[BACKEND_MAX]; /* the registered backends that opened */
    int nbackends;
    int count; /* GPUs of every backend, in backend order */
    gw_gpu *gpus;
    backend_versions versions; /* the first backend's */
} sampler;

/* Opens every registered backend. Fails (one clear line in err, the first failure's status) when
 * none opens; a backend that fails beside one that opens is left out. */
backend_status sampler_open(sampler *s, char *err, size_t errlen);
/* The same, without reading any GPU's identity: each GPU's first sampler_read does. For the
 * pool's readers (sampler_pool.h), so that a call that hangs on one GPU at open holds up that GPU
 * only. */
backend_status sampler_open_deferred(sampler *s, char *err, size_t errlen);
void sampler_close(sampler *s);

/* Reads one GPU: the metrics in want (NULL = all), statics merged in, t_us set. */
gpu_status sampler_read(sampler *s, int gpu, const metric_set *want, gpu_sample *out);

/* Processes on one GPU, with user/command/container from /proc. Returns count (<= max), <0 on error. */
int sampler_read_processes(sampler *s, int gpu, gpu_proc *out, int max);
/* The same as the backend sees them (pid, type, memory, utilizations), for a caller that keeps its
 * own /proc cache (top). */
int sampler_read_backend_processes(sampler *s, int gpu, gpu_proc *out, int max);

/* The MIG devices of one GPU (backend_ops.read_mig): returns the count (<= max; 0 with MIG mode off
 * or a backend without MIG), < 0 on error. */
int sampler_read_mig(sampler *s, int gpu, gpu_mig *out, int max);

/* Counts of failed backend calls, of every backend; returns how many were filled (<= max). */
int sampler_error_counts(sampler *s, backend_error_count *out, int max);

/* Sets the clock of a simulated backend (every backend must be simulated): see backend_ops.set_time.
 * 0, or -1 when a backend cannot. */
int sampler_set_time(sampler *s, double t_s);

/* The topology of one GPU (backend_ops.read_topology), its peers given as sampler indices (GPUs of
 * other backends: TOPO_PATH_UNKNOWN); numa_node from the GPU's static numa_node when the backend
 * gives none. 0, or -1 when the backend has no topology or cannot read it. */
int sampler_read_topology(sampler *s, int gpu, gpu_topology *out);

/* One of a GPU's lists (backend_ops.read_list): how many items, or -1 when it has none to give. */
int sampler_read_list(sampler *s, int gpu, gpu_list_kind kind, double arg, gpu_list_item *out, int max);

/* The scenario time of a simulated backend (backend_ops.get_time), or -1. */
double sampler_sim_time(sampler *s);

/* The backends' names, joined with '+' ("nvml"). */
void sampler_backend_names(const sampler *s, char *out, size_t n);

/* Exit status for a failed open (always 3). */
#define GW_EXIT_BACKEND 3
#define GW_EXIT_USAGE 2

#endif
