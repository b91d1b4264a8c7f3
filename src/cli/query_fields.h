/* query_fields.h - the --fields list of `gpuwatch query`: catalog metrics by name or alias, "all",
 * and the two query-only fields nvidia-smi also has, timestamp and count. */
#ifndef GPUWATCH_QUERY_FIELDS_H
#define GPUWATCH_QUERY_FIELDS_H

#include <cjson/cJSON.h>
#include "sample.h"

/* QF_NA: an nvidia-smi field gpuwatch does not read (smi_fields.h): its header, and [N/A]. */
typedef enum { QF_METRIC, QF_TIMESTAMP, QF_COUNT, QF_NA } qfield_kind;

typedef struct qfield {
    qfield_kind kind;
    const metric_def *d;           /* QF_METRIC */
    const struct smi_na_field *na; /* QF_NA */
} qfield;

#define QF_MAX 512

typedef struct qfields {
    int n;
    qfield f[QF_MAX];
} qfields;

/* What one GPU's values are read from. */
typedef struct qrow {
    const gpu_info *info;
    const gpu_sample *sample;
    int count; /* GPUs in the system */
} qrow;

extern const char QF_DEFAULT[];

/* "F,F,..." or "all" (every catalog field but the GPM rates, which need two readings 100 ms
 * apart and are read only when named). Names are catalog fields and aliases, timestamp, count and
 * the nvidia-smi fields gpuwatch does not read. Returns 0, or GW_ARGS_USAGE after printing the error
 * (with the closest name for a typo). */
int qfields_parse(const char *cmd, const char *list, qfields *out);
/* The metrics to read (MF_BIT fields read their bitmask). */
void qfields_want(const qfields *q, metric_set *want);

const char *qfield_name(const qfield *f);
int qfield_is_numeric(const qfield *f);
void qfield_header(char *buf, size_t n, const qfield *f, int with_unit);
void qfield_cell(char *buf, size_t n, const qfield *f, const qrow *r, int with_unit);
cJSON *qfield_json(const qfield *f, const qrow *r);

/* The query-only fields, for --help-fields. */
typedef struct qpseudo {
    const char *name, *help;
} qpseudo;
extern const qpseudo qfield_pseudo[2];

#endif
