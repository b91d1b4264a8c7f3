/* alert_json.c - building the JSON forms of an alert (see alert_json.h). */
#include "alert_json.h"
#include "template.h"
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

static void add_time(cJSON *o, const char *key, int64_t us)
{
    char t[40];
    alert_time_format(us, t, sizeof t);
    cJSON_AddStringToObject(o, key, t);
}

static cJSON *pairs(char **names, char **values, int n)
{
    cJSON *o = cJSON_CreateObject();
    for (int i = 0; i < n; i++)
        cJSON_AddStringToObject(o, names[i], values[i]);
    return o;
}

static void add_common(cJSON *o, const alert_view *v)
{
    cJSON_AddItemToObject(o, "labels", pairs(v->label_names, v->label_values, v->nlabels));
    cJSON_AddItemToObject(o, "annotations", pairs(v->annotation_names, v->annotation_values, v->nannotations));
}

cJSON *alert_json_api(const alert_view *v)
{
    cJSON *o = cJSON_CreateObject();
    add_common(o, v);
    cJSON_AddStringToObject(o, "state", alert_state_name(v->state));
    add_time(o, "activeAt", v->active_at_us);
    if (v->fired_at_us)
        add_time(o, "firedAt", v->fired_at_us);
    if (v->resolved_at_us)
        add_time(o, "resolvedAt", v->resolved_at_us);
    char value[40];
    tmpl_format_value(v->value, value, sizeof value);
    cJSON_AddStringToObject(o, "value", value);
    return o;
}

cJSON *alert_json_am(const alert_view *v)
{
    cJSON *o = cJSON_CreateObject();
    add_common(o, v);
    add_time(o, "startsAt", v->active_at_us);
    add_time(o, "endsAt", v->ends_at_us);
    cJSON_AddStringToObject(o, "generatorURL", "");
    return o;
}

static const char *status_of(const alert_view *v)
{
    return v->state == ALERT_INACTIVE ? "resolved" : "firing";
}

cJSON *alert_json_exec(const alert_view *v)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "status", status_of(v));
    add_common(o, v);
    add_time(o, "startsAt", v->active_at_us);
    if (v->resolved_at_us)
        add_time(o, "endsAt", v->resolved_at_us);
    else
        cJSON_AddStringToObject(o, "endsAt", "0001-01-01T00:00:00Z");
    char value[40];
    tmpl_format_value(v->value, value, sizeof value);
    cJSON_AddStringToObject(o, "value", value);
    return o;
}

/* Labels (or annotations) every alert shares with the same value. */
static cJSON *common(const alert_view *const *a, int n, int annotations)
{
    cJSON *o = cJSON_CreateObject();
    int cnt = annotations ? a[0]->nannotations : a[0]->nlabels;
    char **names = annotations ? a[0]->annotation_names : a[0]->label_names;
    char **values = annotations ? a[0]->annotation_values : a[0]->label_values;
    for (int i = 0; i < cnt; i++) {
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
            cJSON_AddStringToObject(o, names[i], values[i]);
    }
    return o;
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

char *alert_json_webhook(const alert_view *const *a, int n, const char *receiver)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "version", "4");
    char key[200];
    snprintf(key, sizeof key, "{}:{alertname=\"%s\"}", n ? a[0]->alertname : "");
    cJSON_AddStringToObject(o, "groupKey", key);
    cJSON_AddNumberToObject(o, "truncatedAlerts", 0);
    int firing = 0;
    for (int i = 0; i < n; i++)
        firing |= a[i]->state != ALERT_INACTIVE;
    cJSON_AddStringToObject(o, "status", firing ? "firing" : "resolved");
    cJSON_AddStringToObject(o, "receiver", receiver);
    cJSON *gl = cJSON_AddObjectToObject(o, "groupLabels");
    if (n)
        cJSON_AddStringToObject(gl, "alertname", a[0]->alertname);
    cJSON_AddItemToObject(o, "commonLabels", n ? common(a, n, 0) : cJSON_CreateObject());
    cJSON_AddItemToObject(o, "commonAnnotations", n ? common(a, n, 1) : cJSON_CreateObject());
    cJSON_AddStringToObject(o, "externalURL", "");
    cJSON *arr = cJSON_AddArrayToObject(o, "alerts");
    for (int i = 0; i < n; i++) {
        cJSON *x = alert_json_exec(a[i]);
        cJSON_DeleteItemFromObject(x, "value");
        cJSON_AddStringToObject(x, "generatorURL", "");
        char fp[24];
        fingerprint(a[i], fp, sizeof fp);
        cJSON_AddStringToObject(x, "fingerprint", fp);
        cJSON_AddItemToArray(arr, x);
    }
    char *s = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return s;
}
