/* diag_cycles.h - does a GPU swing between busy and idle periodically? The levels, the cycles
 * (busy-to-idle transitions with hysteresis), their regularity, the autocorrelation peak, and
 * from them the period, duty cycle and idle-gap length. input_stall and low_util share it. */
#ifndef GPUWATCH_DIAG_CYCLES_H
#define GPUWATCH_DIAG_CYCLES_H

#include <stdint.h>
#include "diag_config.h"

typedef struct diag_cycles {
    int valid;           /* enough samples to judge */
    double p5, p50, p95; /* utilization percentiles, % */
    double idle_level;   /* median of the readings in idle phases, % */
    double busy_level;   /* median of the readings in busy phases, % */
    int cycles;          /* busy-to-idle transitions */
    double cv;           /* variation of the cycle lengths (sd / mean), -1 when < 3 cycles */
    double acf_peak;     /* autocorrelation at the period, 0 when none */
    double period_s;     /* 0 when none */
    double duty;         /* busy share of each cycle, 0..1 */
    double gap_s;        /* idle part of a cycle, seconds */
    int periodic;        /* regular cycles with a period within max_period_s */
} diag_cycles;

/* Whether the swing goes down to idle: p5 under input_stall.p5_util. A ripple that stays above it (a
 * fast loop whose bursts NVML's averaging always catches some of) is no stall. */
int diag_cycles_reach_idle(const diag_cycles *c, const diag_config *cfg);

/* t: increasing times (us) of the readings u (%), n of them, about step_us apart. */
void diag_cycles_analyze(const uint64_t *t, const float *u, int n, uint64_t step_us, const diag_config *cfg,
                         diag_cycles *out);

#endif
