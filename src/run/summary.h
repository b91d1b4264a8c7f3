/* summary.h - what a job did, computed from run_data once it has ended: per GPU utilization
 * (average, p95), SM activity, peak memory, power, energy (the energy counter, or the power
 * integrated where the GPU has none), time power- and thermally throttled, temperatures and XIDs;
 * the job's processes and host CPU; cost and CO2; step times and how the GPUs' idle gaps line up
 * with the steps; the diagnosis findings of the job's window. Rendered as text (summary_text.c),
 * JSON (report_json.c) and HTML (report_html.c). */
#ifndef GPUWATCH_RUN_SUMMARY_H
#define GPUWATCH_RUN_SUMMARY_H

#include "buf.h"
#include "run_data.h"
#include "steps.h"

#define SUMMARY_MAX_XIDS 16

typedef struct gpu_stats {
    int index;
    char uuid[GW_STR_LEN];
    char name[GW_STR_LEN];
    int nsamples;
    int lost_samples;
    double util_avg, util_p95; /* % */
    double sm_avg;             /* gpm.sm_active average, NAN when absent */
    double mem_peak_mib, mem_total_mib;
    double power_avg, power_max, power_limit; /* W */
    double energy_j;
    int energy_from_counter;          /* 1 counter, 0 power integrated */
    double power_capped_s, thermal_s; /* time throttled */
    double window_s;                  /* time between the first and last reading */
    double temp_max, temp_mem_max;
    int nxids;
    unsigned xid_code[SUMMARY_MAX_XIDS];
    int64_t xid_t_us[SUMMARY_MAX_XIDS];
} gpu_stats;

/* How the GPUs' idle gaps line up with the steps. */
typedef struct gap_stats {
    int valid;         /* steps are long enough against the sampling to tell */
    int ngaps;         /* idle gaps over every GPU */
    int between;       /* gaps with a step boundary in them */
    double share;      /* between / ngaps */
    double chance;     /* the share a gap placed at random would have */
    char verdict[200]; /* "the input pipeline ..." */
} gap_stats;

typedef struct run_meta {
    char id[40];
    char name[128];
    char command[1024];
    char user[64];
    char host[128];
    char cwd[512];
    int64_t t_start_us, t_end_us;
    int exit_status;                        /* as gpuwatch run exits: the job's code, 128+N when signal N killed it */
    int signal;                             /* 0 when it exited */
    double price_per_kwh, carbon_g_per_kwh; /* NAN when not given */
    char binding[640];                      /* what host_plan_binding did */
    double interval_s;
} run_meta;

typedef struct run_summary {
    run_meta meta;
    int simulated;
    char source[160];
    int ngpus;
    gpu_stats g[RUN_MAX_GPUS];
    double energy_j; /* all GPUs */
    int energy_all_counter;
    double cost, co2_g; /* NAN when no price / intensity */
    double host_cpu_avg, host_cpu_max, host_rss_peak_mib;
    int host_nprocs_max;
    step_stats steps;
    gap_stats gaps;
    diag_report findings;
} run_summary;

/* Computes the summary (marks: the step series, may be empty). 0, or -1 out of memory. */
int summary_compute(run_summary *out, const run_meta *meta, const run_data *d, const step_parser *sp);
void summary_free(run_summary *s);

/* The ten-second read, for people (UTF-8). Appends to out. */
void summary_text(const run_summary *s, const run_data *d, gw_buf *out);
/* Everything as JSON: the summary, the series per GPU, the processes, the steps, the findings.
 * with_series: 0 no series (the history's copy), 1 every reading, N > 1 at most N points a series.
 * Step marks: at most SUMMARY_ROW_MARKS, SUMMARY_JSON_MARKS or N (neighbours merged beyond).
 * malloc'd text (free()), NULL out of memory. */
#define SUMMARY_ROW_MARKS 500
#define SUMMARY_JSON_MARKS 4000
char *summary_json(const run_summary *s, const run_data *d, const step_parser *sp, int with_series);
/* The self-contained HTML report: charts (Chart.js, inlined from chartjs_path) and findings. 0, or
 * -1 with the reason in err. */
int summary_html(const run_summary *s, const run_data *d, const step_parser *sp, const char *path,
                 const char *chartjs_path, char *err, size_t n);

/* "1h 02m 05s" */
void summary_duration(double s, char *out, size_t n);

#endif
