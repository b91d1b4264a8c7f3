/* diag_json.c - the report as JSON (cJSON): {"findings": [{"detector", "gpus", "severity", "from",
 * "to", "pids", "summary", "evidence", "advice", "signal"}]}, times in RFC 3339 (docs/diagnosis.md). */
#include "diag_report.h"
#include "diag_render.h"
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

cJSON *diag_finding_to_json(const diag_finding *f)
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
        cJSON_AddItemToArray(arr, diag_finding_to_json(&r->f[i]));
    char *cj = pretty ? cJSON_Print(root) : cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    if (!cj)
        return NULL;
    /* handed out as a plain malloc'd string */
    char *out = strdup(cj);
    cJSON_free(cj);
    return out;
}
