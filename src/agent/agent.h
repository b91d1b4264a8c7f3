/* agent.h - the agent's context (config, sampler thread, ring, process lists, HTTP server) and the
 * hooks through which other layers (history, alerts) plug into it without the agent knowing them.
 *
 * Threads: one sampler thread calls on_sample / on_processes / on_tick in that order every round;
 * the HTTP thread calls write_metrics (keep it quick) and the API thread handle_http, concurrently
 * with the sampler and each other, so those two must be thread safe. on_reload runs on the main thread after SIGHUP; on_stop runs once after every
 * thread has stopped, in reverse order of registration (free ctx there). To plug in, add an attach function to src/agent/plugins.c. */
#ifndef GPUWATCH_AGENT_H
#define GPUWATCH_AGENT_H

#include <pthread.h>
#include <stdint.h>
#include "buf.h"
#include "config.h"
#include "exposition.h"
#include "ring.h"
#include "sampler.h"
#include "snapshot.h"

/* An HTTP request as hooks see it (GET or HEAD; the agent answers 405 to other methods). */
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

typedef struct agent_hooks {
    const char *name; /* for logs */
    void *ctx;
    /* Sampler thread: a new sample of one GPU (also pushed to the ring), and the GPU's state. */
    void (*on_sample)(void *ctx, int gpu, const gw_gpu *g, const gpu_sample *s);
    /* Sampler thread: the processes now on one GPU. */
    void (*on_processes)(void *ctx, int gpu, const gpu_proc *procs, int n);
    /* Sampler thread: end of a round over every GPU (now_us: CLOCK_REALTIME). */
    void (*on_tick)(void *ctx, uint64_t now_us);
    /* Main thread: the config was reloaded (SIGHUP); read your section with config_get_*. */
    void (*on_reload)(void *ctx, gw_config *cfg);
    /* HTTP thread: append your series to the /metrics page (text format), quickly. Return 0. */
    int (*write_metrics)(void *ctx, gw_buf *out);
    /* HTTP thread, optional: a number that changes whenever write_metrics would write something
     * else (never goes back). With it, the text is kept with the cached part of the page and
     * written again only when the number changes; without it, write_metrics runs on every scrape. */
    uint64_t (*metrics_version)(void *ctx);
    /* API thread: a path the agent does not serve. Return 1 when handled (resp filled), 0 if not yours. */
    int (*handle_http)(void *ctx, const agent_request *req, agent_response *resp);
    /* After every thread stopped: release ctx. */
    void (*on_stop)(void *ctx);
} agent_hooks;

#define AGENT_MAX_HOOKS 8
#define AGENT_MAX_PROCS 512 /* per GPU, per read */
#define AGENT_MAX_ERRORS 64

typedef struct agent_cli { /* command-line overrides, re-applied after each reload */
    const char *listen;
    double interval; /* 0: from the config */
    int log_level_set;
    gw_log_level log_level;
} agent_cli;

typedef struct http_server http_server;
typedef struct page_cache page_cache;

typedef struct agent {
    /* configuration (cfg is replaced on reload; readers hold cfg_lock) */
    pthread_rwlock_t cfg_lock;
    gw_config *cfg;
    expo_options expo; /* resolved from cfg */
    uint64_t cfg_gen;
    agent_cli cli;
    char hostname[256];

    /* sampling (sampler thread writes, others read under state_lock) */
    sampler s;
    ring *ring; /* NULL until the backend is open */
    pthread_mutex_t state_lock;
    int backend_up;
    char backend_error[256];
    char driver_version[80];
    int ngpus;
    gpu_info *info; /* copies of the sampler's, per GPU */
    int *have_info;
    gpu_proc **procs; /* latest processes, per GPU */
    int *nprocs;
    agent_error_count errors[AGENT_MAX_ERRORS];
    int nerrors;
    double sampling_duration_s;
    double interval_s;  /* in effect */
    uint64_t round_gen; /* +1 after every round */

    pthread_t sampler_thread;
    int sampler_running;
    int stopping;
    pthread_cond_t wake; /* CLOCK_MONOTONIC; signalled to stop or on a new interval */

    http_server *http;
    page_cache *page;
    agent_hooks hooks[AGENT_MAX_HOOKS];
    int nhooks;
} agent;

/* Registers hooks (copied); call before agent_start. Returns 0, or -1 when full. */
int agent_add_hooks(agent *a, const agent_hooks *h);

/* Lifecycle (cmd_agent.c drives these). cfg is owned by the agent from here on. */
int agent_init(agent *a, gw_config *cfg, const agent_cli *cli);
int agent_start(agent *a, char *err, size_t errlen); /* sampler thread + HTTP server */
/* Applies a newly loaded config (SIGHUP): interval, exporter, log level, auth, hooks' sections. */
void agent_reload(agent *a, gw_config *cfg);
void agent_stop(agent *a); /* joins threads, frees everything */

/* The interval in effect (seconds). */
double agent_interval(agent *a);
/* A consistent copy of the latest state (free with snapshot_free). */
int agent_snapshot_take(agent *a, agent_snapshot *out);
/* The backend's state and every GPU's sample age now (free with agent_health_free): what each
 * scrape and /healthz need, read with no sample copied. */
int agent_health_take(agent *a, agent_health *out);
/* The ring of recent samples, or NULL while the backend is not open. */
ring *agent_ring(agent *a);

/* sampler_thread.c */
int sampler_thread_start(agent *a);
void sampler_thread_stop(agent *a);

#endif
