/* query_json.h - range query results as /api/v1/query_range JSON (Prometheus-style matrix). */
#ifndef GPUWATCH_QUERY_JSON_H
#define GPUWATCH_QUERY_JSON_H

#include "query.h"

/* Shortest text that reads back as the same double. */
void hq_format_value(double v, char *out, size_t n);
enum {
    HQ_JSON_PRETTY = 1,  /* indented */
    HQ_JSON_NUMBERS = 2, /* values as JSON numbers (null: no value) rather than Prometheus's strings */
};
/* {"status":"success","data":{"resultType":"matrix","result":[...]}} (flags: HQ_JSON_*): malloc'd
 * text, NULL on no memory. */
char *hq_result_json(store *st, const hq_request *rq, const hq_result *r, int flags);

#endif
