/* diag_internal.h - what the detectors share inside the diagnosis layer: the run context, a
 * per-GPU view prepared once per run (utilization with "held by a process" marks, percentiles,
 * the periodicity analysis), look-ups of other signals at a reading's time, and helpers that
 * fill a finding's processes and chart. Each detector is one det_*.c file and one table row. */
#ifndef GPUWATCH_DIAG_INTERNAL_H
#define GPUWATCH_DIAG_INTERNAL_H

#include <limits.h>
#include "diag.h"
#include "diag_fleet.h"
#include "diag_cycles.h"
#include "diag_stats.h"

/* Marks detectors leave on a GPU for the ones that run after them. */
enum {
    VIEW_STALL = 1u << 0,      /* input_stall found it */
    VIEW_IMBALANCED = 1u << 1, /* imbalance named it */
    VIEW_LAUNCH = 1u << 2,     /* launch_bound found it */
    VIEW_PCIE = 1u << 3,       /* pcie_bound found it */
    VIEW_HANG = 1u << 4        /* collective_hang found its job hung (hung, or the odd GPU out) */
};

/* Clock event reason bits (NVML's nvmlClocksEventReason* values). */
#define CER_SW_POWER_CAP 0x4u
#define CER_HW_SLOWDOWN 0x8u
#define CER_SW_THERMAL 0x20u
#define CER_HW_THERMAL 0x40u
#define CER_HW_POWER_BRAKE 0x80u

typedef struct diag_gpu_view {
    const diag_gpu *g;
    int gpu;
    int n; /* utilization readings (0: nothing to judge) */
    const uint64_t *t;
    const float *u;
    uint64_t step_us;  /* median spacing of the readings */
    int procs_known;   /* process lists were read for this GPU */
    signed char *held; /* per reading: 1 a process holds the GPU, 0 none, -1 unknown */
    int n_act;         /* readings while held (or unknown): the job's time */
    uint64_t *t_act;   /* their times, with gaps between jobs closed up */
    float *u_act;
    double act_s;              /* seconds covered by them */
    uint64_t act_from, act_to; /* first and last of them (real times) */
    int cycles_done;
    diag_cycles cycles;
    unsigned flags;
} diag_gpu_view;

typedef struct diag_ctx {
    const diag_window *w;
    const diag_config *cfg;
    diag_report *out;
    diag_gpu_view *views; /* indexed by GPU index */
    int n_views;
    uint64_t from_us, to_us; /* the window */
    const diag_report *prev; /* the previous run's report (diag_run_from), NULL when none */
} diag_ctx;

typedef struct diag_detector {
    const char *id;
    void (*run)(diag_ctx *c);
    size_t enabled_off; /* offset of its .enabled in diag_config */
} diag_detector;

/* The detectors, in run order (diag_run.c). */
extern const diag_detector diag_detectors[];
extern const int diag_n_detectors;

void det_hw_health(diag_ctx *c);
void det_app_fault(diag_ctx *c);
void det_row_remap(diag_ctx *c);
void det_nvlink_errors(diag_ctx *c);
void det_pcie_degraded(diag_ctx *c);
void det_clocks_low(diag_ctx *c);
void det_alloc_fragmentation(diag_ctx *c);
void det_collective_hang(diag_ctx *c);
void det_thermal(diag_ctx *c);
void det_power_cap(diag_ctx *c);
void det_memory_full(diag_ctx *c);
void det_memory_leak(diag_ctx *c);
void det_idle_holding(diag_ctx *c);
void det_input_stall(diag_ctx *c);
void det_launch_bound(diag_ctx *c);
void det_pcie_bound(diag_ctx *c);
void det_imbalance(diag_ctx *c);
void det_low_util(diag_ctx *c);

/* diag_straggler.c: the members of a job (diag_fleet.h's summaries) compared with each other. */
typedef enum { STRAGGLER_CLOCK, STRAGGLER_POWER, STRAGGLER_THROTTLE } straggler_why;
typedef struct diag_straggler {
    int member;          /* index in the members */
    straggler_why why;   /* the reason most of its slow buckets had */
    double share;        /* slow buckets / busy buckets */
    double slow_s;       /* seconds slow */
    double mine, others; /* its mean and the others' median (clock MHz, power W, throttled share) */
    double deficit;      /* 1 - its pace / the others' (clock or power; a throttled bucket's clock) */
    uint64_t from_us, to_us;
} diag_straggler;
/* The stragglers among n members over [from_us, to_us] (their buckets): into out, at most max.
 * Returns how many. */
int diag_straggler_scan(const diag_member *m, int n, const diag_config *cfg, uint64_t from_us, uint64_t to_us,
                        diag_straggler *out, int max);
/* Median of the finite values of v[0..n) but v[skip] (NAN when none); v is reordered. */
double diag_median_but(float *v, int n, int skip);

/* a + b, held at INT_MAX: event counts from a source are summed */
static inline int diag_count_add(int a, int b)
{
    return b > 0 && a > INT_MAX - b ? INT_MAX : a + b;
}

/* diag_ctx.c */
int diag_ctx_init(diag_ctx *c, const diag_window *w, const diag_config *cfg, diag_report *out);
void diag_ctx_free(diag_ctx *c);
const diag_cycles *diag_view_cycles(diag_ctx *c, diag_gpu_view *v);
/* The reading of s at t: exact or the last one before t within tol_us; NAN when none. */
double diag_at(const diag_series *s, uint64_t t, uint64_t tol_us, int *hint);
/* The mean of the readings of s in [from, to]; NAN when none. */
double diag_series_mean(const diag_series *s, uint64_t from, uint64_t to);
/* The value of a step series in force at t; dflt before its first point. */
double diag_step_at(const diag_series *s, uint64_t t, double dflt, int *hint);
/* Seconds a reading at index i of the view stands for (its spacing, capped at 2 steps). */
double diag_view_dt(const diag_gpu_view *v, int i);
/* A minimum duration for a short window: min_s, or half the GPU's held time when that is shorter
 * (but at least five readings). */
double diag_need_s(const diag_gpu_view *v, double min_s);
/* The enforced power limit at t (the default limit when never read), NAN when unknown. */
double diag_power_limit_at(const diag_gpu_view *v, uint64_t t, int *hint);
/* Idle power: observed when the GPU idled in the window (10th percentile), else frac of its default
 * limit, the lower of the two; NAN when neither is known. */
double diag_idle_power(const diag_gpu_view *v, double frac);
/* Usable bandwidth of one PCIe lane, one direction, in KB/s (10^3 bytes), by generation (clamped to
 * 1..6): 2.5, 5 GT/s with 8b/10b; 8, 16, 32 GT/s with 128b/130b; 64 GT/s PAM4 with FLIT mode. */
double diag_pcie_lane_kbs(int gen);
/* The most a counter kept as a step series rose within a minute (ending at one of its changes), and
 * when (*at, may be NULL); 0 when it never rose. */
double diag_counter_max_minute(const diag_series *s, uint64_t *at);
/* A process present on the GPU in [from, to], by overlap; NULL when none. */
int diag_procs_in(const diag_ctx *c, int gpu, uint64_t from, uint64_t to, const diag_proc **out, int max);
/* Typical memory of a process (last reading), NAN when unknown. */
double diag_proc_mem(const diag_proc *p);

/* The severity of a detector's finding on a GPU from a measure's distance x to the threshold between
 * two severities: `below` when x < 0, `at_or_above` when x >= 0. With hysteresis: when |x| < margin,
 * the severity the previous run (c->prev) gave this detector on this GPU stays, if it was one of the
 * two. */
diag_severity diag_level(const diag_ctx *c, const char *detector, int gpu, double x, double margin, diag_severity below,
                         diag_severity at_or_above);

/* A finding for one GPU over [from, to], with its GPU's name and the processes seen in that time
 * (pids, and the main one's user, name and container as evidence). */
diag_finding *diag_emit(diag_ctx *c, const char *detector, diag_severity sev, int gpu, uint64_t from, uint64_t to);
void diag_attribute(diag_ctx *c, diag_finding *f, int gpu, uint64_t from, uint64_t to);
/* "pid 42 (python3, user alice, container c1)" for a summary; "" when no process. */
void diag_proc_label(const diag_proc *p, char *out, size_t n);
/* diag_job.c: processes of one job share this key (user, container, command without rank). */
void diag_job_key(const diag_proc *p, char *out, size_t n);

/* diag_bursts.c: a GPU's XIDs in bursts (one incident each). */
#define DIAG_MAX_CODES 16
#define DIAG_MAX_BURSTS 32
typedef struct diag_xid_set {
    int code[DIAG_MAX_CODES], count[DIAG_MAX_CODES], n, total;
} diag_xid_set;
typedef struct diag_burst {
    uint64_t from, to;
    diag_xid_set x;
} diag_burst;
typedef struct diag_bursts {
    diag_burst b[DIAG_MAX_BURSTS]; /* in time order; the last absorbs what more would be */
    int n;
    diag_xid_set all;
    uint64_t from, to;
} diag_bursts;
/* Counts `count` more of code in s. */
void diag_xid_set_add(diag_xid_set *s, int code, int count);
/* xid_class of a code (XID_UNKNOWN when not in the table). */
int diag_xid_class_of(int code);
#define DIAG_XID_SOLO_45 (1u << 31) /* in `classes`: an XID 45 near another XID (any GPU) follows it: left out */
/* The XIDs of GPU `gpu` whose class is in `classes` (bits 1 << xid_class), but for those within
 * gap_us of a burst of `except` (NULL: none), grouped: an event more than gap_us after the previous
 * one starts a burst. Returns the number of events. */
int diag_xid_bursts(const diag_ctx *c, int gpu, unsigned classes, uint64_t gap_us, const diag_bursts *except,
                    diag_bursts *out);
/* 1 when t is within gap_us of one of the bursts. */
int diag_in_bursts(const diag_bursts *b, uint64_t t, uint64_t gap_us);
/* In how many bursts the code came. */
int diag_xid_recurring(const diag_bursts *b, int code);
/* "48 x1, 63 x2" and "XID 48 (double-bit ...); XID 63 (...) repeated". */
void diag_xid_codes(const diag_xid_set *s, char *out, size_t n);
void diag_xid_meanings(const diag_xid_set *s, char *out, size_t n);

/* Charts s (a GPU or process series) over [from, to] into f. pct: scale 0..100. */
void diag_chart_series(diag_finding *f, const diag_series *s, int gpu, const char *metric, const char *unit,
                       uint64_t from, uint64_t to, int pct);

#endif
