/* query_json.h - range query results as /api/v1/query_range JSON (Prometheus-style matrix). */
#ifndef GPUWATCH_QUERY_JSON_H
#define GPUWATCH_QUERY_JSON_H

#include "query.h"

/* Shortest text that reads back as the same double. */
void hq_format_value(double v, char *out, size_t n);
/* {"status":"success","data":{"resultType":"matrix","result":[...]}}: malloc'd text, NULL on no memory. */
char *hq_result_json(store *st, const hq_request *rq, const hq_result *r, int pretty);
/* {"status":"error","errorType":"bad_data","error":msg}: malloc'd. */
char *hq_error_json(const char *msg);

#endif
