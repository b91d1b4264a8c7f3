/* diag_fleet.h - the diagnosis of a fleet: the findings of many hosts in one report, each with its
 * host and the GPU-hours it cost (idle or throttled GPU time), ranked by severity then GPU-hours
 * lost; and the cross-host detectors over a job's GPUs on several hosts (straggler, and imbalance
 * and idle_holding across hosts), which read a summary of each member GPU (diag_member) over the
 * whole range, not a host's window. Filled by a source that reads many hosts (diagnose
 * --prometheus); docs/diagnosis.md, "Fleets". */
#ifndef GPUWATCH_DIAG_FLEET_H
#define GPUWATCH_DIAG_FLEET_H

#include "buf.h"
#include "diag.h"

#define DIAG_FLEET_BUCKETS 120 /* a member's summary: the range in this many equal buckets */
#define DIAG_FLEET_MAX_HOSTS 4096
#define DIAG_FLEET_MAX_MEMBERS 4096 /* GPUs of one job */

/* One GPU of a job over the range, as bucket means (NAN where it had no reading). */
typedef struct diag_member {
    int host;                           /* index in the fleet's hosts */
    int gpu;                            /* the GPU's index on its host */
    float util[DIAG_FLEET_BUCKETS];     /* % */
    float clock[DIAG_FLEET_BUCKETS];    /* SM clock while busy (utilization >= 40 %), MHz */
    float power[DIAG_FLEET_BUCKETS];    /* power while busy, W */
    float throttle[DIAG_FLEET_BUCKETS]; /* share of readings with a thermal or power slowdown reason */
    float mem[DIAG_FLEET_BUCKETS];      /* memory used, MiB */
} diag_member;

typedef struct diag_job {
    char id[128]; /* "slurm:1234", "k8s:ns/pod", "job:NAME" */
    diag_member *m;
    int n, cap;
} diag_job;

typedef struct diag_fleet_finding {
    int host;         /* index in hosts */
    double gpu_hours; /* GPU time lost: idle, or slowed (1 - clock / the GPU's top clock) while throttled */
    diag_finding f;
} diag_fleet_finding;

typedef struct diag_fleet {
    uint64_t from_us, to_us;
    char **hosts; /* names (an instance, a Hostname) */
    int nhosts, cap_hosts;
    int hosts_read; /* hosts whose GPUs were diagnosed (a host of no selected GPU is not) */
    int ngpus;
    diag_fleet_finding *f; /* ranked by diag_fleet_sort */
    int n, cap;
    diag_job *jobs;
    int njobs, cap_jobs;
    char missing[1200]; /* the series no host had, separated by "; ", "" when none */
    char not_run[1200]; /* the detectors that could not run for want of them, with why ("; ") */
    int oom;
} diag_fleet;

void diag_fleet_init(diag_fleet *fl, uint64_t from_us, uint64_t to_us);
void diag_fleet_free(diag_fleet *fl);
/* The index of host name, added when new; -1 when out of memory or past DIAG_FLEET_MAX_HOSTS. */
int diag_fleet_host(diag_fleet *fl, const char *name);

/* Adds a host's findings (its window's run), each with the GPU-hours it cost, read from w. 0, or -1
 * when out of memory. */
int diag_fleet_add_report(diag_fleet *fl, int host, const diag_report *r, const diag_window *w);

/* The member of job for GPU gpu of host, added (summarised from w's GPU over the fleet's range)
 * when new. NULL when out of memory or past the caps. */
diag_member *diag_fleet_member(diag_fleet *fl, const char *job, int host, int gpu, const diag_window *w);
/* A member's summary from a GPU's window over [from_us, to_us] (what diag_fleet_member does). */
void diag_member_fill(diag_member *m, const diag_gpu *g, uint64_t from_us, uint64_t to_us);

/* The cross-host detectors over every job of two members or more: straggler, and imbalance and
 * idle_holding across hosts (jobs on two hosts or more). Their findings are added. Returns the
 * number added, or -1 when out of memory. */
int diag_fleet_cross(diag_fleet *fl, const diag_config *cfg);

/* Severity, then GPU-hours lost, then the score, then host and GPU. */
void diag_fleet_sort(diag_fleet *fl);
/* Sums for the summary line. */
double diag_fleet_gpu_hours(const diag_fleet *fl);

/* {"from","to","hosts","gpus","gpu_hours_lost","missing","not_run","findings":[{"host",
 * "gpu_hours_lost", ...diag_report_json's finding}]}. malloc'd, NULL when out of memory. */
char *diag_fleet_json(const diag_fleet *fl, int pretty);
/* For people: the summary line, then each finding under its host and GPUs (diag_report_text's shape). */
void diag_fleet_text(const diag_fleet *fl, gw_buf *out, unsigned flags);

#endif
