/* agent_read.h - a running gpuwatch agent as the source of a job's readings (so the GPUs are not
 * sampled twice): its GPUs with their latest samples (/api/v1/gpus), the processes on them
 * (/api/v1/processes) and recent utilization (/api/v1/samples). */
#ifndef GPUWATCH_RUN_AGENT_READ_H
#define GPUWATCH_RUN_AGENT_READ_H

#include <stddef.h>
#include "sample.h"

typedef struct agent_reader agent_reader;

/* Connects to HOST:PORT and reads /api/v1/gpus once. NULL with the reason in err. */
agent_reader *agent_reader_open(const char *host, long timeout_ms, char *err, size_t n);
void agent_reader_close(agent_reader *a);
const char *agent_reader_base(const agent_reader *a);

/* The agent's GPUs: identity, latest sample (status GPU_LOST when lost). Returns how many, or -1. */
int agent_reader_gpus(agent_reader *a, gpu_info *info, gpu_sample *s, int max, char *err, size_t n);
/* The processes on every GPU. Returns how many, or -1. */
int agent_reader_procs(agent_reader *a, gpu_proc *out, int max, char *err, size_t n);
/* Mean utilization.gpu of each GPU over the last window_s (NAN when none). 0, or -1. */
int agent_reader_util(agent_reader *a, double window_s, double *util, int max);

#endif
