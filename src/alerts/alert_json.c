/* alert_json.c - building the JSON forms of an alert (see alert_json.h). */
#include "alert_json.h"
#include "template.h"
#include "util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void alert_time_format(int64_t us, char *buf, size_t n)
{
    time_t s = (time_t)(us / 1000000);
    struct tm tm;
    gmtime_r(&s, &tm);
    char date[32];
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf, n, "%s.%03dZ", date, (int)((us % 1000000) / 1000));
}

static int add_time(cJSON *o, const char *key, int64_t us)
{
    char t[40];
    alert_time_format(us, t, sizeof t);
    return cJSON_AddStringToObject(o, key, t) != NULL;
}

/* Adds item (NULL: it could not be built) under key; an item that cannot be added is freed. Returns 1,
 * or 0 when out of memory. cJSON's functions accept NULL objects, so a run of them is checked once. */
static int add_item(cJSON *o, const char *key, cJSON *item)
{
    if (item && cJSON_AddItemToObject(o, key, item))
        return 1;
    cJSON_Delete(item);
    return 0;
}

int alert_json_append(cJSON *arr, cJSON *item)
{
    if (item && cJSON_AddItemToArray(arr, item))
        return 1;
    cJSON_Delete(item);
    return 0;
}

/* o when every part of it was added (ok), else NULL and o freed. */
static cJSON *built(cJSON *o, int ok)
{
    if (ok)
        return o;
    cJSON_Delete(o);
    return NULL;
}

static cJSON *pairs(char **names, char **values, int n)
{
    cJSON *o = cJSON_CreateObject();
    int ok = o != NULL;
    for (int i = 0; ok && i < n; i++)
        ok = cJSON_AddStringToObject(o, names[i], values[i]) != NULL;
    return built(o, ok);
}

static int add_common(cJSON *o, const alert_view *v)
{
    return add_item(o, "labels", pairs(v->label_names, v->label_values, v->nlabels)) &&
           add_item(o, "annotations", pairs(v->annotation_names, v->annotation_values, v->nannotations));
}

static int add_value(cJSON *o, double v)
{
    char value[40];
    gw_format_number(v, value, sizeof value);
    return cJSON_AddStringToObject(o, "value", value) != NULL;
}

cJSON *alert_json_api(const alert_view *v)
{
    cJSON *o = cJSON_CreateObject();
    int ok = add_common(o, v) && cJSON_AddStringToObject(o, "state", alert_state_name(v->state)) &&
             add_time(o, "activeAt", v->active_at_us) && (!v->fired_at_us || add_time(o, "firedAt", v->fired_at_us)) &&
             (!v->resolved_at_us || add_time(o, "resolvedAt", v->resolved_at_us)) && add_value(o, v->value);
    return built(o, ok);
}

cJSON *alert_json_am(const alert_view *v)
{
    cJSON *o = cJSON_CreateObject();
    int ok = add_common(o, v) && add_time(o, "startsAt", v->active_at_us) && add_time(o, "endsAt", v->ends_at_us) &&
             cJSON_AddStringToObject(o, "generatorURL", "");
    return built(o, ok);
}

static const char *status_of(const alert_view *v)
{
    return v->state == ALERT_INACTIVE ? "resolved" : "firing";
}

cJSON *alert_json_exec(const alert_view *v)
{
    cJSON *o = cJSON_CreateObject();
    int ok = cJSON_AddStringToObject(o, "status", status_of(v)) && add_common(o, v) &&
             add_time(o, "startsAt", v->active_at_us) &&
             (v->resolved_at_us ? add_time(o, "endsAt", v->resolved_at_us)
                                : cJSON_AddStringToObject(o, "endsAt", "0001-01-01T00:00:00Z") != NULL) &&
             add_value(o, v->value);
    return built(o, ok);
}

/* Labels (or annotations) every alert shares with the same value. */
static cJSON *common(const alert_view *const *a, int n, int annotations)
{
    cJSON *o = cJSON_CreateObject();
    int ok = o != NULL;
    int cnt = annotations ? a[0]->nannotations : a[0]->nlabels;
    char **names = annotations ? a[0]->annotation_names : a[0]->label_names;
    char **values = annotations ? a[0]->annotation_values : a[0]->label_values;
    for (int i = 0; ok && i < cnt; i++) {
        int shared = 1;
        for (int k = 1; k < n && shared; k++) {
            int kc = annotations ? a[k]->nannotations : a[k]->nlabels;
            char **kn = annotations ? a[k]->annotation_names : a[k]->label_names;
            char **kv = annotations ? a[k]->annotation_values : a[k]->label_values;
            int found = 0;
            for (int j = 0; j < kc; j++)
                found |= strcmp(kn[j], names[i]) == 0 && strcmp(kv[j], values[i]) == 0;
            shared = found;
        }
        if (shared)
            ok = cJSON_AddStringToObject(o, names[i], values[i]) != NULL;
    }
    return built(o, ok);
}

/* A stable id of the label set (FNV-1a over name=value pairs), as Alertmanager's fingerprint. */
static void fingerprint(const alert_view *v, char *buf, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (int i = 0; i < v->nlabels; i++)
        for (int part = 0; part < 2; part++) {
            for (const char *c = part ? v->label_values[i] : v->label_names[i]; *c; c++)
                h = (h ^ (unsigned char)*c) * 1099511628211ull;
            h = (h ^ 0xff) * 1099511628211ull;
        }
    snprintf(buf, n, "%016llx", (unsigned long long)h);
}

/* One alert of a webhook body: the exec form without its value, with generatorURL and fingerprint. */
static cJSON *webhook_alert(const alert_view *v)
{
    cJSON *x = alert_json_exec(v);
    cJSON_DeleteItemFromObject(x, "value");
    char fp[24];
    fingerprint(v, fp, sizeof fp);
    return built(x,
                 x && cJSON_AddStringToObject(x, "generatorURL", "") && cJSON_AddStringToObject(x, "fingerprint", fp));
}

char *alert_json_webhook(const alert_view *const *a, int n, const char *receiver)
{
    cJSON *o = cJSON_CreateObject();
    char key[200];
    snprintf(key, sizeof key, "{}:{alertname=\"%s\"}", n ? a[0]->alertname : "");
    int firing = 0;
    for (int i = 0; i < n; i++)
        firing |= a[i]->state != ALERT_INACTIVE;
    int ok = cJSON_AddStringToObject(o, "version", "4") && cJSON_AddStringToObject(o, "groupKey", key) &&
             cJSON_AddNumberToObject(o, "truncatedAlerts", 0) &&
             cJSON_AddStringToObject(o, "status", firing ? "firing" : "resolved") &&
             cJSON_AddStringToObject(o, "receiver", receiver);
    cJSON *gl = ok ? cJSON_AddObjectToObject(o, "groupLabels") : NULL;
    ok = gl && (!n || cJSON_AddStringToObject(gl, "alertname", a[0]->alertname)) &&
         add_item(o, "commonLabels", n ? common(a, n, 0) : cJSON_CreateObject()) &&
         add_item(o, "commonAnnotations", n ? common(a, n, 1) : cJSON_CreateObject()) &&
         cJSON_AddStringToObject(o, "externalURL", "");
    cJSON *arr = ok ? cJSON_AddArrayToObject(o, "alerts") : NULL;
    ok = arr != NULL;
    for (int i = 0; ok && i < n; i++)
        ok = alert_json_append(arr, webhook_alert(a[i]));
    char *s = ok ? cJSON_PrintUnformatted(o) : NULL;
    cJSON_Delete(o);
    return s;
}
