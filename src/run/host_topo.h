/* host_topo.h - binding a job to its GPUs' NUMA node: the CPUs NVML says are near each GPU (or, where
 * NVML has none, hwloc's PCI locality of the GPU's bus id), clamped with hwloc to the CPUs and NUMA
 * nodes this machine has (a simulated topology may name CPUs that do not exist here), and applied in
 * the job's process before it starts. */
#ifndef GPUWATCH_RUN_HOST_TOPO_H
#define GPUWATCH_RUN_HOST_TOPO_H

#include <sched.h>
#include "backend.h"

typedef struct run_binding {
    int cpu_bind; /* apply cpus */
    cpu_set_t cpus;
    char cpus_text[256];   /* "0-15,64-79": what is applied */
    char wanted_text[256]; /* the GPUs' CPUs as reported */
    int mem_bind;          /* apply nodes */
    unsigned long nodes[16];
    unsigned long maxnode; /* bits in nodes that set_mempolicy reads */
    char nodes_text[64];
    int clamped;    /* some reported CPUs or nodes do not exist here */
    char note[640]; /* what was done, in words, for the summary */
} run_binding;

/* Plans the binding of a job on n GPUs (their topologies and PCI bus ids, "" when unknown).
 * cpu_numa / mem_numa: --cpu-bind numa, --mem-bind numa. 0 (out filled; nothing bound when the GPUs'
 * CPUs are unknown or absent here, as note says), or -1 when hwloc cannot read this machine. */
int host_plan_binding(const gpu_topology *topos, const char (*bus_ids)[96], int n, int cpu_numa, int mem_numa,
                      run_binding *out);

/* Applies a plan to the calling process (the job, between fork and exec: system calls only).
 * 0, or -1 with errno set. */
int host_apply_binding(const run_binding *b);

#endif
