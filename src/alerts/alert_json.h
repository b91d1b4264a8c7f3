/* alert_json.h - an alert in the JSON shapes others expect: Prometheus' API, Alertmanager's
 * POST /api/v2/alerts, Alertmanager's webhook payload (version 4), and our exec receiver. */
#ifndef GPUWATCH_ALERT_JSON_H
#define GPUWATCH_ALERT_JSON_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include "alerts.h"

/* RFC 3339 UTC with milliseconds, e.g. 2026-12-02T15:04:05.123Z. */
void alert_time_format(int64_t us, char *buf, size_t n);

/* Each returns NULL when out of memory (caller frees with cJSON_Delete). */
cJSON *alert_json_api(const alert_view *v);  /* {labels, annotations, state, activeAt, value} */
cJSON *alert_json_am(const alert_view *v);   /* {labels, annotations, startsAt, endsAt, generatorURL} */
cJSON *alert_json_exec(const alert_view *v); /* {status, labels, annotations, startsAt, endsAt, value} */
/* Webhook v4 body for alerts[0..n) (one group, grouped by alertname); malloc'ed text (caller frees),
 * NULL when out of memory. */
char *alert_json_webhook(const alert_view *const *alerts, int n, const char *receiver);
/* Appends item (NULL: it could not be built) to the array arr; frees an item it cannot append.
 * Returns 1, or 0 when either is NULL (out of memory). */
int alert_json_append(cJSON *arr, cJSON *item);

#endif
