/* sample.h - what a backend hands to consumers: static GPU info, one sample of a GPU's
 * numeric metrics (with presence bits: an unsupported metric is absent, never 0),
 * and the processes on a GPU. Consumers read these; they never call a backend library. */
#ifndef GPUWATCH_SAMPLE_H
#define GPUWATCH_SAMPLE_H

#include <stdint.h>
#include "catalog.h"

#define GW_STR_LEN 96

/* Per GPU, read once. */
typedef struct gpu_info {
    int index;                       /* backend index (nvidia-smi's) */
    char str[M_STR_END][GW_STR_LEN]; /* string metrics, indexed by metric_id */
    metric_set str_present;          /* which strings were read */
} gpu_info;

typedef enum { GPU_OK = 0, GPU_LOST = 1, GPU_ERROR = 2 } gpu_status;

/* One reading of one GPU. Values are in the catalog's display units (see metric_def.unit). */
typedef struct gpu_sample {
    uint64_t t_us; /* CLOCK_REALTIME, microseconds */
    gpu_status status;
    metric_set present; /* which of v[] hold a value */
    double v[M_COUNT];  /* indexed by metric_id; string ids unused */
} gpu_sample;

static inline int sample_has(const gpu_sample *s, metric_id id)
{
    return mset_has(&s->present, id);
}
static inline void sample_set(gpu_sample *s, metric_id id, double v)
{
    s->v[id] = v;
    mset_add(&s->present, id);
}
/* Reads a metric, including MF_BIT metrics derived from their parent. 0 when absent. */
int sample_get(const gpu_sample *s, metric_id id, double *out);

/* One MIG device of a GPU in MIG mode (an instance of its compute: nvidia-smi -L's "MIG 3g.40gb
 * Device 0"), as read with the GPU's processes. */
#define GW_MIG_MAX 8
typedef struct gpu_mig {
    int index;             /* the MIG device's index under its GPU */
    unsigned gi, ci;       /* GPU instance id, compute instance id */
    char profile[32];      /* "3g.40gb" ("" unknown) */
    char uuid[GW_STR_LEN]; /* "MIG-..." */
    double mem_total_mib, mem_used_mib;
    int has_mem;
} gpu_mig;

typedef enum { PROC_COMPUTE = 1, PROC_GRAPHICS = 2, PROC_MPS = 4 } proc_type_bits;

/* One process using a GPU. Fields from /proc are empty when the pid is not visible here
 * (another pid namespace): the process is still listed with what the backend knows. */
typedef struct gpu_proc {
    int gpu; /* gpu index */
    unsigned pid;
    unsigned type; /* proc_type_bits */
    double mem_mib;
    int has_mem; /* GPU memory used */
    double sm_util;
    int has_sm; /* per-process utilizations, % */
    double mem_util;
    int has_memutil;
    double enc_util;
    int has_enc;
    double dec_util;
    int has_dec;
    char name[64];     /* comm (short name), or NVML's name */
    char cmdline[256]; /* full command line, spaces between args */
    char user[32];
    char container[160]; /* who it works for: workload_format's text (workload.h) */
    double cpu_percent;
    int has_cpu; /* host CPU use since the previous read */
    double rss_mib;
    int has_rss;           /* host resident memory */
    uint64_t start_time_s; /* process start, unix seconds (0 unknown) */
} gpu_proc;

#endif
