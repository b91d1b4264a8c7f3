/* run_opts.c - parsing `gpuwatch run`'s command line (run_opts.h). */
#include "run_opts.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"

static const char *usage_text =
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

/* One line on stderr naming the option; returns RUN_OPTS_USAGE. */
static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "gpuwatch run: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (see gpuwatch run --help)\n");
    va_end(ap);
    return RUN_OPTS_USAGE;
}

/* A number within [lo, hi]; 0, or a usage error naming the option. */
static int parse_number(const char *opt, const char *v, double lo, double hi, double *out)
{
    char *end;
    double x = v ? strtod(v, &end) : NAN;
    if (!v || end == v || *end || !(x >= lo && x <= hi)) {
        return usage_error("%s: expected a number from %g to %g, got '%s'", opt, lo, hi, v ? v : "");
    }
    *out = x;
    return 0;
}

static int parse_bind(const char *opt, const char *v, int *out)
{
    if (v && strcmp(v, "numa") == 0)
        *out = 1;
    else if (v && strcmp(v, "none") == 0)
        *out = 0;
    else
        return usage_error("%s: expected numa or none, got '%s'", opt, v ? v : "");
    return 0;
}

int run_opts_parse(int argc, char **argv, run_opts *o)
{
    memset(o, 0, sizeof *o);
    o->ngpus = 1;
    o->max_util = 100;
    o->cpu_numa = 1;
    o->price = o->carbon = NAN;
    o->interval_s = 1;
    int i = 1;
    for (; i < argc; i++) {
        char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        if (a[0] != '-')
            break; /* the command, without -- */
        char name[64];
        const char *val = NULL;
        const char *eq = strchr(a, '=');
        if (eq && eq - a < (long)sizeof name) {
            memcpy(name, a, (size_t)(eq - a));
            name[eq - a] = 0;
            val = eq + 1;
        } else {
            gw_strlcpy(name, a, sizeof name);
        }
#define FLAG(s) (strcmp(name, s) == 0)
#define VALUE()                                               \
    do {                                                      \
        if (!val) {                                           \
            if (i + 1 >= argc)                                \
                return usage_error("%s needs a value", name); \
            val = argv[++i];                                  \
        }                                                     \
    } while (0)
        if (FLAG("-h") || FLAG("--help")) {
            fputs(usage_text, stdout);
            return RUN_OPTS_HELP;
        } else if (FLAG("--list")) {
            o->list = 1;
        } else if (FLAG("--no-history")) {
            o->no_history = 1;
        } else if (FLAG("--wait")) {
            o->wait = 1;
            /* an optional TIMEOUT: the next word, unless it is an option or "--"; a word that is
             * not a duration is an error here, never taken for the command */
            const char *next = i + 1 < argc ? argv[i + 1] : NULL;
            if (!val && next && next[0] != '-') {
                val = next;
                i++;
            }
            if (val && gw_parse_duration(val, &o->wait_s) != 0)
                return usage_error("--wait: expected a duration (30s, 10m, 2h), got '%s'%s", val,
                                   eq ? "" : "; the command goes after --");
        } else if (FLAG("--gpus")) {
            long n;
            char *end;
            VALUE();
            n = strtol(val, &end, 10);
            if (end == val || *end || n < 1 || n > RUN_MAX_JOB_GPUS)
                return usage_error("--gpus: expected a whole number from 1 to %d, got '%s'", RUN_MAX_JOB_GPUS, val);
            o->ngpus = (int)n;
        } else if (FLAG("--min-free-mem")) {
            uint64_t bytes;
            VALUE();
            if (gw_parse_size(val, &bytes) != 0)
                return usage_error("--min-free-mem: expected a size (20GiB, 500MB), got '%s'", val);
            o->min_free_mib = (double)bytes / 1048576.0;
        } else if (FLAG("--max-util")) {
            VALUE();
            if (parse_number(name, val, 0, 100, &o->max_util))
                return RUN_OPTS_USAGE;
        } else if (FLAG("--only")) {
            VALUE();
            o->only = val;
        } else if (FLAG("--exclude")) {
            VALUE();
            o->exclude = val;
        } else if (FLAG("--cpu-bind")) {
            VALUE();
            if (parse_bind(name, val, &o->cpu_numa))
                return RUN_OPTS_USAGE;
        } else if (FLAG("--mem-bind")) {
            VALUE();
            if (parse_bind(name, val, &o->mem_numa))
                return RUN_OPTS_USAGE;
        } else if (FLAG("--report")) {
            VALUE();
            o->report = val;
        } else if (FLAG("--json")) {
            VALUE();
            o->json = val;
        } else if (FLAG("--price")) {
            VALUE();
            if (parse_number(name, val, 0, 1e6, &o->price))
                return RUN_OPTS_USAGE;
        } else if (FLAG("--carbon")) {
            VALUE();
            if (parse_number(name, val, 0, 1e5, &o->carbon))
                return RUN_OPTS_USAGE;
        } else if (FLAG("--step-regex")) {
            VALUE();
            o->step_regex = val;
        } else if (FLAG("--name")) {
            VALUE();
            o->name = val;
        } else if (FLAG("--agent")) {
            VALUE();
            o->agent = val;
        } else if (FLAG("--db")) {
            VALUE();
            o->db = val;
        } else if (FLAG("--interval")) {
            VALUE();
            if (gw_parse_duration(val, &o->interval_s) != 0 || o->interval_s < 0.05 || o->interval_s > 3600)
                return usage_error("--interval: expected a duration from 50ms to 1h, got '%s'", val);
        } else {
            return usage_error("unknown option '%s'", a);
        }
#undef FLAG
#undef VALUE
    }
    if (o->list)
        return RUN_OPTS_RUN;
    if (i >= argc)
        return usage_error("no command to run: gpuwatch run [OPTIONS] -- COMMAND [ARG...]");
    o->argv = argv + i;
    return RUN_OPTS_RUN;
}
