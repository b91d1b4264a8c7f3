/* plugin.h - the one contract through which a feature plugs into a pipeline (pipeline.h): history,
 * alerts and diagnosis in the agent; alerts, diagnosis and the panels of its screen in top. The
 * pipeline knows no plugin: the host that assembles it (src/modules/agent_module.c for the agent,
 * src/top/local_plugins.c for top) lists them, and a plugin sees the host only through the
 * read-only pipeline_view it is started with. Plugins never see each other either: what one has to
 * say to the others (an alert fired, a finding) it posts as an event (event.h: a tagged struct,
 * read by field), and the pipeline hands every event to every plugin's on_event.
 *
 * Threads: the pipeline's thread (the agent's sampler thread, top's refresh thread) calls on_sample,
 * on_processes, on_event, on_tick and settle; in the agent the HTTP thread calls write_metrics and
 * metrics_version (keep them quick) and an API thread handle_http, concurrently with the pipeline's
 * thread and each other, so those must be thread safe. on_reload runs on the main thread after
 * SIGHUP. When the pipeline stops: every plugin's stop (after the host's threads have ended: end
 * your own threads), then the events posted until then are delivered, then every plugin's free. */
#ifndef GPUWATCH_PLUGIN_H
#define GPUWATCH_PLUGIN_H

#include <stdint.h>
#include "args.h"
#include "buf.h"
#include "doc.h"
#include "event.h"
#include "sample_source.h"

/* An HTTP request to the agent as plugins see it (GET or HEAD; the agent answers 405 to other
 * methods). */
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

/* What a plugin sees of its host. */
typedef struct pipeline_view {
    /* The GPUs, their identity, the ring of recent samples and the latest processes. */
    sample_source source;
    const char *hostname;
    /* A fact about this host for the local commands (agent_state.h), e.g. ("db", the history
     * file) so that `gpuwatch history` reads the file the agent writes. Call it from start. */
    void (*advertise)(const struct pipeline_view *view, const char *key, const char *value);
    /* What a plugin started before this one advertised (("db", the history file)), or a fact of
     * the host's (pipeline_host_fact: the agent's "simulated", "1" while the GPUs are gpusim's), or
     * NULL. Call it from start or later, from any thread. */
    const char *(*fact)(const struct pipeline_view *view, const char *key);
    /* Posts an event, from any thread; copied. Delivered on the pipeline's thread at its next
     * delivery (before and after every plugin's on_tick, after a settle, at the stop). */
    void (*post_event)(const struct pipeline_view *view, const gw_event *ev);
    void *pipeline;
} pipeline_view;

/* A key of the plugin's section that `gpuwatch agent` also takes as an option, whose value wins over
 * the file's (the history's --db PATH over history.path); the plugin reads it with doc_overridden. */
typedef struct pipeline_plugin_option {
    const char *names; /* its spellings: "--db" */
    gw_opt_type type;  /* what the value is (args.h), checked when the command line is parsed */
    const char *key;   /* the key of the section it stands for: "path" */
    const char *meta;  /* the value in the agent's usage: "PATH" */
    const char *help;  /* what it is, in the agent's usage */
} pipeline_plugin_option;

/* A plugin's settings are the section named after it in the host's document (the agent's config
 * file; top's settings, made from top.yaml and its options); errors go to the document's list. */
typedef struct pipeline_plugin {
    const char *name;                      /* the top-level section it owns ("history"), and its name in logs */
    const pipeline_plugin_option *options; /* options of the agent's command line (ends with names NULL), or NULL */
    /* Checks its section, recording errors with doc_error (for `gpuwatch config check` and every
     * load, a reload included). NULL: nothing to check. */
    void (*check)(gw_doc *cfg);
    /* Starts with the pipeline (before the host's threads). Returns 0 with *ctx set (NULL: the
     * plugin is off and none of its functions is called), or -1 to stop the host (log why). */
    int (*start)(const pipeline_view *view, gw_doc *cfg, void **ctx);
    /* Every function below may be NULL. */
    void (*on_sample)(void *ctx, int gpu, const gpu_info *info, const gpu_sample *s); /* info may be NULL */
    void (*on_processes)(void *ctx, int gpu, uint64_t t_us, const gpu_proc *procs, int n);
    void (*on_tick)(void *ctx, uint64_t now_us); /* end of a round over every GPU */
    void (*on_event)(void *ctx, const gw_event *ev);
    /* Returns once the work the last on_tick started on the plugin's own thread is done (and its
     * events posted), for a host that shows the results at once (top). */
    void (*settle)(void *ctx);
    void (*on_reload)(void *ctx, gw_doc *cfg); /* read your section again */
    /* The agent's /metrics page: appends its series (text format). */
    int (*write_metrics)(void *ctx, gw_buf *out);
    /* A number that goes up whenever write_metrics would write something else. With it, the text
     * is kept with the cached part of the page; without it, write_metrics runs on every scrape. */
    uint64_t (*metrics_version)(void *ctx);
    /* A path the agent does not serve: 1 when handled (resp filled), 0 if not yours. */
    int (*handle_http)(void *ctx, const agent_request *req, agent_response *resp);
    void (*stop)(void *ctx); /* end your threads; events may still be posted until it returns */
    void (*free)(void *ctx); /* release everything */
} pipeline_plugin;

#endif
