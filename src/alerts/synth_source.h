/* synth_source.h - an sample_source over samples given step by step (rules test, unit tests):
 * no agent, no clock, exact timestamps. */
#ifndef GPUWATCH_SYNTH_SOURCE_H
#define GPUWATCH_SYNTH_SOURCE_H

#include "alerts.h"

typedef struct synth_proc {
    int gpu;
    gpu_proc p;       /* pid, name, user */
    double *mem, *sm; /* per step; NaN = not known at that step */
    int n;
} synth_proc;

typedef struct synth {
    int gpus;
    int64_t start_us, step_us;
    int steps;              /* allocated steps per GPU */
    gpu_sample **s;         /* [gpu][step] */
    unsigned char **exists; /* [gpu][step]: a sample was taken */
    gpu_info *info;
    unsigned char *has_info;
    synth_proc *procs;
    int nprocs;
} synth;

/* The functions that allocate return 0, or -1 (NULL) when out of memory, y as it was: still usable
 * and freed with synth_free. */
int synth_init(synth *y, int gpus, int64_t start_us, int64_t step_us);
void synth_free(synth *y);
/* Sets a catalog metric at a step (the step's sample is created). */
int synth_set(synth *y, int gpu, int step, metric_id id, double v);
/* Marks the step's sample as taken with a status (GPU_LOST, GPU_ERROR) and no metric. */
int synth_status(synth *y, int gpu, int step, gpu_status st);
void synth_info(synth *y, int gpu, const char *name, const char *uuid);
/* A process on gpu; memory (MiB) or sm (%) at a step; what = 0 memory, 1 sm. */
synth_proc *synth_proc_get(synth *y, int gpu, unsigned pid, const char *name, const char *user);
int synth_proc_set(synth *y, synth_proc *p, int step, int what, double v);
void synth_source(synth *y, sample_source *src);

#endif
