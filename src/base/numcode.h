/* numcode.h - exact number coding primitives shared by the ring's sample codec (sample_codec.c) and
 * history's chunk codec and open-chunk spill (codec.c, spill.c): a double's bits, zigzag, varints,
 * and integers at a scale.
 *
 * Most GPU readings are integers in some unit: whole numbers (degrees, MHz, MiB, %), thousandths
 * (W from mW, J from mJ) or 2^-20ths (MiB from bytes). Coded as the change of that integer they cost
 * a varint of a byte or two, where the XOR of two doubles leaves five to eight bytes. Lossless: a
 * value is taken as k at factor S only when (double)k / S gives back its very bits. */
#ifndef GPUWATCH_NUMCODE_H
#define GPUWATCH_NUMCODE_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint64_t num_bits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

static inline double num_double(uint64_t u)
{
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

static inline uint64_t num_zigzag(int64_t d)
{
    return ((uint64_t)d << 1) ^ (uint64_t)(d >> 63);
}
static inline int64_t num_unzigzag(uint64_t u)
{
    return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

/* LEB128: writes v at p (at most 10 bytes); returns the bytes written. */
static inline size_t num_put_varint(unsigned char *p, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (unsigned char)v;
    return n;
}

/* Reads a varint at in[*pos] (in has len bytes); 0, or -1 when the data ends first. */
static inline int num_get_varint(const unsigned char *in, size_t len, size_t *pos, uint64_t *v)
{
    uint64_t r = 0;
    for (int shift = 0; shift < 64 && *pos < len; shift += 7) {
        unsigned char c = in[(*pos)++];
        r |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80)) {
            *v = r;
            return 0;
        }
    }
    return -1;
}

/* k such that (double)k / factor is bit for bit v (|k| <= 2^53): 0, or -1 when there is none. */
static inline int num_to_scaled(double v, double factor, int64_t *k)
{
    double s = v * factor;
    if (!isfinite(s) || fabs(s) > 9007199254740992.0)
        return -1;
    int64_t i = llround(s);
    double back = (double)i / factor;
    if (num_bits(back) != num_bits(v))
        return -1;
    *k = i;
    return 0;
}

/* The scales the sample and spill coders try, in order: whole, thousandths, 2^-20ths. */
#define NUM_SCALES 3

static inline double num_scale(int s)
{
    return s == 0 ? 1.0 : s == 1 ? 1000.0 : 1048576.0;
}

static inline int num_scaled(double v, int s, int64_t *k)
{
    return num_to_scaled(v, num_scale(s), k);
}

/* The first scale at which both prev and cur are exact integers (their ks in *kp, *kc), or -1. */
static inline int num_pick(double prev, double cur, int64_t *kp, int64_t *kc)
{
    for (int s = 0; s < NUM_SCALES; s++)
        if (num_scaled(cur, s, kc) == 0 && num_scaled(prev, s, kp) == 0)
            return s;
    return -1;
}

#endif
