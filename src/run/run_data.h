/* run_data.h - what `gpuwatch run` collects about a job while it runs: each chosen GPU's readings
 * (the fields the summary and the report use, compact), the processes seen on those GPUs, the job's
 * process tree on the host, and the diagnosis window fed with the same readings. */
#ifndef GPUWATCH_RUN_DATA_H
#define GPUWATCH_RUN_DATA_H

#include <stddef.h>
#include <stdint.h>
#include "diag.h"
#include "placement.h"
#include "sample.h"

/* One reading of one GPU. Floats are NAN when absent. */
typedef struct run_point {
    int64_t t_us;
    double sim_t;                          /* scenario seconds of the reading; -1 when the GPUs are real */
    double energy_mj;                      /* energy counter, NAN absent */
    double viol_power_us, viol_thermal_us; /* throttle time counters, NAN absent */
    double xid_count;                      /* NAN absent */
    float util, sm_active, mem_used, mem_total, power, power_limit, temp, temp_mem, clock_sm;
    uint32_t throttle; /* clocks_event_reasons.active (low 32 bits) */
    unsigned char has_throttle;
    unsigned char lost;
    unsigned short xid_last;
} run_point;

typedef struct run_gpu {
    int index;
    char uuid[GW_STR_LEN];
    char name[GW_STR_LEN];
    char bus_id[GW_STR_LEN];
    run_point *pts;
    size_t n, cap;
} run_gpu;

/* A process seen on a chosen GPU. */
typedef struct run_proc {
    int gpu; /* index */
    unsigned pid;
    int in_job; /* in the job's process tree */
    char name[64];
    char user[32];
    double peak_mem_mib; /* NAN never read */
    double peak_sm;      /* NAN never read */
    int64_t first_us, last_us;
} run_proc;

/* The job's process tree on the host at one time. */
typedef struct run_host_point {
    int64_t t_us;
    float cpu_percent; /* summed over the tree; 100 = one CPU */
    float rss_mib;
    int nprocs;
} run_host_point;

typedef struct run_data {
    int ngpus;
    run_gpu gpus[RUN_MAX_GPUS];
    run_proc *procs;
    size_t nprocs, procs_cap;
    run_host_point *host;
    size_t nhost, host_cap;
    diag_window *win;
    diag_job_note *notes; /* what the job's output said about GPU memory, until run_data_add_notes */
    size_t nnotes, notes_cap;
    int simulated;
    char source[160]; /* "sampled here (NVML)" or "agent http://HOST:PORT" */
    int oom;
} run_data;

/* 0, or -1 out of memory. */
int run_data_init(run_data *d);
void run_data_free(run_data *d);
/* The slot of GPU index, adding it (identity from info) when new; NULL when full. */
run_gpu *run_data_gpu(run_data *d, int index, const gpu_info *info);
/* Records one reading of a chosen GPU (and feeds the diagnosis window). sim_t: -1 when real. */
void run_data_add_sample(run_data *d, run_gpu *g, const gpu_info *info, const gpu_sample *s, double sim_t);
/* Records the processes on a chosen GPU at t_us; in_job(pid) says which belong to the job. */
void run_data_add_procs(run_data *d, int gpu, int64_t t_us, const gpu_proc *p, int n, const int *in_job);
void run_data_add_host(run_data *d, const run_host_point *h);
/* One line of the job's output (the thread that reads it): kept when it is one of the allocator's
 * messages the diagnosis reads (diag_job_line). */
void run_data_add_output(run_data *d, int64_t t_us, const char *line);
/* After sampling stopped: those notes into the diagnosis window, on the GPU the job's device number
 * names (the job's device k is the k-th chosen GPU: CUDA_VISIBLE_DEVICES keeps that order). */
void run_data_add_notes(run_data *d);

#endif
