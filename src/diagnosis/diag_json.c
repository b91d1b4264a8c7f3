/* diag_json.c - the report as JSON (cJSON): {"findings": [{"detector", "gpus", "severity", "from",
 * "to", "pids", "summary", "evidence", "advice", "signal"}]}, times in RFC 3339 (docs/diagnosis.md). */
#include "diag_report.h"
#include "diag.h"
#include "timeparse.h"
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Numbers with at most 4 significant decimals, so 0.1 stays 0.1 and no float noise shows. */
static double tidy(double v)
{
    if (!isfinite(v) || v == 0)
        return v;
    double mag = fabs(v) >= 1 ? 1e3 : 1e4;
    return round(v * mag) / mag;
}

static void add_time(cJSON *o, const char *key, uint64_t t_us)
{
    char buf[40];
    diag_format_time(t_us, buf, sizeof buf);
    cJSON_AddStringToObject(o, key, buf);
}

static void add_evidence(cJSON *item, const diag_finding *f)
{
    cJSON *ev = cJSON_AddObjectToObject(item, "evidence");
    for (int i = 0; i < f->n_evidence; i++) {
        const diag_evidence *e = &f->evidence[i];
        if (e->is_str)
            cJSON_AddStringToObject(ev, e->key, e->str);
        else if (isfinite(e->num))
            cJSON_AddNumberToObject(ev, e->key, tidy(e->num));
        else
            cJSON_AddNullToObject(ev, e->key);
    }
}

static void add_signal(cJSON *item, const diag_chart *ch)
{
    if (ch->n == 0)
        return;
    cJSON *sig = cJSON_AddObjectToObject(item, "signal");
    cJSON_AddStringToObject(sig, "metric", ch->metric);
    cJSON_AddStringToObject(sig, "unit", ch->unit);
    cJSON_AddNumberToObject(sig, "gpu", ch->gpu);
    add_time(sig, "from", ch->from_us);
    add_time(sig, "to", ch->to_us);
    cJSON *vals = cJSON_AddArrayToObject(sig, "values");
    for (int i = 0; i < ch->n; i++)
        cJSON_AddItemToArray(vals, cJSON_CreateNumber(tidy(ch->v[i])));
}

static cJSON *finding_json(const diag_finding *f)
{
    cJSON *item = cJSON_CreateObject();
    cJSON_AddStringToObject(item, "detector", f->detector);
    cJSON *gpus = cJSON_AddArrayToObject(item, "gpus");
    for (int i = 0; i < f->n_gpus; i++)
        cJSON_AddItemToArray(gpus, cJSON_CreateNumber(f->gpus[i]));
    cJSON_AddStringToObject(item, "severity", diag_severity_name(f->severity));
    add_time(item, "from", f->from_us);
    add_time(item, "to", f->to_us);
    cJSON *pids = cJSON_AddArrayToObject(item, "pids");
    for (int i = 0; i < f->n_pids; i++)
        cJSON_AddItemToArray(pids, cJSON_CreateNumber(f->pids[i]));
    cJSON_AddStringToObject(item, "summary", f->summary);
    add_evidence(item, f);
    cJSON *adv = cJSON_AddArrayToObject(item, "advice");
    for (int i = 0; i < f->n_advice; i++)
        cJSON_AddItemToArray(adv, cJSON_CreateString(f->advice[i]));
    add_signal(item, &f->chart);
    return item;
}

char *diag_report_json(const diag_report *r, int pretty)
{
    cJSON *root = cJSON_CreateObject();
    if (!root)
        return NULL;
    if (r->from_us) {
        add_time(root, "from", r->from_us);
        add_time(root, "to", r->to_us);
    }
    cJSON *arr = cJSON_AddArrayToObject(root, "findings");
    for (int i = 0; arr && i < r->n; i++)
        cJSON_AddItemToArray(arr, finding_json(&r->f[i]));
    char *cj = pretty ? cJSON_Print(root) : cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    if (!cj)
        return NULL;
    /* handed out as a plain malloc'd string */
    char *out = strdup(cj);
    cJSON_free(cj);
    return out;
}

/* ---- reading a report back (gpuwatch diagnose --host) ---- */

static uint64_t time_of(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    int64_t t = 0;
    if (cJSON_IsString(v) && tp_parse_time(v->valuestring, 0, &t) == 0)
        return (uint64_t)t;
    return 0;
}

static const char *detector_named(const char *name)
{
    for (int i = 0; name && i < diag_detector_count(); i++)
        if (strcmp(diag_detector_id(i), name) == 0)
            return diag_detector_id(i);
    return NULL;
}

static void read_finding(diag_report *r, const cJSON *item)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(item, "detector");
    const char *det = detector_named(cJSON_IsString(v) ? v->valuestring : NULL);
    if (!det)
        return; /* a detector this gpuwatch does not know */
    v = cJSON_GetObjectItemCaseSensitive(item, "severity");
    const char *sev = cJSON_IsString(v) ? v->valuestring : "info";
    diag_finding *f = diag_report_add(r, det,
                                      !strcmp(sev, "critical")  ? DIAG_CRITICAL
                                      : !strcmp(sev, "warning") ? DIAG_WARNING
                                                                : DIAG_INFO);
    if (!f)
        return;
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(item, "gpus")) if (cJSON_IsNumber(e))
        diag_finding_gpu(f, e->valueint);
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(item, "pids")) if (cJSON_IsNumber(e) && e->valuedouble > 0)
        diag_finding_pid(f, (unsigned)e->valuedouble);
    f->from_us = time_of(item, "from");
    f->to_us = time_of(item, "to");
    v = cJSON_GetObjectItemCaseSensitive(item, "summary");
    if (cJSON_IsString(v))
        diag_finding_summary(f, "%s", v->valuestring);
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(item, "evidence"))
    {
        if (cJSON_IsString(e))
            diag_finding_str(f, e->string, "%s", e->valuestring);
        else if (cJSON_IsNumber(e))
            diag_finding_num(f, e->string, e->valuedouble, "");
    }
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(item, "advice")) if (cJSON_IsString(e))
        diag_finding_advice(f, "%s", e->valuestring);
    const cJSON *sig = cJSON_GetObjectItemCaseSensitive(item, "signal");
    if (cJSON_IsObject(sig)) {
        diag_chart *ch = &f->chart;
        v = cJSON_GetObjectItemCaseSensitive(sig, "metric");
        snprintf(ch->metric, sizeof ch->metric, "%s", cJSON_IsString(v) ? v->valuestring : "");
        v = cJSON_GetObjectItemCaseSensitive(sig, "unit");
        snprintf(ch->unit, sizeof ch->unit, "%s", cJSON_IsString(v) ? v->valuestring : "");
        v = cJSON_GetObjectItemCaseSensitive(sig, "gpu");
        ch->gpu = cJSON_IsNumber(v) ? v->valueint : -1;
        ch->from_us = time_of(sig, "from");
        ch->to_us = time_of(sig, "to");
        cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(sig, "values")) if (cJSON_IsNumber(e) &&
                                                                                   ch->n < DIAG_CHART_POINTS)
            ch->v[ch->n++] = (float)e->valuedouble;
        ch->lo = ch->hi = ch->n ? ch->v[0] : 0;
        for (int i = 0; i < ch->n; i++) {
            ch->lo = ch->v[i] < ch->lo ? ch->v[i] : ch->lo;
            ch->hi = ch->v[i] > ch->hi ? ch->v[i] : ch->hi;
        }
        if (!strcmp(ch->unit, "%")) {
            ch->lo = 0;
            ch->hi = 100;
        }
    }
}

int diag_report_from_json(const char *text, diag_report *out)
{
    diag_report_clear(out);
    cJSON *root = text ? cJSON_Parse(text) : NULL;
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, "findings");
    if (!cJSON_IsArray(arr)) {
        cJSON_Delete(root);
        return -1;
    }
    out->from_us = time_of(root, "from");
    out->to_us = time_of(root, "to");
    const cJSON *item;
    cJSON_ArrayForEach(item, arr) if (cJSON_IsObject(item)) read_finding(out, item);
    cJSON_Delete(root);
    return out->oom ? -1 : 0;
}
