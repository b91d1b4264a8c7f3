/* diagnose_sources.h - where `gpuwatch diagnose` gets its window: the GPUs sampled now (live) or a
 * gpusim scenario sampled over scenario time (replay), the history file, or a running agent. */
#ifndef GPUWATCH_DIAGNOSE_SOURCES_H
#define GPUWATCH_DIAGNOSE_SOURCES_H

#include <stddef.h>
#include "diag.h"
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

#endif
