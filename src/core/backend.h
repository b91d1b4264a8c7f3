/* backend.h - the small interface every GPU vendor backend implements (NVML is the first), and the
 * registry of the backends a program is built with. A backend reads hardware; the sampler
 * (sampler.h) is its only caller, and everything above works on gpu_info / gpu_sample / gpu_proc. */
#ifndef GPUWATCH_BACKEND_H
#define GPUWATCH_BACKEND_H

#include <stddef.h>
#include "sample.h"

/* open() failures; gpuwatch exits with status 3 on any of them, after one clear line. */
typedef enum {
    BK_OK = 0,
    BK_ERR_NO_LIBRARY, /* the vendor library could not be loaded */
    BK_ERR_NO_DRIVER,  /* library loaded, driver not */
    BK_ERR_PERMISSION,
    BK_ERR_OTHER
} backend_status;

typedef struct backend_versions {
    char driver[80];  /* "590.48.01" */
    char library[80]; /* NVML version, e.g. "13.590.48.01" */
    char cuda[16];    /* "13.1" */
    char backend[32]; /* "nvml" */
    int simulated;    /* 1 when the library is gpusim */
} backend_versions;

/* Count of failed backend calls by function and error, for the agent's own health series. */
typedef struct backend_error_count {
    const char *function;
    const char *error;
    uint64_t count;
} backend_error_count;

/* Where a GPU sits, for job placement (gpuwatch run). Peers are the GPUs of the same backend, by
 * their index in it (the sampler's accessor turns them into the sampler's indices). */
#define GW_TOPO_MAX_GPUS 64
#define GW_TOPO_MAX_CPUS 1024
typedef enum {
    TOPO_PATH_UNKNOWN = 0,
    TOPO_PATH_SWITCH,     /* behind one PCIe switch (or on one board) */
    TOPO_PATH_BRIDGES,    /* behind several PCIe bridges, not through the host bridge */
    TOPO_PATH_HOSTBRIDGE, /* under one host bridge */
    TOPO_PATH_NODE,       /* on one NUMA node */
    TOPO_PATH_SYSTEM      /* across NUMA nodes (SMP interconnect) */
} topo_path;

typedef struct gpu_topology {
    int has_cpus;
    uint64_t cpus[GW_TOPO_MAX_CPUS / 64];   /* the CPUs near the GPU (its NUMA node's), bit per CPU */
    int numa_node;                          /* -1 unknown */
    unsigned char path[GW_TOPO_MAX_GPUS];   /* topo_path to each peer (UNKNOWN for itself) */
    unsigned char nvlink[GW_TOPO_MAX_GPUS]; /* NVLinks to that peer (through NVSwitches too); 0: none */
} gpu_topology;

/* A GPU's lists that are no metric (the -q report's blocks): its retired pages (value: the address,
 * t_us: when), the driver's buffers of recent samples (value in the catalog's unit of the matching
 * metric, t_us: when), its supported memory clocks, and the graphics clocks supported with memory
 * clock arg (MHz). */
typedef enum {
    GPU_LIST_RETIRED_SBE, /* pages retired for multiple single-bit errors */
    GPU_LIST_RETIRED_DBE, /* ... for a double-bit error */
    GPU_LIST_SAMPLES_POWER,
    GPU_LIST_SAMPLES_GPU_UTIL,
    GPU_LIST_SAMPLES_MEM_UTIL,
    GPU_LIST_SAMPLES_ENC_UTIL,
    GPU_LIST_SAMPLES_DEC_UTIL,
    GPU_LIST_SAMPLES_SM_CLOCK,
    GPU_LIST_SAMPLES_MEM_CLOCK,
    GPU_LIST_MEM_CLOCKS,
    GPU_LIST_GR_CLOCKS
} gpu_list_kind;

typedef struct gpu_list_item {
    double value;
    uint64_t t_us; /* 0 when the list has no times */
} gpu_list_item;

typedef struct backend backend;
typedef struct backend_ops {
    const char *name;
    backend_status (*open)(backend **out, char *err, size_t errlen);
    void (*close)(backend *b);
    int (*gpu_count)(backend *b);
    /* Identity and static values: fills info and the MF_STATIC metrics of *statics. */
    gpu_status (*read_info)(backend *b, int gpu, gpu_info *info, gpu_sample *statics);
    /* Dynamic metrics in want (others may be skipped). Unsupported ones stay absent.
     * GPU_LOST marks the GPU lost; the next calls keep trying, so it is found again. */
    gpu_status (*read_sample)(backend *b, int gpu, const metric_set *want, gpu_sample *out);
    /* Processes on a GPU (NVML's view only: pid, type, memory, utilization). Returns count, <0 on error. */
    int (*read_processes)(backend *b, int gpu, gpu_proc *out, int max);
    void (*versions)(backend *b, backend_versions *out);
    /* Fills up to max error counters; returns how many. */
    int (*error_counts)(backend *b, backend_error_count *out, int max);
    /* Simulated backends only (NULL otherwise): sets the simulation's clock to t_s seconds of
     * scenario time, so that a replay reads a scenario's hours in seconds. 0, or -1. */
    int (*set_time)(backend *b, double t_s);
    /* Optional (NULL: no topology): the GPU's CPU affinity, NUMA node, and its PCIe path and NVLink
     * to every other GPU of this backend. 0, or -1 when the GPU cannot be read (lost). */
    int (*read_topology)(backend *b, int gpu, gpu_topology *out);
    /* Simulated backends only (NULL otherwise): the simulation's clock, seconds of scenario time
     * (what a caller relates its readings to when it checks them against a scenario); -1 unknown. */
    double (*get_time)(backend *b);
    /* Optional (NULL: none): one of the GPU's lists (gpu_list_kind), oldest first, at most max items.
     * Returns how many, or -1 when the GPU does not keep that list (or cannot be read). */
    int (*read_list)(backend *b, int gpu, gpu_list_kind kind, double arg, gpu_list_item *out, int max);
    /* Optional (NULL: none): the MIG devices of a GPU in MIG mode. Returns the count (0 with MIG mode
     * off), < 0 on error. */
    int (*read_mig)(backend *b, int gpu, gpu_mig *out, int max);
} backend_ops;

/* The registry, as nvtop's vendor table: the program registers its backends where it is assembled
 * (src/main.c), before a sampler opens; the sampler opens every registered backend and lists their
 * GPUs one after the other. Returns 0, or -1 when the table (BACKEND_MAX) is full. */
#define BACKEND_MAX 8
int backend_register(const backend_ops *ops);
/* The registered backends, in registration order; returns how many. */
int backend_registered(const backend_ops *const **out);

#endif
