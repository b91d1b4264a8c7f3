/* notify_alertmanager.c - the alertmanager receiver: POST /api/v2/alerts to every configured
 * Alertmanager, with what Prometheus would send (firing resent each minute, endsAt = now + 4m;
 * resolved alerts with their fixed endsAt, for 15 minutes). */
#include "notify_impl.h"
#include "alert_json.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void notify_am_queue(receiver *r, const alert_list *alerts)
{
    int due = 0;
    for (int i = 0; i < alerts->n; i++)
        due += alerts->v[i].due;
    if (!due)
        return;
    cJSON *arr = cJSON_CreateArray();
    int ok = arr != NULL;
    for (int i = 0; ok && i < alerts->n; i++)
        if (alerts->v[i].due)
            ok = alert_json_append(arr, alert_json_am(&alerts->v[i]));
    notify_job j = {ok ? cJSON_PrintUnformatted(arr) : NULL, NULL};
    cJSON_Delete(arr);
    if (j.body)
        notify_enqueue(r, &j);
    else
        notify_drop(r);
}

/* Base URL (http://host:9093) or the full endpoint; both work. */
static void endpoint(const char *base, char *out, size_t n)
{
    size_t len = strlen(base);
    while (len && base[len - 1] == '/')
        len--;
    if (len >= 14 && strncmp(base + len - 14, "/api/v2/alerts", 14) == 0)
        snprintf(out, n, "%.*s", (int)len, base);
    else
        snprintf(out, n, "%.*s/api/v2/alerts", (int)len, base);
}

int notify_am_send(receiver *r, const notify_job *j, char *err, size_t errlen)
{
    int failed = 0;
    for (int i = 0; i < r->cfg.nurls; i++) {
        char url[1024], e[300];
        endpoint(r->cfg.urls[i], url, sizeof url);
        if (notify_http_post(&r->cfg, url, j->body, e, sizeof e) != 0) {
            if (!failed)
                snprintf(err, errlen, "%s", e);
            failed++;
        }
    }
    /* Prometheus counts a batch as failed only when no Alertmanager took it. */
    return failed == r->cfg.nurls ? -1 : 0;
}
