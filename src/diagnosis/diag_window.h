/* diag_window.h - the diagnosis input model: a time window holding, per GPU, its identity and
 * limits and compact per-signal time series, the processes seen on each GPU over time, and
 * discrete events (XIDs, lost GPUs, ECC and row-remap changes). Any source (the agent's ring,
 * the history file, a replay) fills it through the diag_window_add_* calls; detectors read it. */
#ifndef GPUWATCH_DIAG_WINDOW_H
#define GPUWATCH_DIAG_WINDOW_H

#include <stdint.h>
#include <stddef.h>
#include "event.h"
#include "sample.h"

/* One signal over time: times in us (increasing) and values. An absent reading is not stored. */
typedef struct diag_series {
    uint64_t *t;
    float *v;
    int n;
    int cap;
} diag_series;

/* |a signal's reading| above this is not kept: no metric the window reads comes near it (memory in
 * MiB, PCIe in KB/s, counters, 32-bit bitmasks). */
#define DIAG_MAX_READING 4e9

/* The signals the detectors read, per GPU. Step signals keep only changes (a value holds until
 * the next point); the others keep every reading. */
typedef enum {
    DS_UTIL,         /* utilization.gpu, % */
    DS_MEM_UTIL,     /* utilization.memory, % */
    DS_MEM_USED,     /* memory.used, MiB */
    DS_POWER,        /* power.draw, W */
    DS_TEMP,         /* temperature.gpu, C */
    DS_TEMP_MEM,     /* temperature.memory (HBM), C */
    DS_CLOCK_SM,     /* clocks.current.sm, MHz */
    DS_SM_ACTIVE,    /* gpm.sm_active, % */
    DS_PCIE_RX,      /* pcie.rx_throughput, KB/s (or gpm.pcie_rx converted) */
    DS_PCIE_TX,      /* pcie.tx_throughput, KB/s (or gpm.pcie_tx converted) */
    DS_POWER_LIMIT,  /* step: enforced.power.limit, W */
    DS_CER,          /* step: clocks_event_reasons.active bitmask */
    DS_PCIE_GEN,     /* step: pcie.link.gen.current */
    DS_PCIE_WIDTH,   /* step: pcie.link.width.current */
    DS_PCIE_REPLAY,  /* step: pcie.replay_counter */
    DS_CLOCK_APP,    /* step: clocks.applications.graphics, MHz */
    DS_PSTATE,       /* step: pstate */
    DS_REMAP_COR,    /* step: remapped_rows.correctable */
    DS_REMAP_UNC,    /* step: remapped_rows.uncorrectable */
    DS_REMAP_PEND,   /* step: remapped_rows.pending */
    DS_REMAP_FAIL,   /* step: remapped_rows.failure */
    DS_REMAP_NONE,   /* step: remapped_rows.histogram.none (banks without a spare row) */
    DS_RETIRED_SBE,  /* step: retired_pages.single_bit_ecc.count */
    DS_RETIRED_DBE,  /* step: retired_pages.double_bit.count */
    DS_RETIRED_PEND, /* step: retired_pages.pending */
    DS_COUNT
} diag_signal;

#define DS_FIRST_STEP DS_POWER_LIMIT

/* The metric each signal is read from, and its display name and unit (for charts). */
metric_id diag_signal_metric(diag_signal s);
const char *diag_signal_name(diag_signal s);
const char *diag_signal_unit(diag_signal s);
/* Adds to want every per-sample metric the window reads (signals, event counters, NVLink per link), so
 * that a source sampling only what it shows (top) still feeds every detector. */
void diag_window_metrics(metric_set *want);

typedef enum {
    DIAG_EV_XID,      /* code = XID number (0 unknown), count = how many */
    DIAG_EV_GPU_LOST, /* the GPU stopped answering */
    DIAG_EV_GPU_BACK, /* it answers again */
    DIAG_EV_ECC_DBE   /* count = new uncorrectable ECC errors */
} diag_event_kind;

typedef struct diag_event {
    uint64_t t_us;
    int gpu;
    diag_event_kind kind;
    int code;
    int count;
} diag_event;

/* A stretch of process-list observations in which a process was listed every time. */
typedef struct diag_span {
    uint64_t from_us;
    uint64_t to_us;
} diag_span;

/* One process on one GPU (pid + name; a reused pid with another name is another process). */
typedef struct diag_proc {
    int gpu;
    unsigned pid;
    char name[64];
    char cmdline[256];
    char user[32];
    char container[96];
    uint64_t start_time_s; /* unix seconds, 0 unknown */
    int compute;           /* listed with a compute (or MPS) context, or of unknown type: it holds the GPU
                            * for a job; a graphics-only process (a display server) does not */
    diag_series mem;       /* used GPU memory, MiB */
    diag_series sm;        /* per-process SM utilization, % */
    diag_series cpu;       /* host CPU, % of one core */
    diag_span *spans;
    int n_spans;
    int cap_spans;
} diag_proc;

/* Identity and static limits of a GPU (NAN where unknown). */
typedef struct diag_gpu {
    int known; /* a sample or info was added for this index */
    int index;
    char name[GW_STR_LEN];
    char uuid[GW_STR_LEN];
    double power_default_w;
    double mem_total_mib;
    double temp_slowdown_c;
    double temp_shutdown_c;
    double temp_gpu_max_c; /* maximum operating temperature */
    double temp_mem_max_c;
    double clock_max_sm_mhz;
    double pcie_gen_max;
    double pcie_width_max;
    uint64_t first_us, last_us; /* first and last sample */
    int n_samples;
    diag_series s[DS_COUNT];
    diag_series nvl[NVLINK_NLINKS][NVL_NKINDS]; /* step: each NVLink link's state and error counters */
    diag_series nproc;    /* process-list observations: time, number of compute processes (graphics-only
                           * processes such as a display server do not hold the GPU for a job) */
    uint64_t last_obs_us; /* last process-list observation */
    event_deriver events; /* the samples before, to derive events (event.h) */
} diag_gpu;

/* What a job's own output said about GPU memory (diag_job_line): the PyTorch allocator's
 * out-of-memory error, or a step whose allocator had to flush its cache. Sizes in MiB, NAN when the
 * message did not give them. */
typedef enum { DIAG_NOTE_OOM, DIAG_NOTE_FLUSH } diag_note_kind;
typedef struct diag_job_note {
    uint64_t t_us;
    int gpu; /* from the text: the job's device number (-1 unknown); in a window: the GPU index */
    diag_note_kind kind;
    double tried_mib;       /* the allocation that failed */
    double capacity_mib;    /* the GPU's memory as PyTorch sees it */
    double free_mib;        /* free on the GPU then */
    double allocated_mib;   /* allocated by PyTorch (live tensors) */
    double reserved_mib;    /* reserved by the caching allocator (allocated + cached) */
    double unallocated_mib; /* reserved but unallocated: the cache's free blocks */
    int flushes;            /* DIAG_NOTE_FLUSH: cache flushes in that step */
} diag_job_note;

typedef struct diag_window {
    diag_gpu *gpus; /* indexed by GPU index; gpus[i].known says whether i was seen */
    int n_gpus;     /* highest index + 1 */
    diag_proc *procs;
    int n_procs;
    int cap_procs;
    diag_event *events;
    int n_events;
    int cap_events;
    diag_job_note *notes; /* time order, as added */
    int n_notes;
    int cap_notes;
    int oom;          /* an allocation failed: some data was dropped */
    int events_given; /* the source hands over the events of its samples: they are not derived here */
} diag_window;

diag_window *diag_window_new(void);
void diag_window_free(diag_window *w);

/* Adds one sample of GPU `gpu` (samples of a GPU in time order). info may be NULL; its name and
 * UUID are kept. Limits come from the sample's static metrics. Counters and status become
 * events (event_derive: XIDs, lost and back, uncorrectable ECC) unless the source gives them. */
void diag_window_add_sample(diag_window *w, int gpu, const gpu_info *info, const gpu_sample *s);
/* The source hands the window the events of its samples itself (diag_window_note_event, e.g. the
 * pipeline's, derived once for every plugin): add_sample no longer derives them. */
void diag_window_given_events(diag_window *w);

/* The processes on GPU `gpu` at t_us: the whole list, as read (an empty list says the GPU had
 * none). With gpu = -1 the list covers every GPU and each entry's own .gpu is used. */
void diag_window_add_processes(diag_window *w, int gpu, uint64_t t_us, const gpu_proc *p, int n);

/* Adds an event from a source that keeps them apart (the history's event table). An event equal
 * in GPU, kind and code to one already held within 5 s is the same event and is not added. */
void diag_window_add_event(diag_window *w, int gpu, uint64_t t_us, diag_event_kind kind, int code, int count);
/* The same from a typed event (event.h): xid, gpu_lost, gpu_back and ecc_dbe; the other kinds are
 * not the window's. */
void diag_window_note_event(diag_window *w, const gw_event *ev);

/* A line of a job's output (stdout or stderr): 1 and *out filled when it is one of the memory
 * messages diag_job_note describes, 0 otherwise. Pure: any text is safe. */
int diag_job_line(const char *line, diag_job_note *out);
/* Adds what a job said about GPU `gpu` (the index in this window) at t_us. */
void diag_window_add_note(diag_window *w, int gpu, uint64_t t_us, const diag_job_note *n);

/* Drops everything before t_us (a sliding window: add new samples, trim the old ones). */
void diag_window_trim(diag_window *w, uint64_t t_us);

/* First and last sample time over all GPUs; 0 when empty. */
int diag_window_span(const diag_window *w, uint64_t *from_us, uint64_t *to_us);

/* Bytes held by the window (for the agent's memory figures and the compactness test). */
size_t diag_window_bytes(const diag_window *w);

/* Series helpers shared by the window and the detectors. */
int diag_series_push(diag_series *s, uint64_t t, float v); /* 0, or -1 when out of memory */
void diag_series_trim(diag_series *s, uint64_t t_us, int keep_last_before);
void diag_series_free(diag_series *s);
/* Index of the last point at or before t (-1 when none). *hint speeds up increasing t. */
int diag_series_at(const diag_series *s, uint64_t t, int *hint);

#endif
