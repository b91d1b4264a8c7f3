/* remote_write.h - Prometheus remote write from the agent: every sample the agent takes, as the
 * same series and labels as /metrics, pushed to one or more receivers (Prometheus, Mimir, Thanos
 * Receive, VictoriaMetrics, ...) with Remote-Write 2.0 or 1.0; what a receiver missed during an
 * outage or a restart is resent from the history file. docs/fleet.md.
 *
 * The sampler thread hands each GPU's sample and processes over (copies, nothing else); a thread of
 * the engine turns them into series samples in a shared ring (rw_series.h, rw_ring.h); each
 * endpoint's thread sends from it (rw_sender.h). */
#ifndef GPUWATCH_REMOTE_WRITE_H
#define GPUWATCH_REMOTE_WRITE_H

#include <stdint.h>
#include "buf.h"
#include "exposition.h"
#include "rw_settings.h"

typedef struct rw_engine rw_engine;

typedef struct rw_engine_config {
    const rw_settings *settings; /* must outlive the engine */
    expo_options expo;           /* the exporter's options; expo.series from the settings */
    const char *hostname;
    const char *db;              /* the history file, or NULL: without it nothing can be resent */
    int (*simulated)(void *ctx); /* 1 while the GPUs are gpusim's */
    void *simulated_ctx;
} rw_engine_config;

/* Starts the engine and every endpoint's thread. NULL with why in err when it cannot. */
rw_engine *rw_engine_start(const rw_engine_config *c, char *err, size_t n);
/* Sampler thread: a GPU's new sample (info may be NULL), then its processes. Copies; never waits. */
void rw_engine_sample(rw_engine *e, int gpu, const gpu_info *info, const gpu_sample *s);
void rw_engine_processes(rw_engine *e, int gpu, const gpu_proc *procs, int n);
/* Sampler thread, end of a round: the engine's thread converts what was handed over. */
void rw_engine_round(rw_engine *e);
/* The engine's series for /metrics (gpuwatch_remote_write_*, named as Prometheus' own
 * prometheus_remote_storage_* series). HTTP thread. */
void rw_engine_metrics(rw_engine *e, gw_buf *out);
/* Ends every thread (requests in progress are abandoned; what was acknowledged is on disk). */
void rw_engine_stop(rw_engine *e);
void rw_engine_free(rw_engine *e);

#endif
