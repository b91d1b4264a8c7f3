/* jobs.h - the jobs `gpuwatch run` ran: one row each in the history file (table `jobs`), written when
 * a job starts and again when it ends, with its summary as text and JSON. The job's GPU samples are
 * the history's own (recorded by the run, or by the agent it read), found by the job's GPUs and time. */
#ifndef GPUWATCH_HISTORY_JOBS_H
#define GPUWATCH_HISTORY_JOBS_H

#include <stddef.h>
#include <stdint.h>

typedef struct history_job {
    char id[40];
    char name[128];
    char command[1024];
    char user[64];
    char host[128];
    int64_t t_start_us;
    int64_t t_end_us;   /* 0 while it runs */
    char gpus[256];     /* indexes, "3,5" */
    char uuids[1024];   /* comma separated */
    int exit_status;    /* -1 while it runs */
    int simulated;      /* the GPUs were gpusim's */
    double energy_j;    /* NAN when unknown */
    char *summary_text; /* malloc'd, or NULL */
    char *summary_json; /* malloc'd, or NULL */
} history_job;

/* Inserts or replaces the job's row (creating the file, its folder and the table when needed).
 * 0, or -1 with the reason in err. */
int history_job_save(const char *path, const history_job *j, char *err, size_t n);

/* The jobs of the file, newest first, at most max (summaries left out). Returns how many were handed
 * to cb, or -1 with the reason in err. A file without jobs has none (0). */
int history_jobs_list(const char *path, int max, void (*cb)(void *ctx, const history_job *j), void *ctx, char *err,
                      size_t n);

/* The job whose id is id or starts with it: 1 found (out filled; history_job_free it), 0 none,
 * -1 error or an ambiguous prefix (reason in err). */
int history_job_get(const char *path, const char *id, history_job *out, char *err, size_t n);
void history_job_free(history_job *j);

#endif
