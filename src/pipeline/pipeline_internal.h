/* pipeline_internal.h - the pipeline's parts, shared by pipeline.c (plugins, fan-out, events) and
 * pipeline_state.c (the ring, identities and processes, the source plugins read). */
#ifndef GPUWATCH_PIPELINE_INTERNAL_H
#define GPUWATCH_PIPELINE_INTERNAL_H

#include <pthread.h>
#include "pipeline.h"

#define PIPELINE_MAX_HOST_FACTS 4

struct pipeline {
    char hostname[256];
    pipeline_view view;

    /* plugins, in the order they were added (the pipeline's thread; fixed once the host runs) */
    struct {
        const pipeline_plugin *p;
        void *ctx;
    } plugins[PIPELINE_MAX_PLUGINS];
    int nplugins;
    struct {
        char key[32];
        char value[4096];
    } facts[PIPELINE_MAX_PLUGINS]; /* advertised by plugins */
    int nfacts;
    struct {
        char key[32];
        char value[64];
    } host_facts[PIPELINE_MAX_HOST_FACTS]; /* the host's (pipeline_host_fact), under mu */
    int nhost_facts;

    pthread_mutex_t events_lock; /* events posted and not yet delivered */
    gw_event *events;
    int nevents;

    /* what it keeps of the GPUs: set at open, then under mu (the ring has its own lock) */
    pthread_mutex_t mu;
    int ngpus; /* 0 until pipeline_open */
    ring *ring;
    gpu_info *info;
    int *have_info;
    gpu_proc **procs; /* latest, per GPU */
    int *nprocs;
    event_deriver *derivers; /* per GPU (the pipeline's thread) */
};

/* pipeline_state.c */
void pipeline_state_init(pipeline *p);
void pipeline_state_free(pipeline *p);
/* Keeps a GPU's identity (info given) and sample; 0, or -1 for a GPU the pipeline does not have. */
int pipeline_keep_sample(pipeline *p, int gpu, const gpu_info *info, const gpu_sample *s);
/* Keeps a GPU's latest processes (a copy; none kept when out of memory). */
void pipeline_keep_processes(pipeline *p, int gpu, const gpu_proc *procs, int n);

/* pipeline.c */
/* Posts a copy of ev for the next delivery (any thread). */
void pipeline_post(pipeline *p, const gw_event *ev);

#endif
