/* run_opts.c - parsing `gpuwatch run`'s command line (run_opts.h). */
#include "run_opts.h"
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "gpu_list.h"
#include "http_client.h"
#include "util.h"

static const char usage_text[] =
    "usage: gpuwatch run [OPTIONS] -- COMMAND [ARG...]\n"
    "       gpuwatch run --list\n\n"
    "Places COMMAND on free GPUs (reserved against other gpuwatch runs), binds it to their NUMA node, watches\n"
    "the GPUs and the job's processes, and prints what the job did. Exits with the job's status.\n\n"
    "placement:\n"
    "  --gpus N              GPUs to give the job (default 1)\n"
    "  --min-free-mem SIZE   only GPUs with this much free memory (20GiB, 40000MB, ...)\n"
    "  --max-util PCT        only GPUs busy less than this over a short window (default any)\n"
    "  --only LIST           only these GPUs (indexes, ranges, UUIDs: 0,2,4-7)\n"
    "  --exclude LIST        never these GPUs\n"
    "  --wait [TIMEOUT]      wait until enough GPUs are free (for at most TIMEOUT: 10m, 2h)\n"
    "  --cpu-bind numa|none  bind the job's CPUs to its GPUs' NUMA node (default numa)\n"
    "  --mem-bind numa|none  bind its memory there too (default none)\n"
    "  --list                who holds which GPU now\n"
    "report:\n"
    "  --report FILE.html    a self-contained HTML report with charts\n"
    "  --json FILE           the same data as JSON\n"
    "  --price PER_KWH       electricity price, for the job's cost\n"
    "  --carbon G_PER_KWH    grid carbon intensity, for its CO2\n"
    "  --step-regex RE       step lines (Perl-compatible, as Python's re; group 1 the step number, group 2\n"
    "                        its time)\n"
    "                        default: tqdm, Hugging Face Trainer, Lightning, Megatron-LM, 'step N ... loss'\n"
    "  --name NAME           the job's name in reports and `gpuwatch jobs`\n"
    "sources:\n"
    "  --agent HOST:PORT     read a running agent instead of sampling (default: 127.0.0.1:9400 when it\n"
    "                        answers with these GPUs; 'none' never)\n"
    "  --interval SECONDS    sampling interval (default 1)\n"
    "  --db PATH             history file (default $GPUWATCH_HISTORY_DB or the agent's default)\n"
    "  --no-history          record nothing\n";

/* --wait [TIMEOUT]: an optional duration; a word that is not one is an error, never the command. */
static int check_wait(const gw_opt *opt, const char *v, void *out, char *why, size_t n)
{
    run_opts *o = out;
    (void)opt;
    o->wait = 1;
    if (v && gw_parse_duration(v, &o->wait_s) != 0) {
        snprintf(why, n, "expected a duration (30s, 10m, 2h), got '%s'; the command goes after --", v);
        return -1;
    }
    return 0;
}

/* --agent HOST:PORT, or none. */
static int check_agent(const gw_opt *opt, const char *v, void *out, char *why, size_t n)
{
    if (strcmp(v, "none") == 0) {
        ((run_opts *)out)->agent = v;
        return 0;
    }
    if (http_client_check_host(opt, v, out, why, n) != 0) {
        snprintf(why, n, "expected HOST:PORT (gpu1:9400; no http://) or none, got '%s'", v);
        return -1;
    }
    return 0;
}

#define AT(field) .off = offsetof(run_opts, field)

static const gw_opt rows[] = {
    {"--gpus", GW_OPT_INT, AT(ngpus), .min = 1, .max = RUN_MAX_JOB_GPUS},
    {"--min-free-mem", GW_OPT_SIZE, AT(min_free_size)},
    {"--max-util", GW_OPT_NUMBER, AT(max_util), .min = 0, .max = 100},
    {"--only", GW_OPT_CUSTOM, AT(only), .check = gpu_list_check},
    {"--exclude", GW_OPT_CUSTOM, AT(exclude), .check = gpu_list_check},
    {"--wait", GW_OPT_CUSTOM, .check = check_wait, .flags = GW_OPT_OPTIONAL_VALUE},
    {"--cpu-bind", GW_OPT_CHOICE, AT(cpu_numa), .choices = "none,numa"},
    {"--mem-bind", GW_OPT_CHOICE, AT(mem_numa), .choices = "none,numa"},
    {"--list", GW_OPT_FLAG, AT(list)},
    {"--report", GW_OPT_OUTFILE, AT(report)},
    {"--json", GW_OPT_OUTFILE, AT(json)},
    {"--price", GW_OPT_NUMBER, AT(price), .min = 0, .max = 1e6},
    {"--carbon", GW_OPT_NUMBER, AT(carbon), .min = 0, .max = 1e5},
    {"--step-regex", GW_OPT_TEXT, AT(step_regex)},
    {"--name", GW_OPT_TEXT, AT(name)},
    {"--agent", GW_OPT_CUSTOM, AT(agent), .check = check_agent},
    {"--db", GW_OPT_PATH, AT(db)},
    {"--no-history", GW_OPT_FLAG, AT(no_history)},
    {"--interval", GW_OPT_DURATION, AT(interval_s), .min = 0.05, .max = 3600},
    {0},
};

static const gw_cmd run_cmd = {.name = "run", .opts = rows, .usage = usage_text, .max_args = -1, .flags = GW_CMD_REST};

int run_opts_parse(int argc, char **argv, run_opts *o)
{
    memset(o, 0, sizeof *o);
    o->ngpus = 1;
    o->max_util = 100;
    o->cpu_numa = 1;
    o->price = o->carbon = NAN;
    o->interval_s = 1;
    gw_args a;
    int rc = gw_args_parse(&run_cmd, argc, argv, o, &a);
    if (rc != GW_ARGS_RUN)
        return rc;
    o->min_free_mib = (double)o->min_free_size / 1048576.0;
    if (o->list)
        return GW_ARGS_RUN;
    if (a.npos == 0)
        return gw_usage_error(&run_cmd, "no command to run: gpuwatch run [OPTIONS] -- COMMAND [ARG...]");
    o->argv = a.pos;
    return GW_ARGS_RUN;
}

void run_options(const char *sub, gw_opt_visit *fn, void *ctx)
{
    gw_args_each_option(&run_cmd, sub, fn, ctx);
}
