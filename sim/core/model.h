/* model.h - what a simulated GPU reports at time t: scenario generators where given, a
 * physical model elsewhere (power from load, lagged temperature, throttling, energy).
 * Values are in the catalog's units, already rounded to what NVML reports (integers, mW,
 * bytes), so `gpusim render` and the library agree exactly. Not thread-safe: callers serialize. */
#ifndef GPUSIM_MODEL_H
#define GPUSIM_MODEL_H

#include "scenario.h"

#define SIM_DT 0.2              /* seconds: the model's integration grid */
#define SIM_MAX_T (7 * 86400.0) /* scenario time is clamped to [0, one week] */
#define SIM_MAX_VALUE 1e15      /* metric values are clamped to [0, 1e15] */

/* 0 and *out set, or -1 when the metric is NOT_SUPPORTED on that GPU (or a string metric). */
int sim_value(scenario *sc, int gpu, metric_id m, double t, double *out);
/* utilization.gpu or utilization.memory at t as sim_value gives it, without the rest of the
 * model (no state is advanced, so earlier times cost nothing extra). -1 if unsupported. */
int sim_util_at(const scenario *sc, int gpu, metric_id m, double t, double *out);
/* PCIe rate of one lane per direction, MB/s, after encoding (gen 3: 985, 4: 1969, 5: 3938). */
double sim_pcie_lane_mbs(int gen);
/* 1 when the metric is NOT_SUPPORTED on that GPU. */
int sim_unsupported(const scenario *sc, int gpu, metric_id m);
/* Violation counters in ns at t: [0] power cap, [1] sw thermal, [2] hw thermal, [3] power brake. */
void sim_violations(scenario *sc, int gpu, double t, double ns[4]);
/* String metrics (name, uuid, serial, pci.bus_id, vbios, driver, pci ids). -1 if unsupported. */
int sim_string(const scenario *sc, int gpu, metric_id m, char *out, size_t n);
/* 1 when a `lost` fault covers that GPU at t. */
int sim_lost(const scenario *sc, int gpu, double t);

typedef struct sim_proc_sample {
    unsigned pid;
    unsigned type; /* SIM_PROC_* */
    double mem_mib;
    double sm, mem, enc, dec; /* percent; valid when has_util */
    int has_sm, has_mem, has_enc, has_dec;
    int gi, ci; /* its MIG device (-1: none) */
    const sim_proc *def;
} sim_proc_sample;

/* The curves of a process definition. */
typedef enum { PF_MEMORY, PF_SM, PF_MEM, PF_ENC, PF_DEC, PF_PCIE_RX, PF_PCIE_TX } sim_proc_field;
const sim_gen *sim_proc_gen(const sim_proc *p, sim_proc_field f);
/* Process `proc` of g's entry: that curve's value at t (>= 0), or -1 when not given. */
double sim_proc_value(const scenario *sc, const sim_gpu *g, int proc, sim_proc_field f, double t);
/* The SM activity a hung process (`hang:`) keeps on the GPU at t (the least of several), -1 when none
 * is hung. */
double sim_proc_hang_sm(const sim_gpu *g, double t);
/* Sum of the active processes' instantaneous sm (each at most 100): the GPU's default activity. */
double sim_proc_activity(const scenario *sc, const sim_gpu *g, double t);

/* Processes active on a GPU at t, in scenario order; returns the count (writes at most max).
 * sm and mem are averaged over the GPU's utilization period, as NVML reports them. */
int sim_processes(const scenario *sc, int gpu, double t, sim_proc_sample *out, int max);
/* pid of a process definition for copy `copy` of its gpu entry. */
unsigned sim_proc_pid(const sim_proc *p, int copy);

#endif
