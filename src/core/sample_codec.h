/* sample_codec.h - exact (lossless) delta coding of one gpu_sample against the previous one, for the ring. */
#ifndef GPUWATCH_SAMPLE_CODEC_H
#define GPUWATCH_SAMPLE_CODEC_H

#include <stddef.h>
#include "sample.h"

/* The most bytes one coded sample takes. */
#define SCODEC_MAX (32 + (int)sizeof(metric_set) / 8 * 10 + M_COUNT * 13)

/* Coding state: the previous sample, with every metric's last present value. A block of samples
 * starts from scodec_reset() so it decodes on its own. */
void scodec_reset(gpu_sample *state);
/* Writes s coded against *state into out (SCODEC_MAX bytes of room), updates *state; returns the length. */
size_t scodec_put(unsigned char *out, gpu_sample *state, const gpu_sample *s);
/* Reads one coded sample from in[0, len) against *state, updates *state and writes the sample to *out
 * (absent metrics read 0); returns the bytes used, 0 when the data is cut short. */
size_t scodec_get(const unsigned char *in, size_t len, gpu_sample *state, gpu_sample *out);

#endif
