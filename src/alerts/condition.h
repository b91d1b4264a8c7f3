/* condition.h - parsing operands (metric, A / B, A - B) and evaluating conditions over a window. */
#ifndef GPUWATCH_CONDITION_H
#define GPUWATCH_CONDITION_H

#include "alerts.h"
#include "engine_window.h"
#include "rules.h"

#define COND_LOOKBACK_US (300LL * 1000000) /* how old the "latest" value may be (as Prometheus) */

typedef enum { TRI_FALSE = 0, TRI_TRUE = 1, TRI_UNKNOWN = 2, TRI_ERROR = 3 /* out of memory */ } tri;

/* The diagnosis findings now active, as the engine was told of them (alert_engine_set_finding). */
typedef struct finding_fact {
    int gpu;
    char detector[FINDING_NAME_MAX];
    int level;        /* 1 info, 2 warning, 3 critical */
    int64_t until_us; /* restored after a restart and not reported again since: counts until then (0: reported) */
} finding_fact;
typedef struct finding_facts {
    finding_fact *v;
    int n, cap;
} finding_facts;

/* What a condition is evaluated against: one GPU (and one process for scope: process). */
typedef struct eval_ctx {
    const sample_source *src;
    int gpu;
    int64_t now_us;
    int64_t latest_us;     /* time of the GPU's newest sample, 0 if none */
    const gpu_proc *procs; /* processes on the GPU */
    int nprocs;
    const gpu_proc *proc;          /* scope: process: the process */
    engine_window *win;            /* the engine's kept values, or NULL: every reduction reads the source */
    const finding_facts *findings; /* NULL where no diagnosis runs: finding.* is unknown */
} eval_ctx;

/* Parses "name", "number", "A / B", "A - B", "A + B", "A * B". Returns 0, or -1 with a message. */
int operand_parse(operand *o, const char *text, char *err, size_t errlen);
/* 1 when the operand reads only process/age facts, not samples (such terms allow only reduce: last). */
int operand_is_instant(const operand *o);
/* 1 when the operand needs a process (scope: process). */
int operand_uses_process(const operand *o);

/* 1 when the operand's value in a sample depends on that sample alone (metrics, gpu.lost, gpu.error,
 * numbers), so that its values can be kept from one evaluation to the next. */
int operand_keepable(const operand *o);
/* The operand's value in sample s (a keepable operand); 0 when absent. */
int operand_at(const operand *o, const gpu_sample *s, double *out);
/* Reduces the values v[0..n) (oldest first; times of the first and last) as a window's; p95 sorts v. */
int reduce_values(reduce_kind r, double *v, int n, int64_t t_first, int64_t t_last, double *out);
/* Evaluates a condition; *value is the left side's reduced value (first child's for all/any).
 * TRI_ERROR when out of memory (the result cannot be told). */
tri cond_eval(const cond *c, const eval_ctx *x, double *value);
/* The reduced value of an operand over (now - window, now]: 1 with *out, 0 when unknown, -1 when out
 * of memory. */
int operand_reduce(const operand *o, reduce_kind r, int64_t window_us, const eval_ctx *x, double *out);
void cond_free(cond *c);

#endif
