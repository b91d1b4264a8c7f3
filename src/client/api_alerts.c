/* api_alerts.c - decoding /api/v1/alerts (Prometheus' shape: data.alerts[] with labels, annotations,
 * state, activeAt), keeping the pending and firing alerts (agent_api.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "api_read.h"

int api_decode_alerts(const char *body, size_t len, const api_context *ctx, api_alerts *out, char *err, size_t n)
{
    memset(out, 0, sizeof *out);
    cJSON *root;
    const cJSON *arr = api_list(body, len, "data", "alerts", "alerts", &root, err, n);
    int room;
    if (!arr || !(out->a = api_items(arr, API_MAX_ALERTS, sizeof *out->a, &room, err, n))) {
        cJSON_Delete(root);
        return -1;
    }
    const cJSON *o;
    cJSON_ArrayForEach(o, arr)
    {
        char state[16];
        api_str(o, "state", state, sizeof state);
        int firing = strcmp(state, "firing") == 0;
        if (!firing && strcmp(state, "pending") != 0)
            continue; /* resolved or inactive */
        api_alert *a = out->n < room ? &out->a[out->n] : NULL;
        const cJSON *labels = cJSON_GetObjectItemCaseSensitive(o, "labels");
        if (!a || !api_str(labels, "alertname", a->name, sizeof a->name) || !a->name[0]) {
            out->left_out++;
            continue;
        }
        a->firing = firing;
        api_str(labels, "severity", a->severity, sizeof a->severity);
        api_str(cJSON_GetObjectItemCaseSensitive(o, "annotations"), "summary", a->summary, sizeof a->summary);
        uint64_t t;
        a->active_at_us = api_rfc3339(ctx, o, "activeAt", &t) ? (int64_t)t : 0;
        out->n++;
    }
    cJSON_Delete(root);
    return 0;
}

void api_alerts_free(api_alerts *a)
{
    free(a->a);
    a->a = NULL;
    a->n = 0;
}
