/* agent.h - the agent's context: config, sampler thread, HTTP server, and the pipeline (pipeline.h)
 * its samples go through: the ring, the process lists, the events and the plugins it was given,
 * which it calls without knowing what they are. */
#ifndef GPUWATCH_AGENT_H
#define GPUWATCH_AGENT_H

#include <pthread.h>
#include <stdint.h>
#include "buf.h"
#include "config.h"
#include "exposition.h"
#include "pipeline.h"
#include "sampler.h"
#include "sampler_pool.h"
#include "snapshot.h"

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
    agent_cli cli;
    char hostname[256];

    /* sampling (sampler thread writes, others read under state_lock) */
    sampler s;
    sampler_pool *pool; /* the GPUs' reader threads (sampler thread; set under state_lock) */
    pipeline *pl;       /* the ring, identities, processes, events and plugins (its GPUs: at the open) */
    pthread_mutex_t state_lock;
    int backend_up;
    int simulated; /* the backend is gpusim */
    char backend_error[256];
    char driver_version[80];
    int ngpus;
    uint64_t *hung_since; /* per GPU: monotonic us its read began, when it is hung; else 0 */
    gpu_status *status;   /* per GPU: its latest read's status (sampler thread only) */
    xid_tally *xids;      /* per GPU: XIDs per code, from its samples */
    gpu_mig *mig;         /* latest MIG devices: GW_MIG_MAX per GPU, nmig[gpu] of them */
    int *nmig;
    agent_error_count errors[AGENT_MAX_ERRORS];
    int nerrors;
    double sampling_duration_s;
    double interval_s; /* in effect */
    uint64_t gen;      /* +1 after every round, backend opening and reload (what a snapshot shows moved) */

    pthread_t sampler_thread;
    int sampler_running;
    int sampler_exited; /* the sampler thread has ended (under state_lock) */
    int in_open;        /* the sampler thread is inside the backend's open (under state_lock) */
    int abandoned;      /* threads left inside the backend at stop: the process must just exit */
    int stopping;
    pthread_cond_t wake; /* CLOCK_MONOTONIC; signalled to stop, on a new interval, when the sampler ends */

    http_server *http;
    page_cache *page;

} agent;

/* Starts a plugin in the agent's pipeline with its config (call between agent_init and
 * agent_start). Returns 0 (the plugin may have chosen to stay off), or -1: it failed (logged), or
 * the table is full. */
int agent_add_plugin(agent *a, const pipeline_plugin *p, gw_config *cfg);

/* Lifecycle (cmd_agent.c drives these). cfg is owned by the agent from here on. */
int agent_init(agent *a, gw_config *cfg, const agent_cli *cli);
int agent_start(agent *a, char *err, size_t errlen); /* sampler thread + HTTP server */
/* Applies a newly loaded config (SIGHUP): interval, exporter, log level, auth, hooks' sections. */
void agent_reload(agent *a, gw_config *cfg);
/* Stops within about AGENT_STOP_S seconds whatever the backend does: the HTTP server, the sampler
 * thread (it never waits for a backend call), then the plugins (history flushes its samples), then
 * the backend. Returns 0 when everything was freed, 1 when a thread was left inside a backend
 * call that never returned (nothing was freed that it may touch: the caller must exit, _exit). */
int agent_stop(agent *a);
#define AGENT_STOP_S 5

/* The interval in effect (seconds). */
double agent_interval(agent *a);
/* A consistent copy of the latest state (free with snapshot_free). */
int agent_snapshot_take(agent *a, agent_snapshot *out);
/* The state's generation: a snapshot taken now would show the same as one of this generation,
 * but for the time. */
uint64_t agent_state_gen(agent *a);
/* The ring of recent samples, or NULL while the backend is not open. */
ring *agent_ring(agent *a);
/* What the plugins advertised (pipeline_facts). */
int agent_facts(agent *a, const char **keys, const char **values, int max);

/* sampler_thread.c */
int sampler_thread_start(agent *a);
/* Stops the sampler thread and the GPUs' readers, waiting until the monotonic deadline_us at most.
 * Returns 0 when all ended; otherwise a->abandoned is set (the sampler thread or readers are
 * inside a backend call) and -1 is returned. */
int sampler_thread_stop(agent *a, uint64_t deadline_us);

#endif
