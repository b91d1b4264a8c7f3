/* exposition.h - the series of a snapshot: dcgm-exporter series, native gpuwatch_ series, who uses
 * each GPU, per-process series and the agent's own health, all driven by the metric catalog. The
 * GPU part is walked into a sink: the /metrics page's text, or remote write's series. */
#ifndef GPUWATCH_EXPOSITION_H
#define GPUWATCH_EXPOSITION_H

#include "buf.h"
#include "snapshot.h"

enum { EXPO_DCGM = 1, EXPO_NATIVE = 2 };

typedef struct expo_options {
    int series;               /* EXPO_DCGM | EXPO_NATIVE */
    int filter;               /* 0: every metric; 1: only those in enabled / proc_* */
    metric_set enabled;       /* catalog metrics to export when filter */
    int proc_memory, proc_sm; /* process families to export when filter */
    int job_info;             /* gpuwatch_gpu_job_info when filter */
    int process_limit;        /* at most this many series per process family */
    const char *hostname;
} expo_options;

void expo_options_default(expo_options *o);
/* Resolves a name from exporter.metrics (a catalog field or alias, a DCGM_FI_ name or a gpuwatch_
 * name) into o. Returns 0, or -1 for an unknown name. */
int expo_enable(expo_options *o, const char *name);

#define EXPO_MAX_LABELS 16

/* One label: name and value as they are (not escaped). */
typedef struct expo_pair {
    const char *name, *value;
} expo_pair;

/* Where the walk of a snapshot's series goes. */
typedef struct expo_sink {
    void *ctx;
    /* A family begins (type "gauge" or "counter"); called only for a family with series. */
    void (*family)(void *ctx, const char *name, const char *help, const char *type);
    /* One series of the family: its labels as n pairs (in the order /metrics shows them; values may
     * be empty) and as the text between the braces of /metrics (escaped), and its value. */
    void (*sample)(void *ctx, const char *name, const expo_pair *labels, int n, const char *text, double v);
    int *oom; /* set to 1 when memory ran out during the walk (may be NULL) */
} expo_sink;

/* The part that changes only with a new sample or a new config (cacheable): GPU value series (with
 * dcgm-exporter's pod, namespace and container labels when a process of the GPU runs in a pod),
 * gpuwatch_gpu_info, gpuwatch_gpu_job_info, gpuwatch_gpu_lost, XIDs per code, process series. */
void expo_walk_gpus(const agent_snapshot *s, const expo_options *o, const expo_sink *sink);
/* The same as /metrics text. */
void expo_write_gpus(gw_buf *out, const agent_snapshot *s, const expo_options *o);
/* The agent's health that changes only with a sampling round (cacheable with the GPU part): NVML
 * errors, sampling duration, ring size. */
void expo_write_round_health(gw_buf *out, const agent_snapshot *s);
struct guard_stats;
/* The HTTP server's connections (per scrape): open, and closed by the guard by reason. */
void expo_write_http(gw_buf *out, const struct guard_stats *g);
/* The part that changes with every scrape: gpuwatch_up, the ages at now_us of s's samples,
 * staleness, scrape duration. */
void expo_write_live(gw_buf *out, const agent_snapshot *s, uint64_t now_us, double scrape_seconds);

#endif
