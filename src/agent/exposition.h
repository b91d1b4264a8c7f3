/* exposition.h - the /metrics page from a snapshot: dcgm-exporter series, native gpuwatch_ series,
 * per-process series and the agent's own health, all driven by the metric catalog. */
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
    int process_limit;        /* at most this many series per process family */
    const char *hostname;
} expo_options;

void expo_options_default(expo_options *o);
/* Resolves a name from exporter.metrics (a catalog field or alias, a DCGM_FI_ name or a gpuwatch_
 * name) into o. Returns 0, or -1 for an unknown name. */
int expo_enable(expo_options *o, const char *name);

/* The part that changes only with a new sample or a new config (cacheable): GPU value series,
 * gpuwatch_gpu_info, gpuwatch_gpu_lost, process series. */
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
