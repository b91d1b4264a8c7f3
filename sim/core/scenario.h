/* scenario.h - a parsed gpusim scenario: GPUs (from presets, with per-metric generators),
 * processes, XID events and faults. Loaded from YAML by scenario_load(); see docs/gpusim.md. */
#ifndef GPUSIM_SCENARIO_H
#define GPUSIM_SCENARIO_H

#include <stdint.h>
#include <stddef.h>
#include "catalog.h"
#include "gen.h"
#include "preset.h"

#define SIM_MAX_GPUS 64
#define SIM_NAME_LEN 96
#define SIM_MAX_MIG 7 /* MIG devices a GPU can be split into (H100, A100: 7) */

typedef enum { PID_NUMBER, PID_SELF, PID_PARENT } sim_pid_kind;
enum { SIM_PROC_COMPUTE = 1, SIM_PROC_GRAPHICS = 2 };

typedef struct sim_proc {
    sim_pid_kind pid_kind;
    unsigned pid, pid_stride; /* copy k of a `count: N` entry gets pid + k * pid_stride */
    char name[64], user[32], container[SIM_NAME_LEN];
    char command[256];                          /* the command line ("" = none); {copy} stands for the copy's number */
    unsigned type;                              /* SIM_PROC_* bits */
    sim_gen *memory_mib, *sm, *mem, *enc, *dec; /* NULL: memory 0, utilizations absent */
    sim_gen *pcie_rx, *pcie_tx;                 /* host->device / device->host, GB/s (NULL: none) */
    int pcie_rx_pct, pcie_tx_pct;               /* 1: that rate is a percentage of the link instead */
    double start, end;                          /* active in [start, end) */
    double hang_from;                           /* from then a kernel that never ends (a collective
                                                 * waiting for a peer): INFINITY = never */
    double hang_sm;                             /* while hung: the SM activity it keeps, % */
    int gi, ci;                                 /* the MIG device it runs on (GPU and compute instance), -1: none */
} sim_proc;

/* One MIG device of a GPU in MIG mode (`mig:`): a GPU instance's compute instance. */
typedef struct sim_mig {
    char profile[32];        /* "3g.40gb" */
    unsigned gi, ci;         /* GPU instance id, compute instance id */
    double memory_mib;       /* its share of the memory */
    double used_mib;         /* in use besides its processes' memory (the instance's own) */
    unsigned sm_count;       /* multiprocessors */
    char uuid[SIM_NAME_LEN]; /* "" = made from the GPU's UUID and the instance ids */
} sim_mig;

/* One entry of `gpus:` (count copies share it). */
typedef struct sim_gpu_spec {
    sim_preset p; /* preset values with the entry's overrides applied */
    char name[SIM_NAME_LEN], vbios[32];
    char uuid[SIM_NAME_LEN], serial[32], pci_bus_id[32]; /* overrides, "" = generated */
    double power_default_w;                              /* the preset's (hardware) default power limit */
    int count;
    int numa_node;            /* -1 = derived from the index */
    int pcie_idle_gen;        /* > 0: the link trains down to this generation while the GPU idles */
    double locked_clock_mhz;  /* > 0: graphics and SM clocks locked at most this (nvidia-smi -lgc) */
    sim_gen *metric[M_COUNT]; /* NULL = physical default */
    metric_set unsupported;   /* NOT_SUPPORTED metrics (listed and preset-implied) */
    sim_proc *procs;
    int nprocs;
    sim_mig *mig; /* MIG devices, in MIG device index order (none: MIG mode off) */
    int nmig;
} sim_gpu_spec;

/* Integration state of the physical model, on the fixed time grid (see model.c). */
typedef struct sim_state {
    int64_t k;       /* grid step the state is at; -1 = not started */
    double temp;     /* GPU temperature, C */
    double temp_mem; /* HBM temperature, C (HBM presets) */
    double energy_mj;
    double viol_ns[4]; /* power cap, sw thermal, hw thermal, power brake */
} sim_state;

typedef struct sim_gpu {
    int index;
    int copy; /* which copy of its spec */
    const sim_gpu_spec *spec;
    char uuid[SIM_NAME_LEN], serial[32], pci_bus_id[32];
    unsigned pci_bus;
    sim_state st;
    int cache_ok; /* cache_v holds every metric at cache_t */
    double cache_t;
    double cache_v[M_COUNT];
} sim_gpu;

typedef struct sim_event {
    double at;
    int gpu;
    unsigned xid;
    int seq; /* its place in the scenario's list (the list is kept sorted by GPU, then time) */
} sim_event;

typedef enum {
    FAULT_LOST,
    FAULT_ERROR,
    FAULT_DELAY,
    FAULT_MISSING,
    FAULT_HANG,        /* the call blocks until `to` (for good without one) */
    FAULT_DRIVER_GONE, /* every call fails as if the driver had been unloaded */
    FAULT_COUNT        /* a count-returning call reports a wrong count (size games) */
} sim_fault_kind;

/* FAULT_COUNT: what the call reports in *count. */
typedef enum {
    COUNT_VALUE, /* count_value */
    COUNT_SAME,  /* the count the caller passed in (no usable answer) */
    COUNT_GROW   /* always more than the caller passed in (2n + 1) */
} sim_count_mode;

typedef struct sim_fault {
    sim_fault_kind kind;
    char function[64]; /* "" = every function (lost, driver gone); "*" = any function */
    int gpu;           /* -1 = any */
    double from, to;   /* active in [from, to) */
    unsigned every;    /* error, count: only every Nth matching call (0/1 = all) */
    int error;         /* nvmlReturn_t; FAULT_COUNT: INSUFFICIENT_SIZE or SUCCESS */
    unsigned delay_ms;
    sim_count_mode count_mode;
    unsigned count_value;
    unsigned long calls; /* matching calls so far (runtime counter) */
} sim_fault;

#define SIM_MAX_NUMA 64
#define SIM_MAX_CPUS 1024
#define SIM_CPU_WORDS (SIM_MAX_CPUS / 64)

/* Host topology for job placement (`topology:`, defaults from the GPU count; see topology.c). */
typedef struct sim_topology {
    int numa_cpus_given;                             /* 0: the host's CPUs split evenly between the nodes */
    uint64_t numa_cpus[SIM_MAX_NUMA][SIM_CPU_WORDS]; /* CPUs of each NUMA node, when given */
    int numa[SIM_MAX_GPUS];                          /* NUMA node of each GPU */
    int pcie_switch[SIM_MAX_GPUS];                   /* PCIe switch of each GPU, -1: none */
    int nvlink[SIM_MAX_GPUS];                        /* NVLink group of each GPU, -1: none */
    int nvswitch;                                    /* 1: groups are NVSwitch fabrics, 0: NVLink bridges */
} sim_topology;

typedef struct scenario {
    char path[4096];
    uint64_t seed;
    char driver_version[80], nvml_version[80];
    int cuda_version;
    sim_gpu_spec *specs;
    int nspecs;
    sim_gpu gpus[SIM_MAX_GPUS];
    int ngpus;
    sim_event *events; /* sorted by GPU, then time, then seq */
    int nevents;
    sim_fault *faults;
    int nfaults;
    double quantum[M_COUNT]; /* values are rounded to 1/quantum (1 = integers, 0 = not rounded) */
    sim_topology topo;
} scenario;

/* The XID events of one GPU, in time order (then the order the scenario lists them): their count,
 * with *first the first of them. O(log n). */
int scenario_gpu_events(const scenario *sc, int gpu, const sim_event **first);

/* Loads a scenario file. NULL on error, with "FILE:LINE:COL: what was expected" in err. */
scenario *scenario_load(const char *path, char *err, size_t errlen);
/* Same, from text; name is used in messages, dir resolves relative csv files (may be NULL). */
scenario *scenario_parse(const char *name, const char *dir, const char *text, size_t len, char *err, size_t errlen);
/* The built-in scenario used when none is given: one idle h100-sxm. */
scenario *scenario_default(void);
void scenario_free(scenario *sc);

#endif
