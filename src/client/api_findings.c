/* api_findings.c - decoding /api/v1/findings (the diagnosis report as diag_report_json writes it)
 * back into a diag_report (agent_api.h). */
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "api_read.h"

#define PID_MAX 4194304

static const char *known_detector(const api_context *ctx, const char *name)
{
    for (int i = 0; ctx && ctx->detector_id && i < ctx->ndetectors; i++) {
        const char *id = ctx->detector_id(i);
        if (id && strcmp(id, name) == 0)
            return id;
    }
    return NULL;
}

/* from and to within the window, from first; else both unknown. */
static void time_range(const api_context *ctx, const cJSON *o, uint64_t *from, uint64_t *to)
{
    if (!api_rfc3339(ctx, o, "from", from) || !api_rfc3339(ctx, o, "to", to) || *from > *to)
        *from = *to = 0;
}

static void evidence_read(diag_finding *f, const cJSON *ev)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, ev)
    {
        char key[sizeof f->evidence[0].key];
        double v;
        if (!cJSON_IsObject(ev) || f->n_evidence >= DIAG_MAX_EVIDENCE || !e->string)
            break;
        api_copy_text(e->string, key, sizeof key);
        if (!key[0])
            continue;
        if (cJSON_IsString(e)) {
            char text[sizeof f->evidence[0].str];
            api_str_value(e, text, sizeof text);
            diag_finding_str(f, key, "%s", text);
        } else if (api_num_value(e, -API_MAX_NUMBER, API_MAX_NUMBER, &v)) {
            diag_finding_num(f, key, v, "");
        }
    }
}

static void signal_read(const api_context *ctx, const cJSON *sig, diag_chart *ch)
{
    long gpu;
    api_str(sig, "metric", ch->metric, sizeof ch->metric);
    api_str(sig, "unit", ch->unit, sizeof ch->unit);
    ch->gpu = api_whole(sig, "gpu", 0, api_gpu_count(ctx) - 1, &gpu) ? (int)gpu : -1;
    time_range(ctx, sig, &ch->from_us, &ch->to_us);
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(sig, "values"))
    {
        double v;
        if (ch->n >= DIAG_CHART_POINTS)
            break;
        if (api_num_value(e, -FLT_MAX, FLT_MAX, &v))
            ch->v[ch->n++] = (float)v;
    }
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

static void finding_read(const api_context *ctx, diag_report *r, const cJSON *item)
{
    char name[64], sev[16];
    api_str(item, "detector", name, sizeof name);
    const char *det = known_detector(ctx, name);
    if (!det)
        return; /* a detector this gpuwatch does not know */
    api_str(item, "severity", sev, sizeof sev);
    diag_finding *f = diag_report_add(r, det,
                                      !strcmp(sev, "critical")  ? DIAG_CRITICAL
                                      : !strcmp(sev, "warning") ? DIAG_WARNING
                                                                : DIAG_INFO);
    if (!f)
        return;
    const cJSON *e;
    double v;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(item, "gpus"))
    {
        if (api_num_value(e, 0, api_gpu_count(ctx) - 1, &v) && cJSON_IsNumber(e) && v == (int)v)
            diag_finding_gpu(f, (int)v);
    }
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(item, "pids"))
    {
        if (api_num_value(e, 1, PID_MAX, &v) && cJSON_IsNumber(e) && v == (unsigned)v)
            diag_finding_pid(f, (unsigned)v);
    }
    time_range(ctx, item, &f->from_us, &f->to_us);
    api_str(item, "summary", f->summary, sizeof f->summary);
    const cJSON *ev = cJSON_GetObjectItemCaseSensitive(item, "evidence");
    if (cJSON_IsObject(ev))
        evidence_read(f, ev);
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(item, "advice"))
    {
        char text[sizeof f->advice[0]];
        if (f->n_advice < DIAG_MAX_ADVICE && api_str_value(e, text, sizeof text))
            diag_finding_advice(f, "%s", text);
    }
    const cJSON *sig = cJSON_GetObjectItemCaseSensitive(item, "signal");
    if (cJSON_IsObject(sig))
        signal_read(ctx, sig, &f->chart);
}

int api_decode_findings(const char *body, size_t len, const api_context *ctx, diag_report *out, char *err, size_t n)
{
    diag_report_clear(out);
    cJSON *root;
    const cJSON *arr = api_list(body, len, "findings", NULL, "findings", &root, err, n);
    if (!arr)
        return -1;
    time_range(ctx, root, &out->from_us, &out->to_us);
    const cJSON *item;
    cJSON_ArrayForEach(item, arr)
    {
        if (out->n >= API_MAX_FINDINGS)
            break;
        if (cJSON_IsObject(item))
            finding_read(ctx, out, item);
    }
    cJSON_Delete(root);
    if (out->oom) {
        snprintf(err, n, "out of memory");
        diag_report_clear(out);
        return -1;
    }
    return 0;
}
