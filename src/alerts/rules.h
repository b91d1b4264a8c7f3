/* rules.h - the in-memory form of alert rule files: groups, rules and their conditions. */
#ifndef GPUWATCH_RULES_H
#define GPUWATCH_RULES_H

#include <stdint.h>
#include "catalog.h"
#include "errlist.h"
#include "labels.h"
#include "template.h"

#define RULES_MAX_GPUS 256

typedef enum { RED_LAST, RED_AVG, RED_MIN, RED_MAX, RED_P95, RED_INCREASE, RED_RATE, RED_CHANGES } reduce_kind;
typedef enum { CMP_GT, CMP_GE, CMP_LT, CMP_LE, CMP_EQ, CMP_NE } cmp_op;

/* Values the engine knows besides the catalog's: facts about sampling and processes. */
typedef enum {
    PS_GPU_LOST,     /* gpu.lost: 1 when the sample says the GPU fell off the bus */
    PS_GPU_ERROR,    /* gpu.error: 1 when reading the GPU failed */
    PS_SAMPLE_AGE,   /* sample.age: seconds since the GPU's latest sample */
    PS_PROCS_COUNT,  /* processes.count: processes on the GPU */
    PS_PROCS_MEMORY, /* processes.memory: GPU memory held by all of them, MiB */
    PS_PROC_MEMORY,  /* process.memory: GPU memory of one process, MiB (scope: process) */
    PS_PROC_SM,      /* process.sm: SM utilization of one process, % (scope: process) */
    PS_COUNT
} pseudo_id;

/* TERM_FINDING: finding.DETECTOR (or finding.any), the severity of the diagnosis finding now active
 * on the GPU: 0 none, 1 info, 2 warning, 3 critical (the agent's diagnosis posts them). */
typedef enum { TERM_CONST, TERM_METRIC, TERM_PSEUDO, TERM_FINDING } term_kind;
#define FINDING_NAME_MAX 32
typedef struct {
    term_kind kind;
    int id;
    double c;
    char detector[FINDING_NAME_MAX]; /* TERM_FINDING: the detector's id, "" for any */
} term;

/* A value: a term, or two terms joined by one of / - + * (e.g. memory.used / memory.total). */
typedef struct operand {
    term a, b;
    char op;        /* 0 for a single term */
    char text[128]; /* as written, for messages */
} operand;

typedef struct cond {
    enum { COND_LEAF, COND_ALL, COND_ANY } kind;
    operand metric;
    reduce_kind reduce;
    int64_t window_us; /* 0: the latest value (5 minute look-back) */
    cmp_op op;
    operand threshold;
    struct cond *kids; /* COND_ALL / COND_ANY */
    int nkids;
    int tap_metric, tap_threshold; /* the engine's kept values of each side (from 1; 0: none) */
} cond;

typedef struct rule {
    char *alert;
    int64_t for_us, keep_firing_us;
    labels labels;      /* static labels (severity...) */
    labels annotations; /* raw annotation text, expanded with tmpls */
    tmpl *tmpls;        /* one per annotation */
    cond cond;
    int scope_process;
    int has_gpus;
    unsigned char gpus[RULES_MAX_GPUS];
    int line;
} rule;

typedef struct rule_group {
    char *name;
    char *file;
    int64_t interval_us; /* 0: the engine's default */
    rule *rules;
    int nrules;
} rule_group;

typedef struct ruleset {
    rule_group *groups;
    int ngroups;
} ruleset;

/* Appends the groups of one YAML rule file. Every problem goes into errs as FILE:LINE:COL: text;
 * out of memory, "FILE: out of memory". Returns the number of errors found in this file (0 = loaded;
 * at least 1 on an error, even one whose message could not be kept); on an error rs is as it was. */
int rules_load_file(ruleset *rs, const char *path, errlist *errs);
/* Same, from a string (path is only used in messages). */
int rules_load_string(ruleset *rs, const char *path, const char *text, errlist *errs);
int ruleset_count(const ruleset *rs);
/* Frees the groups from index ngroups on (undoes the loads that appended them). */
void ruleset_truncate(ruleset *rs, int ngroups);
void ruleset_free(ruleset *rs);

/* A pseudo metric of rule files (process.memory, ...) by name. */
int pseudo_find(const char *name); /* -1 if not a pseudo metric */
const char *pseudo_name(int id);   /* its name ("" for none) */

/* The identity of rule r of group g across reloads and restarts: equal for two rules whose group,
 * name, condition, for, labels, scope and target GPUs are the same (annotations, interval and
 * keep_firing_for may differ). Written into out (RULE_KEY_MAX bytes; the digest comes first, so a
 * cut leaves it whole). */
#define RULE_KEY_MAX 256
void rule_key(const rule_group *g, const rule *r, char *out, size_t n);

#endif
