/* prom_api.h - the one decoder of the Prometheus HTTP query API's answers (/api/v1/query_range,
 * /api/v1/query, /api/v1/series), as Prometheus, VictoriaMetrics, Thanos and Mimir give them, for
 * every client of an engine: diagnose --prometheus and top --prometheus.
 *
 * Nothing an engine sends is trusted. An answer is bounded before it is parsed (bytes, JSON values,
 * nesting: api_read.h's caps), then every series and point is checked before it is kept: counts of
 * series, points and labels are capped, label names must be Prometheus names and values are cut and
 * cleaned (gw_clean_text), times must be finite and within the queried range (a step of slack either
 * side) and increase, values must parse as numbers. NaN and infinite values (Prometheus' "NaN",
 * "+Inf", "-Inf") are no readings: they are left out and counted, as an absent metric is never 0. An
 * error answer ({"status":"error","errorType":...,"error":...}) becomes one clean line. */
#ifndef GPUWATCH_PROM_API_H
#define GPUWATCH_PROM_API_H

#include <stddef.h>
#include <stdint.h>

#define PROM_MAX_SERIES 20000     /* series kept of one answer */
#define PROM_MAX_POINTS 11000     /* points kept of one series (Prometheus' own limit per query) */
#define PROM_MAX_LABELS 48        /* labels kept of one series */
#define PROM_MAX_LABEL_NAME 128   /* bytes of a label's name: longer names leave the label out */
#define PROM_MAX_LABEL_VALUE 1024 /* bytes of a label's value: longer values are cut */

typedef enum { PROM_MATRIX, PROM_VECTOR, PROM_SERIES } prom_kind;

typedef struct prom_label {
    char *name;  /* [a-zA-Z_][a-zA-Z0-9_]*, "__name__" for the metric's name */
    char *value; /* cleaned */
} prom_label;

typedef struct prom_series {
    int nlabels;
    prom_label *labels;
    int n; /* points kept, in increasing time (a vector's one point; none for /series) */
    uint64_t *t_us;
    double *v; /* finite */
} prom_series;

typedef struct prom_result {
    prom_kind kind;
    int n; /* series kept */
    prom_series *s;
    int series_left_out;  /* past PROM_MAX_SERIES, or not an object with a "metric" object */
    long points_left_out; /* past PROM_MAX_POINTS, a bad time, a time not after the one before */
    long nonfinite;       /* NaN and infinite values, left out */
    int labels_left_out;  /* past PROM_MAX_LABELS, a bad name, a repeated name, a value not a string */
    char warning[200];    /* the engine's first warning, cleaned; "" when none */
} prom_result;

/* What the times of points are checked against: [from_us - slack_us, to_us + slack_us]. to_us 0: any
 * positive time within a year of our clock (as api_read's windows). */
typedef struct prom_context {
    uint64_t from_us, to_us;
    uint64_t slack_us;
} prom_context;

/* Decodes an answer of the kind want, whatever its HTTP status (status is the HTTP status; an error
 * answer's text is the message). 0 with out filled (the caller frees it with prom_result_free), or -1
 * with err filled ("HTTP 400: bad_data: 1:5: parse error: ...", "not JSON", "a vector where a matrix
 * was asked") and out empty. */
int prom_decode(const char *body, size_t len, long status, const prom_context *ctx, prom_kind want, prom_result *out,
                char *err, size_t n);
void prom_result_free(prom_result *r);

/* The value of label name in s, or NULL when s has none. */
const char *prom_label_get(const prom_series *s, const char *name);

/* A Prometheus sample value ("1.5", "NaN", "+Inf", "1e3"): 1 with *out set when it is a finite
 * number, else 0. */
int prom_parse_value(const char *s, double *out);

#endif
