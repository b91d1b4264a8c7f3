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
#include "job_record.h"
#include "summary.h"
#include "util.h"

static const char usage_text[] =
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

typedef struct jobs_opts {
    const char *db;
    long count;
    int json;
    job_record_opts rec; /* start's and finish's */
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

/* --gpus of start: indexes such as 0,2-3 (the job's GPUs as Slurm or the caller numbers them). */
static int check_gpus(const gw_opt *opt, const char *value, void *out, char *why, size_t n)
{
    unsigned char sel[RUN_MAX_GPUS];
    if (*value && gw_parse_index_list(value, sel, RUN_MAX_GPUS) != 0) {
        snprintf(why, n, "expected indexes such as 0,2-3, got '%s'", value);
        return -1;
    }
    *(const char **)gw_opt_dst(opt, out) = value;
    return 0;
}

/* --name, --user, --command of start: any text, "" for none (the prolog passes what Slurm gave). */
static int check_any_text(const gw_opt *opt, const char *value, void *out, char *why, size_t n)
{
    (void)why, (void)n;
    *(const char **)gw_opt_dst(opt, out) = value;
    return 0;
}

/* --slurm-job of finish: a Slurm job id, digits. */
static int check_slurm_job(const gw_opt *opt, const char *value, void *out, char *why, size_t n)
{
    if (!*value || strspn(value, "0123456789") != strlen(value)) {
        snprintf(why, n, "expected a job id (digits), got '%s'", value);
        return -1;
    }
    *(const char **)gw_opt_dst(opt, out) = value;
    return 0;
}

#define RECORD(field) .off = offsetof(jobs_opts, rec.field)
static const gw_opt start_rows[] = {
    {"--name", GW_OPT_CUSTOM, RECORD(name), .check = check_any_text},
    {"--user", GW_OPT_CUSTOM, RECORD(user), .check = check_any_text},
    {"--gpus", GW_OPT_CUSTOM, RECORD(gpus), .check = check_gpus},
    {"--command", GW_OPT_CUSTOM, RECORD(command), .check = check_any_text},
    {"--db", GW_OPT_PATH, RECORD(db)},
    {0},
};
static const gw_opt finish_rows[] = {
    {"--exit", GW_OPT_INT, RECORD(exit_status), .min = 0, .max = 255},
    {"--slurm-job", GW_OPT_CUSTOM, RECORD(slurm_job), .check = check_slurm_job},
    {"--report", GW_OPT_PATH, RECORD(report)},
    {"--json", GW_OPT_PATH, RECORD(json)},
    {"--db", GW_OPT_PATH, RECORD(db)},
    {0},
};
static const gw_cmd start_cmd = {.name = "jobs start",
                                 .opts = start_rows,
                                 .usage = usage_text,
                                 .min_args = 1,
                                 .max_args = 1,
                                 .args_name = "ID (letters, digits, '.', '_' or '-')"};
static const gw_cmd finish_cmd = {.name = "jobs finish",
                                  .opts = finish_rows,
                                  .usage = usage_text,
                                  .min_args = 1,
                                  .max_args = 1,
                                  .args_name = "ID (the one jobs start was given)"};
static const gw_cmd *const subcommands[] = {&show_cmd, &start_cmd, &finish_cmd, NULL};

/* start and finish: the job's record (job_record.c). */
static int record_command(const gw_args *a, job_record_opts *o)
{
    o->id = a->pos[0];
    if (!job_record_id_ok(o->id))
        return gw_args_exit(gw_usage_error(a->cmd, "ID: letters, digits, '.', '_' or '-' (at most %d), got '%s'",
                                           JOB_RECORD_ID_MAX, o->id));
    return a->cmd == &start_cmd ? job_record_start(o) : job_record_finish(o);
}
static const gw_cmd jobs_cmd = {.name = "jobs", .opts = list_rows, .usage = usage_text, .subs = subcommands};

int cmd_jobs(int argc, char **argv)
{
    jobs_opts o = {.count = 20, .rec.exit_status = -1};
    gw_args a;
    int rc = gw_args_parse(&jobs_cmd, argc, argv, &o, &a);
    if (rc != GW_ARGS_RUN)
        return gw_args_exit(rc);
    if (a.cmd == &start_cmd || a.cmd == &finish_cmd)
        return record_command(&a, &o.rec);
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
