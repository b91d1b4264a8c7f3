/* query.h - range queries on a history file: metrics (or expressions over them) x GPUs (or one pid) x
 * [from, to], bucketed by step with an aggregate, from raw chunks or 1-minute roll-ups (chosen
 * automatically). */
#ifndef GPUWATCH_QUERY_H
#define GPUWATCH_QUERY_H

#include <stddef.h>
#include <stdint.h>
#include "catalog.h"
#include "metric_expr.h"
#include "store.h"

/* The percentiles are of a bucket's samples (linear interpolation between closest ranks, as
 * quantile_over_time): only raw samples have them. */
typedef enum { AGG_AVG, AGG_MIN, AGG_MAX, AGG_LAST, AGG_P50, AGG_P90, AGG_P95, AGG_P99 } hq_agg;
typedef enum { HQ_AUTO, HQ_RAW, HQ_ROLLUP } hq_source;

#define HQ_MAX_GPUS 64

typedef struct hq_request {
    const metric_id *metrics;
    int nmetrics;
    /* NULL, or nmetrics expressions: item i is exprs[i] (metrics[i] is then not read). An expression
     * that is more than one field is evaluated per sample, per GPU, before bucketing, from raw
     * samples only; a sample lacking one of its fields, or dividing by zero, has no value (NaN). */
    const metric_expr *exprs;
    const unsigned char *gpus; /* gpus[i] != 0 selects GPU i (HQ_MAX_GPUS entries); NULL = all */
    unsigned pid;              /* != 0: that process's series (memory.used, utilization.gpu) */
    int64_t from_us, to_us;    /* inclusive */
    int64_t step_us;           /* 0: every point (raw) or every minute (roll-ups); buckets start at
                                  multiples of it in Unix time */
    hq_agg agg;
    hq_source source;
} hq_request;

typedef struct hq_series {
    int gpu;
    int item;         /* the request's metric or expression */
    metric_id metric; /* the item's metric (an expression's first field) */
    unsigned pid;
    size_t n, cap;
    int64_t *t; /* bucket start (or the sample's time) */
    double *v;  /* NaN: no value (an expression in a sample that lacks a field it reads) */
} hq_series;

typedef struct hq_result {
    hq_series *s;
    size_t n;
    int used_rollups;
    /* Parts of the file the query needed and could not read (damaged pages, rows that do not
     * decode): the result holds what is intact. Roll-ups damaged where raw samples are kept are
     * counted too, though those samples stand in for them. */
    long damaged;
    /* Series read from samples (percentiles, expressions) whose range starts before a GPU's oldest
     * raw sample, where 1-minute roll-ups hold that part: it is left out (roll-ups cannot give it).
     * raw_start_us: the latest such GPU's oldest raw sample, INT64_MAX when one has none. */
    int rollups_only;
    int64_t raw_start_us;
} hq_result;

int hq_parse_agg(const char *s, hq_agg *out);
const char *hq_agg_name(hq_agg a);
/* 1 for the aggregates only raw samples give (percentiles). */
int hq_agg_needs_samples(hq_agg a);
/* 1 when item i of rq is read sample by sample (an expression, or a percentile). */
int hq_item_needs_samples(const hq_request *rq, int i);
/* The series' name (its field or expression) and unit (NULL for expressions). */
const char *hq_series_name(const hq_request *rq, const hq_series *s);
const char *hq_series_unit(const hq_request *rq, const hq_series *s);
/* Fills out (free with hq_free). Returns 0 (with out->damaged > 0 when parts of the file could not be
 * read), or -1 with a message in err. */
int hq_run(store *st, const hq_request *rq, hq_result *out, char *err, size_t n);
void hq_free(hq_result *r);
/* GPUs recorded in the file (flags in sel[HQ_MAX_GPUS]); returns how many, or -1 when the file
 * could not be read to the end of the list (sel then holds those found). */
int hq_gpus(store *st, unsigned char *sel);
/* What names each GPU of the file besides its index (its UUID and PCI bus id, "" when not
 * recorded), for GPU lists (gpu_list.h). Returns how many indexes the file spans (its highest GPU
 * recorded + 1; 0 when none), or -1 when it cannot be read. */
typedef struct hq_gpu_names {
    char uuid[96], bus_id[32];
} hq_gpu_names;
int hq_gpu_names_read(store *st, hq_gpu_names *out);
/* The warning to print with a result whose damaged count is not 0. */
void hq_damage_warning(const hq_result *r, char *out, size_t n);

#endif
