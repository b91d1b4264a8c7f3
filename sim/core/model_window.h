/* model_window.h - utilizations as NVML reports them: the mean of the instantaneous activity
 * over the GPU's utilization sample period ending at t (see model_window.c). */
#ifndef GPUSIM_MODEL_WINDOW_H
#define GPUSIM_MODEL_WINDOW_H

#include "model.h"

/* utilization.gpu / utilization.memory before rounding, percent. */
double win_gpu_util(const scenario *sc, const sim_gpu *g, double t);
double win_mem_util(const scenario *sc, const sim_gpu *g, double t);
/* A process's sm or mem (PF_SM, PF_MEM) before rounding: 0 while the process is not running. */
double win_proc(const scenario *sc, const sim_gpu *g, int proc, sim_proc_field f, double t);

#endif
