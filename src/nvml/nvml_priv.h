/* nvml_priv.h - the NVML backend's internal state and the helpers its files share (not for other layers). */
#ifndef GPUWATCH_NVML_PRIV_H
#define GPUWATCH_NVML_PRIV_H

#include <pthread.h>
#include <stdint.h>
#include "backend.h"
#include "nvml_syms.h"

#define NV_GPM_IDS 9         /* GPM metrics gpuwatch reads (see nvml_gpm.c) */
#define NV_MAX_ERR_KINDS 128 /* distinct (function, error) pairs counted */

/* One GPU. Its state is under its own lock (each op about it takes it), so that a call that hangs
 * on one GPU does not hold up the others (NVML is thread safe). The XID fields and the handles are
 * also under backend.xid_lock (other GPUs' reads route events to them). */
typedef struct nv_gpu {
    pthread_mutex_t lock;
    int index;
    nvmlDevice_t dev;        /* NULL until a handle was obtained */
    nvmlDevice_t dev_prev;   /* the handle before the last loss: events queued for it are still its own */
    int lost;                /* the last call said GPU_IS_LOST (or no handle yet) */
    int driver_gone;         /* a call of this read said UNINITIALIZED / DRIVER_NOT_LOADED */
    metric_set unsup;        /* NOT_SUPPORTED: never asked again */
    int mem_v1;              /* MemoryInfo_v2 refused: use the v1 call */
    int temp_plain;          /* TemperatureV refused: use GetTemperature */
    int fields_off;          /* GetFieldValues refused: use the single getters */
    int mig_known, mig_on;   /* MIG mode as the reads last saw it (nvml_read.c, nvml_mig.c) */
    metric_set field_off;    /* metrics whose field value failed: read by their single getter */
    int nvl_fields_off;      /* NVLink: GetFieldValues refused, the per-link getters instead */
    int nvl_counter_getters; /* NVLink: the error counters' fields refused, their getter instead */
    /* MF_SLOW metrics kept between reads (nvml_cadence.c) */
    metric_set slow_have;
    uint64_t slow_t[M_COUNT]; /* when each was read (nv_clock_us) */
    double slow_v[M_COUNT];
    double slow_pstate; /* the pstate they were read at (-1 none) */
    unsigned pci_domain, pci_bus, pci_device;
    int have_pci;
    /* XID events */
    int xid_registered;
    unsigned xid_last;
    uint64_t xid_count;
    /* GPM */
    int gpm_support; /* 0 unknown, 1 yes, -1 no */
    int gpm_alloc;   /* gpm_prev and gpm_cur are allocated */
    nvmlGpmSample_t gpm_prev, gpm_cur;
    uint64_t gpm_prev_us; /* time of gpm_prev (nv_clock_us), 0 = none */
    double gpm_val[NV_GPM_IDS];
    unsigned gpm_have;           /* bit i: gpm_val[i] holds a value */
    nvmlGpmMetricsGet_t gpm_get; /* scratch for nvmlGpmMetricsGet */
    /* processes (scratch, grown on demand up to NV_MAX_LIST entries, never shrunk) */
    unsigned char *pbuf;
    size_t pbuf_cap; /* bytes */
    nvmlProcessUtilizationSample_t *ubuf;
    unsigned ubuf_cap; /* entries */
    unsigned long long putil_last_ts;
    unsigned proc_unsup; /* PROC_* bits of lists NOT_SUPPORTED, and NV_PROC_UTIL_UNSUP */
} nv_gpu;

/* A process's name (and, on gpusim, owner), asked once per pid and start time (nvml_names.c). */
typedef struct nv_name {
    unsigned pid;
    unsigned long long start; /* /proc start ticks; 0 when the pid is not visible here */
    uint64_t seen;            /* the read that last used it */
    char name[64], user[32], container[96];
    unsigned char have_name, have_owner;
} nv_name;
#define NV_NAMES 512

#define NV_PROC_UTIL_UNSUP 0x100u
/* The most entries a process list or utilization buffer holds, whatever the driver asks for: a
 * driver that keeps answering INSUFFICIENT_SIZE (or with a count it cannot mean) gets no more. */
#define NV_MAX_LIST 4096

typedef struct nv_err_kind {
    nv_sym sym;
    nvmlReturn_t code;
    uint64_t count;
} nv_err_kind;

struct backend {
    void *lib;
    nvml_fns fn;
    const char *sym_name[NV_SYM_COUNT];      /* name resolved, NULL when absent */
    unsigned char sym_variant[NV_SYM_COUNT]; /* index of that name in its list */
    int inited;
    int count;
    nv_gpu *gpus;
    backend_versions versions;
    metric_set dynamic;    /* metrics read per sample (not MF_STATIC, not strings) */
    metric_id bit_ids[16]; /* MF_BIT metrics (their parent is read for them) */
    int n_bit_ids;
    pthread_mutex_t lock;      /* calls about no GPU (set_time); each GPU has its own */
    nvmlEventSet_t events;     /* NULL when events are unavailable */
    pthread_mutex_t poll_lock; /* one reader drains the event set at a time (tried, never waited for) */
    pthread_mutex_t xid_lock;  /* the GPUs' XID fields and handles: held briefly, never across a call */
    pthread_mutex_t err_lock;  /* the counters only: error_counts does not wait for a read */
    nv_err_kind errs[NV_MAX_ERR_KINDS];
    int n_errs;
    uint64_t set_time_us;       /* a simulated clock set by set_time (+1, so 0 = the real clock) */
    uint64_t events_polled_us;  /* last drain of the event set (nv_clock_us) */
    pthread_mutex_t names_lock; /* the name cache: reads of several GPUs share it */
    nv_name names[NV_NAMES];
    int nnames;
    uint64_t names_round;
};

/* The backend's clock in us: the monotonic clock, or the time a replay set (set_time), so that
 * rates between two readings (GPM) follow the replayed time, not the wall clock. */
uint64_t nv_clock_us(const backend *b);

/* One read of one GPU: what the caller wants, where values go. */
/* What one read found of the NVLink links, summed over them (nvml_nvlink.c). */
typedef struct nvl_sums {
    double sum[NVL_NKINDS];
    int have[NVL_NKINDS];
} nvl_sums;

typedef struct nv_rd {
    backend *b;
    nv_gpu *g;
    metric_set want;
    gpu_sample *out;
    metric_set slow_taken; /* MF_SLOW metrics this read took from the cache */
    /* the links' rows of the field-value batch (nv_nvlink_fields): which link and counter each is */
    unsigned char nvl_link[NVLINK_NLINKS * NVL_NKINDS], nvl_kind[NVLINK_NLINKS * NVL_NKINDS];
    int nvl_rows;
    int nvl_read; /* the batch read the links: nv_nvlink_read only sums them */
    nvl_sums nvl;
} nv_rd;

/* nvml_load.c */
backend_status nv_load(backend *b, char *err, size_t errlen);
void nv_unload(backend *b);

/* nvml_errors.c */
const char *nv_return_name(nvmlReturn_t rc);
void nv_count_error(backend *b, nv_sym sym, nvmlReturn_t rc);
int nv_error_counts(backend *b, backend_error_count *out, int max);
/* Judges one call made for the metrics ids[0..n-1]: 1 = success, use the values. NOT_SUPPORTED and
 * FUNCTION_NOT_FOUND mark the metrics unsupported on this GPU; GPU_IS_LOST marks the GPU lost;
 * UNINITIALIZED and DRIVER_NOT_LOADED mark the read as failed (driver_gone); every other failure is
 * counted. */
int nv_check(nv_rd *r, nv_sym sym, nvmlReturn_t rc, const metric_id *ids, int n);
static inline int nv_check1(nv_rd *r, nv_sym sym, nvmlReturn_t rc, metric_id id)
{
    return nv_check(r, sym, rc, &id, 1);
}

/* The library does not do this call (as opposed to failing it this once): use an older one from now on. */
static inline int nv_refused(nvmlReturn_t rc)
{
    return rc == NVML_ERROR_NOT_SUPPORTED || rc == NVML_ERROR_FUNCTION_NOT_FOUND ||
           rc == NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
}

/* Whether a read should ask NVML for a metric: wanted, not known unsupported, not read yet by
 * this read (a field value, a cached MF_SLOW value), GPU not lost. (Callers also check that the
 * function pointer is not NULL.) */
static inline int nv_need(const nv_rd *r, metric_id id)
{
    return !r->g->lost && mset_has(&r->want, id) && !mset_has(&r->g->unsup, id) && !sample_has(r->out, id);
}
static inline void nv_set(nv_rd *r, metric_id id, double v)
{
    sample_set(r->out, id, v);
}
/* raw x scale, where a scale below 1 (0.001: mW -> W) divides by its inverse: 286082 / 1000.0 is the
 * double nearest 286.082 (what the text "286.082" reads as), which 286082 * 0.001 need not be. */
static inline double nv_scaled(double raw, double scale)
{
    return scale < 1 ? raw / (1.0 / scale) : raw * scale;
}
static inline void nv_unsupported(nv_rd *r, metric_id id)
{
    mset_add(&r->g->unsup, id);
}

/* nvml_backend.c */
/* The call's result says the driver is gone (unloaded or NVML no longer initialized). */
static inline int nv_driver_gone(nvmlReturn_t rc)
{
    return rc == NVML_ERROR_UNINITIALIZED || rc == NVML_ERROR_DRIVER_NOT_LOADED;
}

/* Gets a (new) handle for a GPU marked lost, one cheap call: GPU_OK when it can be read again. */
gpu_status nv_probe(backend *b, nv_gpu *g);

/* nvml_info.c */
gpu_status nv_read_info(backend *b, int gpu, gpu_info *info, gpu_sample *statics);
int nv_numa_from_sysfs(const char *root, unsigned domain, unsigned bus, unsigned device);

/* nvml_read.c, nvml_fields.c */
typedef nvmlReturn_t (*nv_u32_fn)(nvmlDevice_t, unsigned int *);
/* The common getter shape: one unsigned int, times scale (e.g. mW -> W). */
void nv_read_u32(nv_rd *r, nv_sym sym, nv_u32_fn fn, metric_id id, double scale);
gpu_status nv_read_sample(backend *b, int gpu, const metric_set *want, gpu_sample *out);
void nv_read_memory(nv_rd *r); /* the wanted ones of memory total/reserved/used/free */
void nv_read_fields(nv_rd *r);
/* A field value's number, whatever its type; 0 for a type that holds none. */
int nv_field_value(const nvmlFieldValue_t *f, double *out);

/* nvml_nvlink.c: NVLink links' state and error counters, per link and summed. The links' rows join
 * the field-value batch of nv_read_fields: nv_nvlink_fields writes them into fv (at most max) and
 * returns their count; nv_nvlink_fields_take reads their answers (rc: the call's, whose failure the
 * caller judges). nv_nvlink_read
 * then sums what the batch read, or reads the links itself (no batch, or the library refused it). */
int nv_nvlink_fields(nv_rd *r, nvmlFieldValue_t *fv, int max);
void nv_nvlink_fields_take(nv_rd *r, nvmlReturn_t rc, const nvmlFieldValue_t *fv);
void nv_nvlink_read(nv_rd *r);

/* nvml_compat.c: nvidia-smi's other --query-gpu fields; the static ones (and strings) with the
 * identity, the others per sample. */
void nv_compat_info(nv_rd *r, gpu_info *info);
void nv_compat_read(nv_rd *r);

/* nvml_events.c */
void nv_events_open(backend *b);
void nv_events_register(backend *b, nv_gpu *g);
void nv_events_read(nv_rd *r);
void nv_events_close(backend *b);

/* nvml_gpm.c */
void nv_gpm_read(nv_rd *r);
void nv_gpm_forget(nv_gpu *g);
void nv_gpm_close(backend *b);

/* nvml_cadence.c: MF_SLOW metrics kept between reads of a GPU (until the pstate changes, at most
 * NV_SLOW_US): take fills the fresh ones from the cache and removes them from the want (call it
 * once the pstate is read); keep stores what this read asked NVML for. */
#define NV_SLOW_US 10000000u
void nv_slow_take(nv_rd *r);
void nv_slow_keep(nv_rd *r);
void nv_slow_forget(nv_gpu *g);

/* nvml_names.c: the name (and gpusim owner) of each process, asked once per pid and start time. */
void nv_names_fill(backend *b, gpu_proc *out, int n);

/* nvml_lists.c: backend_ops.read_list (the caller holds nothing; it locks the GPU) */
int nv_read_list(backend *b, int gpu, gpu_list_kind kind, double arg, gpu_list_item *out, int max);

/* nvml_procs.c */
int nv_read_processes(backend *b, int gpu, gpu_proc *out, int max);

/* nvml_mig.c: backend_ops.read_mig */
int nv_read_mig_op(backend *b, int gpu, gpu_mig *out, int max);

/* nvml_topo.c: backend_ops.read_topology and get_time (the caller holds nothing; they lock) */
int nv_read_topology(backend *b, int gpu, gpu_topology *out);
double nv_get_time(backend *b);

#endif
