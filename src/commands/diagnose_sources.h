/* diagnose_sources.h - where `gpuwatch diagnose` gets its window: the GPUs sampled now (live) or a
 * gpusim scenario sampled over scenario time (replay), the history file, or a running agent. */
#ifndef GPUWATCH_DIAGNOSE_SOURCES_H
#define GPUWATCH_DIAGNOSE_SOURCES_H

#include <stddef.h>
#include "diag.h"
#include "diag_fleet.h"
#include "http_client.h"

#define DIAGNOSE_MAX_GPUS 64

/* Samples every GPU and its processes each interval_s for duration_s through the sampler (the real
 * NVML path). replay: the backend must be simulated; its clock is stepped through scenario time
 * [0, duration_s] without waiting. Live sampling stops early, keeping what it has, on SIGINT.
 * Returns 0, or an exit status after a message on stderr. */
int diagnose_from_sampler(diag_window *w, double duration_s, double interval_s, int replay);

/* The history file to read: db when given, else the running agent's, else the default (history_locate.h). */
int diagnose_history_path(const char *db, char *out, size_t n);
/* Fills w from a history file over [from_us, to_us]. 0, or an exit status. */
int diagnose_from_history(diag_window *w, const char *path, int64_t from_us, int64_t to_us);

/* A running agent's current findings (GET /api/v1/findings). 0, or an exit status. */
int diagnose_from_agent(const http_client_opts *o, diag_report *out);

/* What diagnose --prometheus reads. */
typedef struct prom_source_opts {
    const char *url;   /* http(s)://HOST[:PORT][/PATH] */
    const char *match; /* "{label=\"value\",...}" (diagnose_match_check), or NULL */
    const char *job;   /* only this job's GPUs ("1234", "slurm:1234", "k8s:ns/pod"), or NULL */
    int64_t from_us, to_us;
    http_client_opts auth; /* TLS and basic auth; its host is unused */
} prom_source_opts;
/* Diagnoses every host with GPU series at the engine over the range into fl (initialised here; the
 * caller frees it with diag_fleet_free). 0, or an exit status after a message on stderr (an
 * unreachable engine, an error answer, no GPU series, no GPU of the job). */
int diagnose_from_prometheus(const prom_source_opts *o, const diag_config *cfg, diag_fleet *fl);
/* --match: a selector of label matchers only, "{instance=~\"gpu-.*\",cluster=\"a\"}": braces around
 * at least one matcher, no metric name. A custom row's check (args.h). */
int diagnose_match_check(const gw_opt *opt, const char *value, void *out, char *why, size_t n);

#endif
