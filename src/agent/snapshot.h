/* snapshot.h - a consistent copy of what the agent knows, taken under its lock and then read
 * without locks by the /metrics page, the JSON API and /healthz: the one way to read its state. */
#ifndef GPUWATCH_SNAPSHOT_H
#define GPUWATCH_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>
#include "sample.h"
#include "xid_tally.h"

typedef struct agent_gpu_view {
    gpu_info info;
    int have_info;
    gpu_sample sample; /* latest sample from the ring */
    int has_sample;
    int lost;       /* latest sample said GPU_LOST */
    int hung;       /* a read of it has been in progress for over max(2 intervals, 1 s) */
    double hung_s;  /* for how long, at the snapshot (0 when not hung) */
    xid_tally xids; /* XIDs per code, from the samples so far */

    /* its MIG devices (MIG mode), as last read */
    gpu_mig mig[GW_MIG_MAX];
    int nmig;
} agent_gpu_view;

typedef struct agent_error_count {
    char function[64];
    char error[48];
    uint64_t count;
} agent_error_count;

typedef struct agent_snapshot {
    int backend_up;
    int simulated; /* the GPUs are gpusim's: every consumer must be able to tell */
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
    uint64_t now_us; /* when it was taken */
    uint64_t gen;    /* the agent's state generation then (agent_state_gen) */
} agent_snapshot;

void snapshot_free(agent_snapshot *s);
/* The age at now_us of a GPU's latest sample, in seconds (0 without one); *stale: it is older than
 * three intervals. */
double snapshot_sample_age(const agent_snapshot *s, int gpu, uint64_t now_us, int *stale);

#endif
