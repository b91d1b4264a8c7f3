/* run_opts.h - the command line of `gpuwatch run`: options, then `--` and the job's command. */
#ifndef GPUWATCH_RUN_OPTS_H
#define GPUWATCH_RUN_OPTS_H

#define RUN_MAX_JOB_GPUS 64 /* --gpus (placement.h's RUN_MAX_GPUS) */

typedef struct run_opts {
    int ngpus;           /* --gpus N (default 1) */
    double min_free_mib; /* --min-free-mem SIZE (0 any) */
    double max_util;     /* --max-util PCT (100 any) */
    const char *only, *exclude;
    int wait;      /* --wait */
    double wait_s; /* its TIMEOUT, 0 = forever */
    int cpu_numa;  /* --cpu-bind numa (default) | none */
    int mem_numa;  /* --mem-bind numa | none (default) */
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

#define RUN_OPTS_RUN 0
#define RUN_OPTS_HELP 1
#define RUN_OPTS_USAGE 2

/* Parses argv (argv[0] "run"). Returns RUN_OPTS_RUN, RUN_OPTS_HELP (usage printed) or RUN_OPTS_USAGE
 * (one line on stderr). */
int run_opts_parse(int argc, char **argv, run_opts *o);

#endif
