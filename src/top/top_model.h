/* top_model.h - what top shows: GPUs, their latest samples and recent history, processes.
 * A source (the local sampler or a remote agent) fills it from a thread; the view only reads it. */
#ifndef GPUWATCH_TOP_MODEL_H
#define GPUWATCH_TOP_MODEL_H

#include <pthread.h>
#include <stdint.h>
#include "sample.h"
#include "backend.h"
#include "ring.h"

#define TOP_MAX_GPUS 64
#define TOP_MAX_PROCS 1024
#define TOP_HISTORY 600 /* samples kept per GPU for charts */

typedef struct top_gpu {
    gpu_info info;
    gpu_sample s; /* latest reading */
    int have_sample;
    int lost;          /* the backend says the GPU is lost */
    uint64_t fresh_us; /* when a good sample last arrived (monotonic) */
} top_gpu;

/* One line of the alerts panel. */
#define TOP_MAX_ALERTS 16
typedef struct top_alert_line {
    int level; /* 0 info, 1 warning, 2 critical (top_level) */
    char text[200];
} top_alert_line;

typedef struct top_model {
    pthread_mutex_t lock;
    char host[128]; /* hostname, or HOST:PORT of a remote agent */
    backend_versions versions;
    int ngpus;
    top_gpu gpus[TOP_MAX_GPUS];
    ring *hist;      /* per-GPU history for charts */
    gpu_proc *procs; /* TOP_MAX_PROCS entries */
    int nprocs;
    uint64_t updated_us;                   /* monotonic time of the last update (0 = none yet) */
    uint64_t seq;                          /* bumped on every update */
    char error[512];                       /* last source error ("" when fine) */
    top_alert_line alerts[TOP_MAX_ALERTS]; /* from the local rules or the agent, worst first */
    int nalerts;
} top_model;

int top_model_init(top_model *m);
void top_model_free(top_model *m);

/* A GPU counts as stale when its last good sample is older than this many intervals. */
#define TOP_STALE_INTERVALS 3
int top_gpu_stale(const top_gpu *g, uint64_t now_mono_us, double interval_s);

/* Where data comes from. refresh() reads one round into the model (taking its lock only
 * to store), returns 0 or -1 with m->error set. */
typedef struct top_source {
    void *ctx;
    int (*refresh)(void *ctx, top_model *m);
    void (*close)(void *ctx);
    /* Optional: called by the refresh thread after each refresh (e.g. to evaluate alert rules). */
    void (*after)(void *actx, top_model *m);
    void *actx;
} top_source;

/* Local GPUs through the sampler. Returns 0, or the backend status with err filled. */
int top_source_local(top_source *src, top_model *m, char *err, size_t errlen);

/* A remote agent's JSON API. */
typedef struct top_remote_opts {
    const char *host; /* HOST:PORT */
    int tls, insecure;
    const char *user, *password_file, *cacert;
} top_remote_opts;
int top_source_remote(top_source *src, top_model *m, const top_remote_opts *o, char *err, size_t errlen);

/* Background refresh: a thread calls src->refresh every interval and signals wake_fd. */
typedef struct top_poller top_poller;
top_poller *top_poller_start(top_source *src, top_model *m, double interval_s);
void top_poller_set_interval(top_poller *p, double interval_s);
void top_poller_pause(top_poller *p, int paused);
void top_poller_kick(top_poller *p); /* refresh now */
int top_poller_fd(top_poller *p);    /* readable after each refresh */
void top_poller_drain(top_poller *p);
void top_poller_stop(top_poller *p);

#endif
