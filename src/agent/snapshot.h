/* snapshot.h - a consistent copy of what the agent knows, taken under its lock and then read
 * without locks by the /metrics page, the JSON API and /healthz. */
#ifndef GPUWATCH_SNAPSHOT_H
#define GPUWATCH_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>
#include "sample.h"

typedef struct agent_gpu_view {
    gpu_info info;
    int have_info;
    gpu_sample sample; /* latest sample from the ring */
    int has_sample;
    int lost;     /* latest sample said GPU_LOST */
    double age_s; /* now - sample time */
    int stale;    /* age > 3 intervals */
} agent_gpu_view;

typedef struct agent_error_count {
    char function[64];
    char error[48];
    uint64_t count;
} agent_error_count;

typedef struct agent_snapshot {
    int backend_up;
    char backend_error[256];
    char driver_version[80];
    int ngpus;
    agent_gpu_view *gpus;
    gpu_proc *procs; /* all GPUs, flattened */
    int nprocs;
    agent_error_count *errors;
    int nerrors;
    double sampling_duration_s; /* last sampling round */
    size_t ring_bytes;          /* memory the sample ring holds */
    double interval_s;
    uint64_t now_us;
    uint64_t round_gen; /* sampling rounds so far */
    uint64_t cfg_gen;   /* config loads so far */
} agent_snapshot;

void snapshot_free(agent_snapshot *s);

/* What every scrape and /healthz read: the backend's state and each GPU's sample age, taken
 * without copying samples (see agent_health_take). */
typedef struct agent_gpu_health {
    int has_sample;
    int stale;    /* age > 3 intervals */
    double age_s; /* now - sample time */
} agent_gpu_health;

typedef struct agent_health {
    int backend_up;
    char backend_error[256];
    int ngpus;
    agent_gpu_health *gpus; /* malloc'ed; index = GPU index */
    double interval_s;
    uint64_t now_us;
    uint64_t round_gen; /* as in agent_snapshot */
    uint64_t cfg_gen;
} agent_health;

void agent_health_free(agent_health *h);

#endif
