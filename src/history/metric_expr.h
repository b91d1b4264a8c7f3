/* metric_expr.h - arithmetic over catalog fields for history queries: `memory.used/memory.total`,
 * `100*memory.used/memory.total`, `(a+b)/2`: + - * /, unary minus, parentheses, numbers and numeric
 * catalog field names (or aliases), evaluated per sample. */
#ifndef GPUWATCH_METRIC_EXPR_H
#define GPUWATCH_METRIC_EXPR_H

#include <stddef.h>
#include "catalog.h"

#define MEXPR_MAX_CODE 64    /* operations of one expression */
#define MEXPR_MAX_METRICS 16 /* distinct fields of one expression */
#define MEXPR_MAX_TEXT 256

typedef struct mexpr_op {
    char op;    /* 'n' number, 'm' field, '+', '-', '*', '/', '~' (negate) */
    int arg;    /* 'm': index into metrics */
    double num; /* 'n' */
} mexpr_op;

typedef struct metric_expr {
    char text[MEXPR_MAX_TEXT];     /* as given, without spaces: the series' name */
    mexpr_op code[MEXPR_MAX_CODE]; /* postfix */
    int ncode;
    metric_id metrics[MEXPR_MAX_METRICS]; /* the fields it reads, each once, in order of appearance */
    int nmetrics;
} metric_expr;

/* Parses text into e. Returns 0, or -1 with a message naming the problem and where it is in err. */
int mexpr_parse(const char *text, metric_expr *e, char *err, size_t errlen);
/* 1 when e is one field and nothing else (metrics[0]). */
int mexpr_is_field(const metric_expr *e);
/* e's value where field metrics[i] has the value vals[i]; NaN when it has none (a division by zero). */
double mexpr_eval(const metric_expr *e, const double *vals);

#endif
