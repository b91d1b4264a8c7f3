/* run_module.c - the run module: `run` (place a job on free GPUs, watch it, report what it did) and
 * `jobs` (the jobs it recorded). Links hwloc and SQLite. */
#include "module_api.h"
#include "run.h"

const gw_module_command gw_module_commands[] = {
    {"run", cmd_run, run_options},
    {"jobs", cmd_jobs, jobs_options},
    {0},
};
