/* query.h - range queries on a history file: metrics x GPUs (or one pid) x [from, to], bucketed by step
 * with an aggregate, from raw chunks or 1-minute roll-ups (chosen automatically). */
#ifndef GPUWATCH_QUERY_H
#define GPUWATCH_QUERY_H

#include <stddef.h>
#include <stdint.h>
#include "catalog.h"
#include "store.h"

typedef enum { AGG_AVG, AGG_MIN, AGG_MAX, AGG_LAST } hq_agg;
typedef enum { HQ_AUTO, HQ_RAW, HQ_ROLLUP } hq_source;

#define HQ_MAX_GPUS 64

typedef struct hq_request {
    const metric_id *metrics;
    int nmetrics;
    const unsigned char *gpus; /* gpus[i] != 0 selects GPU i (HQ_MAX_GPUS entries); NULL = all */
    unsigned pid;              /* != 0: that process's series (memory.used, utilization.gpu) */
    int64_t from_us, to_us;    /* inclusive */
    int64_t step_us;           /* 0: every point (raw) or every minute (roll-ups) */
    hq_agg agg;
    hq_source source;
} hq_request;

typedef struct hq_series {
    int gpu;
    metric_id metric;
    unsigned pid;
    size_t n, cap;
    int64_t *t; /* bucket start (or the sample's time) */
    double *v;
} hq_series;

typedef struct hq_result {
    hq_series *s;
    size_t n;
    int used_rollups;
    /* Parts of the file the query needed and could not read (damaged pages, rows that do not
     * decode): the result holds what is intact. Roll-ups damaged where raw samples are kept are
     * counted too, though those samples stand in for them. */
    long damaged;
} hq_result;

int hq_parse_agg(const char *s, hq_agg *out);
/* Fills out (free with hq_free). Returns 0 (with out->damaged > 0 when parts of the file could not be
 * read), or -1 with a message in err. */
int hq_run(store *st, const hq_request *rq, hq_result *out, char *err, size_t n);
void hq_free(hq_result *r);
/* GPUs recorded in the file (flags in sel[HQ_MAX_GPUS]); returns how many, or -1 when the file
 * could not be read to the end of the list (sel then holds those found). */
int hq_gpus(store *st, unsigned char *sel);
/* The warning to print with a result whose damaged count is not 0. */
void hq_damage_warning(const hq_result *r, char *out, size_t n);

#endif
