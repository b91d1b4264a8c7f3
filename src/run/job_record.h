/* job_record.h - `gpuwatch jobs start` and `gpuwatch jobs finish` (their options are parsed by
 * cmd_jobs.c): the record of a job gpuwatch run did not start, such as a Slurm job's. */
#ifndef GPUWATCH_JOB_RECORD_H
#define GPUWATCH_JOB_RECORD_H

#define JOB_RECORD_ID_MAX 39 /* characters of a job's id (history_job.id holds 40 bytes) */

typedef struct job_record_opts {
    const char *id, *name, *user, *gpus, *command, *db, *report, *json, *slurm_job;
    long exit_status; /* -1: not given (0) */
} job_record_opts;

/* Whether id is a job's id: 1 to JOB_RECORD_ID_MAX letters, digits, '.', '_' or '-'. */
int job_record_id_ok(const char *id);
/* Writes the job's row (running). The exit status: 0, or 1 (said why). */
int job_record_start(const job_record_opts *o);
/* Computes the job's summary from the history and writes it into its row, the report and the JSON
 * when asked. The exit status: 0, or 1 (said why). */
int job_record_finish(const job_record_opts *o);

#endif
