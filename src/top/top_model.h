/* top_model.h - what top shows and where it comes from: the model (GPUs and their latest samples,
 * a short history per GPU for charts, processes, host CPU and memory, alerts, findings), the sources
 * that fill it (this machine's GPUs, a remote agent), the refresh thread that calls them, the local
 * alert rules and diagnosis, and the /proc readers they share. No curses here. */
#ifndef GPUWATCH_TOP_MODEL_H
#define GPUWATCH_TOP_MODEL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include "sample.h"
#include "proc_stat.h"
#include "backend.h"
#include "diag_report.h"
#include "diag_settings.h"

#define TOP_MAX_GPUS 64
#define TOP_MAX_PROCS 1024
#define TOP_HISTORY 600 /* samples kept per GPU for charts and for the alert rules' windows */

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

/* Work that follows each refresh on the refresh thread (the local alert rules, the diagnosis):
 * after() reads what the refresh stored; release() frees ctx when the source closes. */
#define TOP_MAX_HOOKS 4
typedef struct top_hook {
    void (*after)(void *ctx, top_model *m);
    void (*release)(void *ctx);
    void *ctx;
} top_hook;

/* Where data comes from. refresh() reads one round into the model (taking its lock only to
 * store), returns 0 or -1 with m->error set. */
typedef struct top_source {
    void *ctx;
    int (*refresh)(void *ctx, top_model *m);
    void (*close)(void *ctx);
    top_hook hooks[TOP_MAX_HOOKS];
    int nhooks;
} top_source;

/* Adds a hook; returns 0, or -1 when there are too many (ctx is then released). */
int top_source_hook(top_source *src, void (*after)(void *, top_model *), void (*release)(void *), void *ctx);
/* One round: refresh, then every hook (the refresh thread, or --once). */
void top_source_round(top_source *src, top_model *m);
/* Releases the hooks, then closes the source. */
void top_source_close(top_source *src);

/* Local GPUs through the sampler. Returns 0, or the backend status with err filled. */
int top_source_local(top_source *src, top_model *m, char *err, size_t errlen);

/* A remote agent's JSON API. */
typedef struct top_remote_opts {
    const char *host; /* HOST:PORT */
    int tls, insecure;
    const char *user, *password_file, *cacert;
} top_remote_opts;
int top_source_remote(top_source *src, top_model *m, const top_remote_opts *o, char *err, size_t errlen);

/* ---- the refresh thread: calls src->refresh every interval, makes its fd readable after each ---- */

typedef struct top_poller top_poller;
top_poller *top_poller_start(top_source *src, top_model *m, double interval_s);
void top_poller_set_interval(top_poller *p, double interval_s);
void top_poller_pause(top_poller *p, int paused);
void top_poller_kick(top_poller *p); /* refresh now */
int top_poller_fd(top_poller *p);
void top_poller_drain(top_poller *p);
void top_poller_stop(top_poller *p);

/* ---- alerts ---- */

typedef struct top_thresholds {
    double temp_warn, temp_crit; /* core, °C */
    double hbm_warn, hbm_crit;   /* HBM, °C */
} top_thresholds;

/* Local mode: gpuwatch's default rules (deploy/rules/gpuwatch-default.yaml) evaluated on top's
 * samples after each refresh, with top's temperature thresholds (a hook of src). Returns 0, or -1
 * with the reason in why (no rules file found, rules that do not load). */
int top_alerts_local_start(top_source *src, top_model *m, const top_thresholds *th, char *why, size_t n);

/* Fills an alert from its fields: level from severity (critical 2, warning 1, else 0), firing
 * unless state is "pending"; NULL strings are empty. */
void top_alert_set(top_alert *a, const char *name, const char *severity, const char *state, const char *summary,
                   int64_t active_at_us, int64_t for_us);
/* Firing before pending, then by level (worst first), then by name. */
void top_alerts_sort(top_alert *a, int n);
/* "CRIT GPULost: ..." when firing; "pending CRIT GPUTemperatureWarning, would fire in 4m10s: ..."
 * when pending (how long it has been pending when the rule's `for` is unknown). */
void top_alert_text(const top_alert *a, int64_t now_us, char *out, size_t n);
/* A rule file's `for` durations by alert name (the engine's API does not give them). Returns how
 * many rules were read, -1 when the file cannot be read. */
typedef struct top_rule_for {
    char name[64];
    int64_t for_us;
} top_rule_for;
int top_rule_fors_read(const char *path, top_rule_for *out, int max);
/* Prometheus durations: "90s", "5m", "1h30m", "500ms". Returns 0 and *us, or -1. */
int top_parse_duration(const char *s, int64_t *us);

/* ---- findings ---- */

/* Local mode: a diagnosis window fed from the samples and process lists of each refresh (a GPU's
 * reading at most every TOP_DIAG_STEP_US), diag_run_from over the last set->window_s every
 * set->interval_s (the previous report given: severities do not flap at a threshold), the report
 * published into m->find (a hook of src: the refresh thread). With
 * set->enabled off, m->find says FIND_OFF and nothing is kept. Returns 0, or -1 when out of memory. */
#define TOP_DIAG_STEP_US 450000u
/* The thermal detector's temperatures from top's thresholds (options or top.yaml), so that a finding
 * agrees with the colours: each of thermal.gpu_warn_c, gpu_crit_c, mem_warn_c and mem_crit_c that
 * is still at its default takes temp_warn, temp_crit, hbm_warn or hbm_crit; one set in top.yaml's
 * diagnosis.thresholds stays. */
void top_diag_thresholds(diag_config *cfg, const top_thresholds *th);
int top_diag_local_start(top_source *src, top_model *m, const diag_settings *set);

/* ---- /proc (a root other than "/proc" for tests) ---- */

/* A stat file kept open: read again with pread, one system call; a read fails once that process
 * has exited (the file stays bound to it, whatever later gets its pid). Returns the fd or -1. */
int procfs_open_stat(const char *root, unsigned pid);
int procfs_pread_stat(int fd, proc_stat *out);
/* The command line of a pid with spaces between its arguments ("" for a kernel thread). */
int procfs_read_cmdline(const char *root, unsigned pid, char *out, size_t n);

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
 * first, at most max entries. */
typedef struct proc_node {
    unsigned pid, ppid;
    int depth;    /* 0 for the oldest ancestor shown */
    int selected; /* the process asked about */
    char cmd[160];
} proc_node;
/* Returns how many entries were filled; 0 when pid is not visible under root. */
int procfs_tree(const char *root, unsigned pid, proc_node *out, int max);

#endif
