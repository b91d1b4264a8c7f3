/* query_procs.h - `gpuwatch query --processes`: compute apps as nvidia-smi --query-compute-apps
 * (pid, process_name, gpu_uuid, used_gpu_memory) plus user and container. */
#ifndef GPUWATCH_QUERY_PROCS_H
#define GPUWATCH_QUERY_PROCS_H

#include "sampler.h"
#include "options.h"

/* Prints the compute processes of the selected GPUs in o->format. Returns the exit status. */
int query_processes(sampler *s, const unsigned char *sel, const cli_opts *o);

#endif
