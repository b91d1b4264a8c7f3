/* top_model.h - what top shows and where it comes from: the model (GPUs and their latest samples,
 * a short history per GPU for charts, processes, host CPU and memory, alerts, findings), the sources
 * that fill it (this machine's GPUs through the pipeline and its alerts and diagnosis plugins, a
 * remote agent), the refresh thread that calls them, and the /proc readers. No curses here. */
#ifndef GPUWATCH_TOP_MODEL_H
#define GPUWATCH_TOP_MODEL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include "sample.h"
#include "proc_table.h"
#include "backend.h"
#include "buf.h"
#include "diag_report.h"
#include "diag_settings.h"
#include "pipeline.h"

#define TOP_MAX_GPUS 64
#define TOP_MAX_PROCS 1024
#define TOP_HISTORY 600 /* samples kept per GPU for charts, and in the local pipeline's ring */

/* ---- chart history: a few series per GPU, as floats (NaN: no value) ---- */

typedef enum { SER_UTIL, SER_MEM_PCT, SER_POWER, SER_TEMP, SER_HBM, SER_COUNT } series_kind;

typedef struct top_history top_history;
top_history *history_new(int ngpus, int capacity);
void history_free(top_history *h);
/* Appends the series' values of one good sample (t_us must not go back in time). */
void history_push(top_history *h, int gpu, const gpu_sample *s);
/* Fills out[0..buckets-1] with the series over the `buckets * bucket_s` seconds that end at end_us
 * (out[buckets-1] is the newest); a bucket holds the mean of its samples, NaN if none. */
void series_fill(const top_history *h, int gpu, series_kind k, uint64_t end_us, double bucket_s, int buckets,
                 double *out);
/* The value a series takes in one sample; 0 when the sample has none. */
int series_value(const gpu_sample *s, series_kind k, double *v);
const char *series_label(series_kind k);
const char *series_unit(series_kind k);

/* ---- the model ---- */

typedef struct top_gpu {
    gpu_info info;
    gpu_sample s; /* latest reading */
    int have_sample;
    int lost;          /* the backend says the GPU is lost */
    uint64_t fresh_us; /* when a good sample last arrived (monotonic) */

    /* its MIG devices (MIG mode; the local source) */
    gpu_mig mig[GW_MIG_MAX];
    int nmig;
} top_gpu;

/* One pending or firing alert (from the local rules or a remote agent). */
#define TOP_MAX_ALERTS 32
typedef struct top_alert {
    int level;            /* 0 info, 1 warning, 2 critical (top_level) */
    int firing;           /* 0: pending (its condition holds, not yet for the rule's `for`) */
    int64_t active_at_us; /* when it became pending (CLOCK_REALTIME); 0 unknown */
    int64_t for_us;       /* the rule's `for`; -1 unknown (a remote agent does not say) */
    char name[64];
    char summary[200];
} top_alert;

/* The latest diagnosis: top's own (local mode) or the agent's /api/v1/findings (--host). */
typedef enum {
    FIND_OFF,        /* no diagnosis: no panel (diagnosis.enabled: false in top.yaml) */
    FIND_WAITING,    /* local: the first run is still to come */
    FIND_OK,         /* r holds the latest report (perhaps empty) */
    FIND_NOT_SERVED, /* the agent answers 404: it does not diagnose */
    FIND_ERROR       /* the findings could not be read or made: why says so */
} find_state;

typedef struct top_findings {
    find_state state;
    diag_report r;               /* worst first */
    uint64_t seq;                /* +1 for every report published */
    uint64_t at_us;              /* wall time of the report: local, the run; remote, the read */
    uint64_t next_us;            /* local: wall time of the next run */
    double window_s, interval_s; /* local: diagnosis.window and diagnosis.interval */
    char why[300];
} top_findings;

/* This machine's CPU and memory (local mode only). */
typedef struct top_host {
    int has_cpu, has_mem;
    double cpu_pct; /* all CPUs, percent of the machine, since the previous refresh */
    double mem_used_mib, mem_total_mib;
} top_host;

typedef struct top_model {
    pthread_mutex_t lock;
    char host[128]; /* hostname, or "HOST (URL)" of a remote agent */
    backend_versions versions;
    int remote; /* a remote agent: its pids are not ours to signal or look up */
    int ngpus;
    top_gpu gpus[TOP_MAX_GPUS];
    top_history *hist; /* charts */
    gpu_proc *procs;   /* TOP_MAX_PROCS entries */
    int nprocs;
    top_host hoststat;
    uint64_t updated_us; /* monotonic time of the last update (0 = none yet) */
    uint64_t seq;        /* bumped on every update */
    char error[512];     /* last source error ("" when fine) */
    top_alert alerts[TOP_MAX_ALERTS];
    int nalerts;
    top_findings find;
} top_model;

int top_model_init(top_model *m);
void top_model_free(top_model *m);

/* A GPU counts as stale when its last good sample is older than this many intervals (at least 3 s). */
#define TOP_STALE_INTERVALS 3
int top_gpu_stale(const top_gpu *g, uint64_t now_mono_us, double interval_s);

/* Replaces the model's findings with r's and sets the state, its reason (NULL: none) and the
 * report's time, under the model's lock. r is handed the previous report's storage, emptied: the
 * caller frees it (outside the lock). */
void top_findings_publish(top_model *m, diag_report *r, find_state st, const char *why, uint64_t at_us);

/* ---- sources ---- */

/* Where data comes from. refresh() reads one round into the model (taking its lock only to
 * store), returns 0 or -1 with m->error set. */
typedef struct top_source {
    void *ctx;
    int (*refresh)(void *ctx, top_model *m);
    void (*close)(void *ctx);
} top_source;

/* One round (the refresh thread, or --once). */
void top_source_round(top_source *src, top_model *m);
void top_source_close(top_source *src);

/* Temperature thresholds: the colours, and the alert rules and thermal findings that agree with them. */
typedef struct top_thresholds {
    double temp_warn, temp_crit; /* core, °C */
    double hbm_warn, hbm_crit;   /* HBM, °C */
} top_thresholds;

/* Local GPUs through the sampler. Each refresh hands their samples and processes to a pipeline
 * (pipeline.h) running the alerts plugin with gpuwatch's default rules and top's thresholds, and the
 * diagnosis plugin with diag's settings, as the agent runs them; their alerts and reports reach the
 * model through local_plugins.c. Returns 0, or the backend status with err filled. */
int top_source_local(top_source *src, top_model *m, const diag_settings *diag, const top_thresholds *th, char *err,
                     size_t errlen);

/* A remote agent's JSON API. */
typedef struct top_remote_opts {
    const char *host; /* HOST:PORT */
    int tls, insecure;
    const char *user, *password_file, *cacert;
} top_remote_opts;
int top_source_remote(top_source *src, top_model *m, const top_remote_opts *o, char *err, size_t errlen);

/* ---- the refresh thread: calls src->refresh every interval, makes its fd readable after each ---- */

/* The CLOCK_MONOTONIC time s seconds from now, for a pthread_cond_timedwait on that clock. */
struct timespec top_mono_after(double s);
/* Empties a non-blocking wake-up pipe. */
void top_pipe_drain(int fd);

typedef struct top_poller top_poller;
top_poller *top_poller_start(top_source *src, top_model *m, double interval_s);
void top_poller_set_interval(top_poller *p, double interval_s);
void top_poller_pause(top_poller *p, int paused);
void top_poller_kick(top_poller *p); /* refresh now */
int top_poller_fd(top_poller *p);
void top_poller_drain(top_poller *p);
void top_poller_stop(top_poller *p);

/* ---- alerts ---- */

/* Fills an alert from its fields: level from severity (critical 2, warning 1, else 0), firing
 * unless state is "pending"; NULL strings are empty. */
void top_alert_set(top_alert *a, const char *name, const char *severity, const char *state, const char *summary,
                   int64_t active_at_us, int64_t for_us);
/* Firing before pending, then by level (worst first), then by name. */
void top_alerts_sort(top_alert *a, int n);
/* "CRIT GPULost: ..." when firing; "pending CRIT GPUTemperatureWarning, would fire in 4m10s: ..."
 * when pending (how long it has been pending when the rule's `for` is unknown). */
void top_alert_text(const top_alert *a, int64_t now_us, char *out, size_t n);

/* ---- the local pipeline (local_plugins.c) ---- */

/* The settings document of top's plugins, made from its preferences and thresholds: the alerts
 * plugin's thresholds of the four temperature rules, the diagnosis plugin's section (diag, with the
 * thermal detector's temperatures still at their defaults taken from th, so that a finding agrees
 * with the colours: thermal.gpu_warn_c, gpu_crit_c, mem_warn_c and mem_crit_c take temp_warn,
 * temp_crit, hbm_warn and hbm_crit; one set in top.yaml stays). Appends YAML to out; 0, or -1 when
 * out of memory. */
int top_plugin_settings(const diag_settings *diag, const top_thresholds *th, gw_buf *out);
/* A pipeline for ngpus GPUs with the alerts and diagnosis plugins started from those settings, and
 * the panels' plugin that takes their events into the model (the alert states, each diagnosis
 * report). Sets m->find for the diagnosis' settings (waiting, or off). NULL with why filled when it
 * cannot start. */
pipeline *top_local_pipeline(top_model *m, int ngpus, const diag_settings *diag, const top_thresholds *th, char *why,
                             size_t n);
/* The thermal thresholds of cfg from top's (see top_plugin_settings). */
void top_diag_thresholds(diag_config *cfg, const top_thresholds *th);

/* ---- /proc beside the process table (a root other than "/proc" for tests) ---- */

/* Host CPU: busy and total ticks from the first line of /proc/stat. */
typedef struct host_ticks {
    unsigned long long busy, total;
} host_ticks;
int procfs_parse_cpu(const char *stat_text, host_ticks *out);
/* Percent busy between two readings; -1 when they cannot be compared. */
double procfs_cpu_pct(const host_ticks *prev, const host_ticks *cur);
/* MemTotal and MemAvailable of /proc/meminfo, MiB (used = total - available). */
int procfs_parse_meminfo(const char *text, double *total_mib, double *avail_mib);
int procfs_read_host(const char *root, host_ticks *cpu, double *total_mib, double *avail_mib);

/* A process's family: its ancestors (the oldest first), itself, then its descendants depth
 * first, at most max entries, from a process table of its own (one walk of root). */
typedef struct proc_node {
    unsigned pid, ppid;
    int depth;    /* 0 for the oldest ancestor shown */
    int selected; /* the process asked about */
    char cmd[160];
} proc_node;
/* Returns how many entries were filled; 0 when pid is not visible under root. */
int procfs_tree(const char *root, unsigned pid, proc_node *out, int max);

#endif
