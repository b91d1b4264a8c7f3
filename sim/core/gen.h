/* gen.h - value generators of a gpusim scenario (constant, ramp, sine, square, steps, csv)
 * with seeded noise and clamps, evaluated deterministically at a time t in seconds. */
#ifndef GPUSIM_GEN_H
#define GPUSIM_GEN_H

#include <stdint.h>

typedef enum { GEN_CONST, GEN_RAMP, GEN_SINE, GEN_SQUARE, GEN_STEPS, GEN_CSV } gen_kind;

typedef struct {
    double t, v;
} gen_point;

typedef struct sim_gen {
    gen_kind kind;
    union {
        double constant;
        struct {
            double from, to, duration, start;
        } ramp;
        struct {
            double mean, amplitude, period, phase;
        } sine;
        struct {
            double low, high, period, duty, phase;
        } square;
    } u;
    gen_point *pts; /* steps (hold) and csv (linear): sorted by t */
    int npts;
    double noise;          /* standard deviation of the seeded normal noise, 0 = none */
    double noise_interval; /* the noise value is held for this many seconds (default 1) */
    double min, max;       /* clamps, applied after noise */
    int has_min, has_max;
} sim_gen;

/* Value of g at time t. noise_key makes noise differ between GPUs/metrics (see noise_key()). */
double gen_eval(const sim_gen *g, double t, uint64_t noise_key);
/* Adds to out[n..] the times in (a, b) where g may jump or bend (step and square edges, ramp
 * ends, csv points, noise intervals, a sine's quarter periods), so that between two of them g
 * is constant, linear or a quarter sine. Returns the new count, or -1 if more than max. */
int gen_breaks(const sim_gen *g, double a, double b, double *out, int n, int max);
/* 1 when g is piecewise constant between its breaks (constant, square, steps). */
int gen_is_stepwise(const sim_gen *g);
/* A key for gen_eval from the scenario seed and up to two small ids (gpu index, metric...). */
uint64_t noise_key(uint64_t seed, uint32_t a, uint32_t b);

void gen_free(sim_gen *g);

#endif
