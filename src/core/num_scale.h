/* num_scale.h - most GPU readings are integers in some unit: whole numbers (degrees, MHz, MiB, %),
 * thousandths (W from mW, J from mJ) or 2^-20ths (MiB from bytes). The exact coders of the ring
 * (sample_codec.c) and of history's open chunks (spill.c) code such a value as the change of that
 * integer, a varint of a byte or two, where the XOR of two doubles leaves five to eight bytes.
 * Lossless: a value is taken as k at scale S only when (double)k / S gives back its very bits. */
#ifndef GPUWATCH_NUM_SCALE_H
#define GPUWATCH_NUM_SCALE_H

#include <stdint.h>
#include <string.h>

#define NUM_SCALES 3

static inline double num_scale(int s)
{
    return s == 0 ? 1.0 : s == 1 ? 1000.0 : 1048576.0;
}

/* k such that (double)k / scale(s) is bit for bit v: 0, or -1 when there is none. */
static inline int num_scaled(double v, int s, int64_t *k)
{
    double x = v * num_scale(s);
    if (!(x > -4503599627370496.0 && x < 4503599627370496.0))   /* |x| < 2^52 (and not NaN) */
        return -1;
    int64_t r = (int64_t)(x >= 0 ? x + 0.5 : x - 0.5);
    double back = (double)r / num_scale(s);
    if (memcmp(&back, &v, sizeof v) != 0)
        return -1;
    *k = r;
    return 0;
}

/* The first scale at which both prev and cur are exact integers (their ks in *kp, *kc), or -1. */
static inline int num_pick(double prev, double cur, int64_t *kp, int64_t *kc)
{
    for (int s = 0; s < NUM_SCALES; s++)
        if (num_scaled(cur, s, kc) == 0 && num_scaled(prev, s, kp) == 0)
            return s;
    return -1;
}

static inline uint64_t num_zigzag(int64_t d) { return ((uint64_t)d << 1) ^ (uint64_t)(d >> 63); }
static inline int64_t num_unzigzag(uint64_t u) { return (int64_t)(u >> 1) ^ -(int64_t)(u & 1); }

#endif
