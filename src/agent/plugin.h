/* plugin.h - the one contract through which a feature plugs into the agent (history, alerts,
 * diagnosis). The agent knows no plugin: the module that assembles the program
 * (src/modules/agent_module.c) lists them, and a plugin sees the agent only through the read-only
 * agent_view it is started with. Plugins never see each other either: what one has to say to the
 * others (an alert fired, a finding) it posts as an event, and the agent hands every event to every
 * plugin's on_event.
 *
 * Threads: the sampler thread calls on_sample, on_processes, on_tick and on_event, in that order
 * every round; the HTTP thread calls write_metrics and metrics_version (keep them quick) and an API
 * thread handle_http, concurrently with the sampler and each other, so those must be thread safe.
 * on_reload runs on the main thread after SIGHUP. When the agent stops: every plugin's stop (after
 * the sampler and HTTP threads have ended: end your own threads), then the events posted until then
 * are delivered, then every plugin's free. */
#ifndef GPUWATCH_PLUGIN_H
#define GPUWATCH_PLUGIN_H

#include <stdint.h>
#include "alert_record.h"
#include "buf.h"
#include "config.h"
#include "sample_source.h"

/* An HTTP request as plugins see it (GET or HEAD; the agent answers 405 to other methods). */
typedef struct agent_request {
    const char *method;
    const char *path;
    /* A query-string argument, or NULL. */
    const char *(*param)(const struct agent_request *req, const char *name);
    void *impl;
} agent_request;

typedef struct agent_response {
    int status;               /* HTTP status, 200 by default */
    const char *content_type; /* default "application/json" */
    gw_buf body;              /* already initialised; the agent frees it */
} agent_response;

/* Something that happened, for the plugins that record or act on it (history records every one with
 * a detail in its events table). */
typedef struct agent_event {
    uint64_t t_us;      /* CLOCK_REALTIME */
    int gpu;            /* -1: not about one GPU */
    const char *kind;   /* "alert", "finding", "alert_states", ... */
    const char *detail; /* logfmt: "alertname=... state=firing ..."; "" for kind alert_states */
    /* Kind "alert_states": the alert engine's whole state now, read by field (every pending and
     * firing alert, the findings its rules read); the history keeps the latest for a restart.
     * NULL for the other kinds. */
    const alert_records *alerts;
} agent_event;

/* What a plugin sees of the agent. */
typedef struct agent_view {
    /* The GPUs, their identity, the ring of recent samples and the latest processes. */
    sample_source source;
    const char *hostname;
    /* A fact about this agent for the local commands (agent_state.h), e.g. ("db", the history
     * file) so that `gpuwatch history` reads the file the agent writes. Call it from start. */
    void (*advertise)(const struct agent_view *view, const char *key, const char *value);
    /* What a plugin started before this one advertised (("db", the history file)), or NULL. Call
     * it from start or later, from any thread. The agent's own: "simulated" ("1" while the GPUs are
     * gpusim's, else "0"). */
    const char *(*fact)(const struct agent_view *view, const char *key);
    /* Posts an event, from any thread; copied. Delivered on the sampler thread after the round. */
    void (*post_event)(const struct agent_view *view, const agent_event *ev);
    void *agent;
} agent_view;

typedef struct agent_plugin {
    const char *name; /* the top-level config section it owns ("history"), and its name in logs */
    /* Checks its section, recording errors with config_error (for `gpuwatch config check` and
     * every load, a reload included). NULL: nothing to check. */
    void (*check)(gw_config *cfg);
    /* Starts with the agent (before its threads). Returns 0 with *ctx set (NULL: the plugin is
     * off and none of its functions is called), or -1 to stop the agent (log why). */
    int (*start)(const agent_view *view, gw_config *cfg, void **ctx);
    /* Every function below may be NULL. */
    void (*on_sample)(void *ctx, int gpu, const gpu_info *info, const gpu_sample *s); /* info may be NULL */
    void (*on_processes)(void *ctx, int gpu, uint64_t t_us, const gpu_proc *procs, int n);
    void (*on_tick)(void *ctx, uint64_t now_us); /* end of a round over every GPU */
    void (*on_event)(void *ctx, const agent_event *ev);
    void (*on_reload)(void *ctx, gw_config *cfg); /* read your section again */
    /* Appends its series to the /metrics page (text format). */
    int (*write_metrics)(void *ctx, gw_buf *out);
    /* A number that goes up whenever write_metrics would write something else. With it, the text
     * is kept with the cached part of the page; without it, write_metrics runs on every scrape. */
    uint64_t (*metrics_version)(void *ctx);
    /* A path the agent does not serve: 1 when handled (resp filled), 0 if not yours. */
    int (*handle_http)(void *ctx, const agent_request *req, agent_response *resp);
    void (*stop)(void *ctx); /* end your threads; events may still be posted until it returns */
    void (*free)(void *ctx); /* release everything */
} agent_plugin;

#endif
