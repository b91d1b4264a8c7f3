/* model_phys.h - the physical core of the GPU model: instantaneous load, power, throttling
 * at time t for a given temperature state, and the state's integration on the SIM_DT grid. */
#ifndef GPUSIM_MODEL_PHYS_H
#define GPUSIM_MODEL_PHYS_H

#include <stdint.h>
#include "scenario.h"

typedef struct sim_inst {
    double util, memutil, smact; /* instantaneous activity, percent (what NVML averages) */
    double temp;                 /* GPU temperature used at t */
    double temp_mem;             /* HBM temperature used at t (HBM presets) */
    double limit;                /* enforced power limit, W */
    double power;                /* drawn, W */
    double clk_factor;           /* 1 = max clocks; below 1 when throttled */
    int busy;
    uint64_t bits; /* clock event reasons */
} sim_inst;

/* A metric's generator value at t, or dflt when the scenario does not give it. */
double phys_gen(const scenario *sc, const sim_gpu *g, metric_id m, double t, double dflt);
/* Instantaneous activity behind utilization.gpu / utilization.memory at t, percent (0..100):
 * the scenario's generator, else the processes' sm (memory: 0.4 x the GPU's). */
double phys_act_gpu(const scenario *sc, const sim_gpu *g, double t);
double phys_act_mem(const scenario *sc, const sim_gpu *g, double t);
/* Instantaneous quantities at t given the model's temperature state st. */
void phys_instant(const scenario *sc, const sim_gpu *g, double t, const sim_state *st, sim_inst *out);
/* Advances g->st to t's grid step and returns the state interpolated to t. */
void phys_state_at(const scenario *sc, sim_gpu *g, double t, sim_state *out);

#endif
