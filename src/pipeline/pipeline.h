/* pipeline.h - the one in-process pipeline the agent and top's local mode both assemble: what a
 * host reads of its GPUs (the agent's sampler thread, top's refresh thread) goes into a ring of
 * recent samples, keeps each GPU's identity and latest processes, is turned into events once
 * (event_derive), and is handed to every plugin (plugin.h); events posted by plugins are handed to
 * every plugin too. Plugins read the recent state through their view's sample_source. The host
 * chooses the plugins; the pipeline knows none of them.
 *
 * Threads: the functions that feed it (pipeline_sample, _processes, _tick, _settle) are called
 * from one thread, the pipeline's; the readers (the view's source, pipeline_ring, _processes_all)
 * from any thread. */
#ifndef GPUWATCH_PIPELINE_H
#define GPUWATCH_PIPELINE_H

#include <stdint.h>
#include "plugin.h"
#include "ring.h"

#define PIPELINE_MAX_PLUGINS 8

typedef struct pipeline pipeline;

/* A pipeline without GPUs yet: plugins can be started (their source has no GPU until
 * pipeline_open). NULL when out of memory. */
pipeline *pipeline_new(const char *hostname);
/* Starts a plugin with the pipeline's view and the host's settings (before the host's threads).
 * Returns 0 (the plugin may have chosen to stay off), or -1: it failed (logged), or the table is
 * full. */
int pipeline_add(pipeline *p, const pipeline_plugin *pl, gw_doc *cfg);
/* Adds a plugin the host made itself (its start is not called; its free is, at the end): a host
 * that is one of the plugins (top's panels). Returns 0, or -1 when the table is full. */
int pipeline_attach(pipeline *p, const pipeline_plugin *pl, void *ctx);
/* The GPUs are known: ngpus of them, ring_capacity samples kept per GPU. Once. Returns 0, or -1
 * when out of memory (the source still has no GPU). */
int pipeline_open(pipeline *p, int ngpus, int ring_capacity);

/* One GPU's new sample (each GPU's in time order): into the ring, its identity kept when info is
 * given, the events it gives posted, then every plugin's on_sample. */
void pipeline_sample(pipeline *p, int gpu, const gpu_info *info, const gpu_sample *s);
/* One GPU's processes at t_us: kept as its latest, then every plugin's on_processes. */
void pipeline_processes(pipeline *p, int gpu, uint64_t t_us, const gpu_proc *procs, int n);
/* The end of a round: the events posted so far delivered, every plugin's on_tick, and the events
 * they posted delivered. */
void pipeline_tick(pipeline *p, uint64_t now_us);
/* Every plugin's settle (the work the last tick started is done), then the events posted
 * delivered: for a host that shows the results at once. */
void pipeline_settle(pipeline *p);
/* Every plugin's on_reload with the host's new settings (main thread). */
void pipeline_reload(pipeline *p, gw_doc *cfg);
/* Every plugin's stop, the events posted until then delivered, every plugin's free (the host's
 * threads have ended). The pipeline's state stays until pipeline_free. */
void pipeline_stop(pipeline *p);
void pipeline_free(pipeline *p);

/* ---- for the agent's outputs ---- */

/* Appends the series of the plugins with a metrics_version (versioned) or of the others. */
void pipeline_write_metrics(pipeline *p, gw_buf *out, int versioned);
/* The sum of the plugins' metrics_version: it moves whenever their kept text would change. */
uint64_t pipeline_metrics_version(pipeline *p);
/* The first plugin that serves the request; 1 when one did, 0 when none. */
int pipeline_handle_http(pipeline *p, const agent_request *req, agent_response *resp);
/* A fact of the host's that its plugins read with view.fact (not the local commands'): the agent's
 * "simulated" ("1" while the GPUs are gpusim's, else "0"). Set it before the GPUs' first sample; a
 * value is at most 63 bytes, and at most 4 keys are kept. */
void pipeline_host_fact(pipeline *p, const char *key, const char *value);
/* What the plugins advertised, in order: at most max keys and values (owned by the pipeline). */
int pipeline_facts(pipeline *p, const char **keys, const char **values, int max);

/* ---- reading the state (any thread) ---- */

/* What plugins read: the GPUs, their identity, the ring and the latest processes. */
const sample_source *pipeline_source(pipeline *p);
/* The ring, or NULL before pipeline_open. */
ring *pipeline_ring(pipeline *p);
/* Every GPU's latest processes, one list (malloc'ed into *out, caller frees; NULL when none).
 * Returns how many, or -1 when out of memory. */
int pipeline_processes_all(pipeline *p, gpu_proc **out);

#endif
