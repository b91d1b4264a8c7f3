/* run.h - the run module's commands: `gpuwatch run` (place a job on free GPUs, watch it, report what
 * it did) and `gpuwatch jobs` (the jobs recorded in the history). docs/run.md. */
#ifndef GPUWATCH_RUN_H
#define GPUWATCH_RUN_H

/* Exit statuses of gpuwatch run itself (the job's own status passes through otherwise). */
#define RUN_EXIT_NO_GPUS 75     /* not enough free GPUs (after --wait's TIMEOUT) */
#define RUN_EXIT_CANNOT_RUN 126 /* the command cannot be run */
#define RUN_EXIT_NOT_FOUND 127  /* the command was not found */

int cmd_run(int argc, char **argv);
int cmd_jobs(int argc, char **argv);
/* `gpuwatch jobs start` / `jobs finish` (argv[0] is "start" / "finish"): job_record.c. */
int cmd_jobs_start(int argc, char **argv);
int cmd_jobs_finish(int argc, char **argv);

#endif
