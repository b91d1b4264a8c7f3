/* watch.h - the thread that reads a running job's GPUs and process tree every interval: through the
 * sampler (the GPUs read here) or from a running agent (read, not sampled twice), into run_data and,
 * when given, into the history under the GPUs' indexes. */
#ifndef GPUWATCH_RUN_WATCH_H
#define GPUWATCH_RUN_WATCH_H

#include <pthread.h>
#include <sys/types.h>
#include "agent_client.h"
#include "history.h"
#include "proctree.h"
#include "run_data.h"
#include "sampler.h"

typedef struct run_watch {
    /* set by the caller */
    sampler *s;          /* the GPUs read here, or NULL */
    agent_client *agent; /* or read from an agent */
    int ngpus;
    int gpus[RUN_MAX_GPUS]; /* the job's GPUs (sampler and agent indexes) */
    pid_t root;             /* the job's process */
    history *hist;          /* record into it, or NULL */
    double interval_s;
    run_data *data;
    /* the thread's */
    pthread_t th;
    int started;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int stop;
    uint64_t last_t[RUN_MAX_GPUS]; /* agent: the newest sample taken per GPU */
    proctree tree;
} run_watch;

/* Reads once now, then every interval on its own thread (signals stay blocked there as the caller
 * set them). 0, or -1 when the thread cannot start. */
int watch_start(run_watch *w);
/* Takes one last reading, stops the thread and joins it; data is the caller's again. */
void watch_stop(run_watch *w);

#endif
