/* hsynth.h - synthetic training-8gpu-like samples (for the bench and tests; no GPU, no gpusim needed). */
#ifndef GPUWATCH_SYNTH_H
#define GPUWATCH_SYNTH_H

#include <stdint.h>
#include "sample.h"

typedef struct hsynth_gpu {
    uint64_t rng;
    double temp, energy_mj, viol_us;
    int capped;
} hsynth_gpu;

void hsynth_init(hsynth_gpu *g, int gpu);
/* The i-th 1 Hz sample of an H100 under a steady training load, at t_us. */
void hsynth_sample(hsynth_gpu *g, int gpu, int64_t t_us, gpu_sample *out);
void hsynth_info(int gpu, gpu_info *out);

#endif
