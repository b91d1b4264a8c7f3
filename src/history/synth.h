/* synth.h - synthetic training-8gpu-like samples (for the bench and tests; no GPU, no gpusim needed). */
#ifndef GPUWATCH_SYNTH_H
#define GPUWATCH_SYNTH_H

#include <stdint.h>
#include "sample.h"

typedef struct synth_gpu {
    uint64_t rng;
    double temp, energy_mj, viol_us;
    int capped;
} synth_gpu;

void synth_init(synth_gpu *g, int gpu);
/* The i-th 1 Hz sample of an H100 under a steady training load, at t_us. */
void synth_sample(synth_gpu *g, int gpu, int64_t t_us, gpu_sample *out);
void synth_info(int gpu, gpu_info *out);

#endif
