/* engine_window.h - the engine's decoded recent values: per GPU, the values of the operands its rules
 * reduce, kept from one evaluation to the next and appended from the source (each(gpu, since = the
 * last evaluation)), so that an evaluation decodes only the samples that are new. Not for use
 * outside src/alerts. */
#ifndef GPUWATCH_ENGINE_WINDOW_H
#define GPUWATCH_ENGINE_WINDOW_H

#include "alerts.h"
#include "rules.h"

/* An operand the rules reduce: its values are kept per GPU. */
typedef struct window_operand {
    operand o;
    int64_t span_us;     /* longest window it is reduced over (avg, max, increase...); 0: only its last value */
    int64_t lookback_us; /* longest look-back of its last value */
} window_operand;

/* A run of equal values (bit for bit) in consecutive rows of a GPU. */
typedef struct value_run {
    double v;
    uint32_t row, len;
} value_run;

/* One operand on one GPU. */
typedef struct operand_values {
    int have_last;
    int64_t last_t; /* its newest value, that value's time and row */
    double last_v;
    uint32_t last_row;
    value_run *runs; /* runs[first .. first + n), oldest first; only for a tap with a span */
    int first, n, cap;
    int memo; /* the last window reduction since the update (rules often repeat one) */
    int64_t memo_window;
    reduce_kind memo_r;
    int memo_ret;
    double memo_v;
} operand_values;

/* One GPU: the times of its rows (samples) in the longest span, and each operand's values. */
typedef struct window_gpu {
    int valid;        /* holds every sample in (hi - fetch span, hi] */
    int unordered;    /* the source's times go back: evaluate from the source this time */
    int64_t hi;       /* samples are taken up to this time */
    int64_t newest_t; /* time of the newest sample taken (0: none) */
    int newest_dups;  /* how many samples taken have that time */
    int64_t *t;       /* t[tfirst .. tfirst + tn): row times; row ids row0, row0 + 1, ... */
    int tfirst, tn, tcap;
    uint32_t row0, next_row; /* every sample taken is a row (T holds them while a window reaches them) */
    int64_t held_row;        /* the first row the source still holds (its capacity); 0 when unbounded */
    operand_values *operands;
} window_gpu;

typedef struct engine_window {
    window_operand *operands;
    int noperands;
    int64_t fetch_us; /* how far back a GPU's values are read when it starts over */
    int capacity;     /* the most samples per GPU the source keeps (0: no bound) */
    int64_t keep_us;  /* the longest span: how long row times are kept */
    window_gpu *gpus;
    int ngpus;
    double *scratch; /* a window's values, for a reduction */
    size_t scratch_cap;
} engine_window;

/* Finds the operands the rules reduce, numbers them in each leaf (cond.tap_metric / tap_threshold,
 * from 1; 0 = read from the source) and drops every GPU's values. */
void window_plan(engine_window *w, ruleset *rs);
/* Brings every GPU's values up to now_us. */
void window_update(engine_window *w, const sample_source *src, int64_t now_us);
/* Reduces tap (from 1) on gpu over (now - window, now] as operand_reduce does. Returns 1 with *out,
 * 0 when unknown, -1 when the values are not kept (the caller reads the source). */
int window_reduce(engine_window *w, int gpu, int tap, reduce_kind r, int64_t window_us, int64_t now_us, double *out);
/* Bytes the kept values take (for benchmarks). */
size_t window_bytes(const engine_window *w);
void window_free(engine_window *w);

#endif
