/* cmd_jobs.c - `gpuwatch jobs` (the jobs gpuwatch run recorded, newest first) and `gpuwatch jobs show ID`
 * (one job's summary, as printed when it ended, or its JSON). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cli_common.h"
#include "history.h"
#include "jobs.h"
#include "run.h"
#include "sampler.h"
#include "summary.h"
#include "util.h"

static const char *usage_text =
    "usage: gpuwatch jobs [--db PATH] [-n COUNT]\n"
    "       gpuwatch jobs show ID [--json] [--db PATH]\n"
    "       gpuwatch jobs start ID [--name NAME] [--user USER] [--gpus LIST] [--command TEXT] [--db PATH]\n"
    "       gpuwatch jobs finish ID [--exit STATUS] [--slurm-job N] [--report FILE.html] [--json FILE] [--db PATH]\n\n"
    "The jobs `gpuwatch run` recorded in the history file, newest first; `show` prints\n"
    "one job's summary (ID may be a unique prefix). `start` and `finish` record a job gpuwatch run\n"
    "did not start (a Slurm job's prolog and epilog: deploy/slurm/): the finish computes its summary\n"
    "from the history's samples of its GPUs over its time (--slurm-job: that job's processes are its).\n";

static void list_row(void *ctx, const history_job *j)
{
    (void)ctx;
    char start[32], dur[32], energy[32], status[16];
    time_t t = (time_t)(j->t_start_us / 1000000);
    struct tm tm;
    localtime_r(&t, &tm);
    strftime(start, sizeof start, "%Y-%m-%d %H:%M", &tm);
    if (j->t_end_us)
        summary_duration((double)(j->t_end_us - j->t_start_us) / 1e6, dur, sizeof dur);
    else
        snprintf(dur, sizeof dur, "running");
    if (isnan(j->energy_j))
        snprintf(energy, sizeof energy, "-");
    else
        snprintf(energy, sizeof energy, "%.1f Wh", j->energy_j / 3600);
    if (j->exit_status >= 0)
        snprintf(status, sizeof status, "%d", j->exit_status);
    else
        snprintf(status, sizeof status, "-");
    char cmd[61];
    gw_strlcpy(cmd, j->name[0] ? j->name : j->command, sizeof cmd);
    printf("%-20s  %-16s  %-10s  %-12s  %-8s  %-6s  %-10s  %s%s\n", j->id, start, dur, j->gpus, j->user, status, energy,
           cmd, j->simulated ? "  (simulated GPUs)" : "");
}

int cmd_jobs(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "start") == 0)
        return cmd_jobs_start(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "finish") == 0)
        return cmd_jobs_finish(argc - 1, argv + 1);
    const char *db = NULL, *id = NULL;
    int json = 0, show = 0;
    long count = 20;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            fputs(usage_text, stdout);
            return 0;
        } else if (strcmp(argv[i], "--db") == 0 && i + 1 < argc) {
            db = argv[++i];
        } else if (strcmp(argv[i], "-n") == 0 && i + 1 < argc) {
            char *end;
            count = strtol(argv[++i], &end, 10);
            if (*end || count <= 0) {
                fprintf(stderr, "gpuwatch jobs: -n: expected a positive count, got '%s'\n", argv[i]);
                return GW_EXIT_USAGE;
            }
        } else if (strcmp(argv[i], "--json") == 0) {
            json = 1;
        } else if (strcmp(argv[i], "show") == 0 && !show) {
            show = 1;
        } else if (show && !id && argv[i][0] != '-') {
            id = argv[i];
        } else {
            fprintf(stderr, "gpuwatch jobs: unexpected '%s' (see gpuwatch jobs --help)\n", argv[i]);
            return GW_EXIT_USAGE;
        }
    }
    char path[4096], err[512];
    hcli_db_path(db, path, sizeof path);
    if (!show) {
        printf("%-20s  %-16s  %-10s  %-12s  %-8s  %-6s  %-10s  %s\n", "ID", "STARTED", "DURATION", "GPUS", "USER",
               "EXIT", "ENERGY", "NAME/COMMAND");
        int n = history_jobs_list(path, (int)count, list_row, NULL, err, sizeof err);
        if (n < 0) {
            fprintf(stderr, "gpuwatch jobs: %s\n", err);
            return 1;
        }
        if (n == 0)
            fprintf(stderr, "gpuwatch jobs: no job recorded in %s\n", path);
        return 0;
    }
    if (!id) {
        fprintf(stderr, "gpuwatch jobs show: which job? (gpuwatch jobs lists them)\n");
        return GW_EXIT_USAGE;
    }
    history_job j;
    int found = history_job_get(path, id, &j, err, sizeof err);
    if (found < 0) {
        fprintf(stderr, "gpuwatch jobs show: %s\n", err);
        return 1;
    }
    if (found == 0) {
        fprintf(stderr, "gpuwatch jobs show: no job '%s' in %s\n", id, path);
        return 1;
    }
    if (json && j.summary_json)
        printf("%s\n", j.summary_json);
    else if (j.summary_text)
        fputs(j.summary_text, stdout);
    else
        printf("job %s is running (since it started: %s, GPUs %s)\n", j.id, j.command, j.gpus);
    history_job_free(&j);
    return 0;
}
