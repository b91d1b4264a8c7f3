/* cmd_jobs.c - `gpuwatch jobs` (the jobs gpuwatch run recorded, newest first) and `gpuwatch jobs show ID`
 * (one job's summary, as printed when it ended, or its JSON). */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "args.h"
#include "history_locate.h"
#include "history.h"
#include "jobs.h"
#include "run.h"
#include "sampler.h"
#include "summary.h"
#include "util.h"

static const char usage_text[] = "usage: gpuwatch jobs [--db PATH] [-n COUNT]\n"
                                 "       gpuwatch jobs show ID [--json] [--db PATH]\n\n"
                                 "The jobs `gpuwatch run` recorded in the history file, newest first; `show` prints\n"
                                 "one job's summary (ID may be a unique prefix).\n";

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

typedef struct jobs_opts {
    const char *db;
    long count;
    int json;
} jobs_opts;

static const gw_opt list_rows[] = {
    {"--db", GW_OPT_PATH, .off = offsetof(jobs_opts, db)},
    {"-n", GW_OPT_INT, .off = offsetof(jobs_opts, count), .min = 1},
    {0},
};
static const gw_opt show_rows[] = {
    {"--db", GW_OPT_PATH, .off = offsetof(jobs_opts, db)},
    {"--json", GW_OPT_FLAG, .off = offsetof(jobs_opts, json)},
    {0},
};
static const gw_cmd show_cmd = {.name = "jobs show",
                                .opts = show_rows,
                                .usage = usage_text,
                                .min_args = 1,
                                .max_args = 1,
                                .args_name = "ID (gpuwatch jobs lists them)"};
static const gw_cmd *const subcommands[] = {&show_cmd, NULL};
static const gw_cmd jobs_cmd = {.name = "jobs", .opts = list_rows, .usage = usage_text, .subs = subcommands};

int cmd_jobs(int argc, char **argv)
{
    jobs_opts o = {.count = 20};
    gw_args a;
    int rc = gw_args_parse(&jobs_cmd, argc, argv, &o, &a);
    if (rc != GW_ARGS_RUN)
        return gw_args_exit(rc);
    const char *db = o.db, *id = a.npos ? a.pos[0] : NULL;
    int json = o.json, show = a.cmd == &show_cmd;
    long count = o.count;
    char path[4096], err[512];
    history_locate(db, path, sizeof path);
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

void jobs_options(const char *sub, gw_opt_visit *fn, void *ctx)
{
    gw_args_each_option(&jobs_cmd, sub, fn, ctx);
}
