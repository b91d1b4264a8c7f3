/* notify_webhook.c - the webhook receiver: Alertmanager's webhook payload (version 4), one POST
 * per alert name whose alerts fired or resolved in an evaluation. */
#include "notify_impl.h"
#include "alert_json.h"
#include <stdlib.h>
#include <string.h>

/* 1 when alerts->v[i] is the first of its alert name. */
static int first_of_name(const alert_list *alerts, int i)
{
    for (int k = 0; k < i; k++)
        if (strcmp(alerts->v[k].alertname, alerts->v[i].alertname) == 0)
            return 0;
    return 1;
}

void notify_webhook_queue(receiver *r, const alert_list *alerts)
{
    const alert_view **group = calloc((size_t)alerts->n + 1, sizeof *group); /* NULL: each group is dropped */
    for (int i = 0; i < alerts->n; i++) {
        if (!first_of_name(alerts, i))
            continue;
        int n = 0;
        for (int k = i; k < alerts->n; k++) {
            const alert_view *v = &alerts->v[k];
            if (strcmp(v->alertname, alerts->v[i].alertname) != 0 || !v->changed ||
                (v->state == ALERT_INACTIVE && !r->cfg.send_resolved))
                continue;
            if (group)
                group[n] = v;
            n++;
        }
        if (n == 0)
            continue;
        notify_job j = {group ? alert_json_webhook(group, n, r->cfg.name) : NULL, NULL};
        if (j.body)
            notify_enqueue(r, &j);
        else
            notify_drop(r);
    }
    free(group);
}

int notify_webhook_send(receiver *r, const notify_job *j, char *err, size_t errlen)
{
    return notify_http_post(&r->cfg, r->cfg.urls[0], j->body, err, errlen);
}
