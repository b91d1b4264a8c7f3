/* run_opts.h - the command line of `gpuwatch run`: options, then `--` and the job's command. */
#ifndef GPUWATCH_RUN_OPTS_H
#define GPUWATCH_RUN_OPTS_H

#include <stdint.h>
#include "args.h"

#define RUN_MAX_JOB_GPUS 64 /* --gpus (placement.h's RUN_MAX_GPUS) */

typedef struct run_opts {
    long ngpus;             /* --gpus N (default 1) */
    uint64_t min_free_size; /* --min-free-mem SIZE in bytes (0 any) */
    double min_free_mib;    /* the same in MiB */
    double max_util;        /* --max-util PCT (100 any) */
    const char *only, *exclude;
    int wait;      /* --wait */
    double wait_s; /* its TIMEOUT, 0 = forever */
    int cpu_numa;  /* --cpu-bind numa (default, 1) | none (0) */
    int mem_numa;  /* --mem-bind numa (1) | none (default, 0) */
    const char *report, *json;
    double price, carbon; /* NAN when not given */
    const char *step_regex;
    const char *name;
    const char *agent; /* --agent HOST:PORT or "none"; NULL: $GPUWATCH_AGENT, else 127.0.0.1:9400 if it answers */
    const char *db;    /* --db PATH: the history file */
    int no_history;
    double interval_s; /* --interval (default 1 s) */
    int list;          /* --list */
    char **argv;       /* the job's command (NULL-terminated), NULL with --list */
} run_opts;

/* Parses argv (argv[0] "run"): the options, then the job's command, after -- or at the first word
 * that is no option. Returns GW_ARGS_RUN, GW_ARGS_HELP (usage printed) or GW_ARGS_USAGE (one line on
 * stderr: an option's value is never taken for the command). */
int run_opts_parse(int argc, char **argv, run_opts *o);

#endif
