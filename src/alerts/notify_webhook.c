/* notify_webhook.c - the webhook receiver: Alertmanager's webhook payload (version 4), one POST
 * per alert name whose alerts fired or resolved in an evaluation. */
#include "notify_impl.h"
#include "alert_json.h"
#include <stdlib.h>
#include <string.h>

void notify_webhook_queue(receiver *r, const alert_list *alerts)
{
    const alert_view **group = calloc((size_t)alerts->n + 1, sizeof *group);
    char *done = calloc((size_t)alerts->n + 1, 1);
    if (!group || !done) {
        free(group);
        free(done);
        return;
    }
    for (int i = 0; i < alerts->n; i++) {
        int n = 0;
        for (int k = i; k < alerts->n; k++) {
            const alert_view *v = &alerts->v[k];
            if (done[k] || strcmp(v->alertname, alerts->v[i].alertname) != 0)
                continue;
            done[k] = 1;
            if (v->changed && (v->state != ALERT_INACTIVE || r->cfg.send_resolved))
                group[n++] = v;
        }
        if (n == 0)
            continue;
        notify_job j = {alert_json_webhook(group, n, r->cfg.name), NULL};
        notify_enqueue(r, &j);
    }
    free(group);
    free(done);
}

int notify_webhook_send(receiver *r, const notify_job *j, char *err, size_t errlen)
{
    return notify_http_post(&r->cfg, r->cfg.urls[0], j->body, err, errlen);
}
