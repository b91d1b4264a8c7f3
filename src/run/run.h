/* run.h - the run module's commands: `gpuwatch run` (place a job on free GPUs, watch it, report what
 * it did) and `gpuwatch jobs` (the jobs recorded in the history). docs/run.md. */
#ifndef GPUWATCH_RUN_H
#define GPUWATCH_RUN_H

#include "args.h"

/* Exit statuses of gpuwatch run itself (the job's own status passes through otherwise). */
#define RUN_EXIT_NO_GPUS 75     /* not enough free GPUs (after --wait's TIMEOUT) */
#define RUN_EXIT_CANNOT_RUN 126 /* the command cannot be run */
#define RUN_EXIT_NOT_FOUND 127  /* the command was not found */

int cmd_run(int argc, char **argv);
int cmd_jobs(int argc, char **argv);
/* Their options, for completion (gw_args_each_option). */
void run_options(const char *sub, gw_opt_visit *fn, void *ctx);
void jobs_options(const char *sub, gw_opt_visit *fn, void *ctx);

#endif
