/* query_json.c - JSON for range queries (cJSON), and the /api/v1/query_range handler body. */
#include "query_json.h"
#include "history.h"
#include "timeparse.h"
#include "util.h"
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void hq_format_value(double v, char *out, size_t n)
{
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(out, n, "%.*g", prec, v);
        if (strtod(out, NULL) == v)
            return;
    }
}

/* gpu index -> uuid / name from the gpus table. */
static void gpu_labels(store *st, int gpu, cJSON *labels)
{
    sqlite3_stmt *q = NULL;
    if (sqlite3_prepare_v2(store_db(st), "SELECT uuid, name, pci_bus_id FROM gpus WHERE idx=?", -1, &q, NULL) !=
        SQLITE_OK)
        return;
    sqlite3_bind_int(q, 1, gpu);
    if (sqlite3_step(q) == SQLITE_ROW) {
        const char *keys[] = {"UUID", "modelName", "pci_bus_id"};
        for (int i = 0; i < 3; i++)
            if (sqlite3_column_type(q, i) == SQLITE_TEXT)
                cJSON_AddStringToObject(labels, keys[i], (const char *)sqlite3_column_text(q, i));
    }
    sqlite3_finalize(q);
}

char *hq_result_json(store *st, const hq_request *rq, const hq_result *r, int pretty)
{
    static const char *aggs[] = {"avg", "min", "max", "last"};
    cJSON *root = cJSON_CreateObject(), *data = cJSON_AddObjectToObject(root, "data");
    cJSON_AddStringToObject(root, "status", "success");
    cJSON_AddStringToObject(data, "resultType", "matrix");
    cJSON_AddStringToObject(data, "source", r->used_rollups ? "rollup" : "raw");
    cJSON_AddNumberToObject(data, "step", (double)rq->step_us / 1e6);
    cJSON_AddStringToObject(data, "agg", aggs[rq->agg]);
    cJSON *result = cJSON_AddArrayToObject(data, "result");
    char num[40];
    for (size_t i = 0; i < r->n; i++) {
        const hq_series *s = &r->s[i];
        const metric_def *d = catalog_get(s->metric);
        cJSON *item = cJSON_CreateObject(), *labels = cJSON_AddObjectToObject(item, "metric");
        cJSON_AddStringToObject(labels, "__name__", d->field);
        snprintf(num, sizeof num, "%d", s->gpu);
        cJSON_AddStringToObject(labels, "gpu", num);
        if (s->pid) {
            snprintf(num, sizeof num, "%u", s->pid);
            cJSON_AddStringToObject(labels, "pid", num);
        }
        if (d->unit)
            cJSON_AddStringToObject(labels, "unit", d->unit);
        gpu_labels(st, s->gpu, labels);
        cJSON *values = cJSON_AddArrayToObject(item, "values");
        for (size_t k = 0; k < s->n; k++) {
            cJSON *pair = cJSON_CreateArray();
            cJSON_AddItemToArray(pair, cJSON_CreateNumber((double)s->t[k] / 1e6));
            hq_format_value(s->v[k], num, sizeof num);
            cJSON_AddItemToArray(pair, cJSON_CreateString(num));
            cJSON_AddItemToArray(values, pair);
        }
        cJSON_AddItemToArray(result, item);
    }
    char *text = pretty ? cJSON_Print(root) : cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    return text;
}

char *hq_error_json(const char *msg)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "status", "error");
    cJSON_AddStringToObject(root, "errorType", "bad_data");
    cJSON_AddStringToObject(root, "error", msg);
    char *text = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    return text;
}

/* Metric list "a,b" -> ids; returns count or -1 (with the bad name in err). */
static int parse_metrics(const char *list, metric_id *out, int max, char *err, size_t n)
{
    char buf[1024];
    gw_strlcpy(buf, list, sizeof buf);
    int k = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        const metric_def *d = catalog_find(tok);
        if (!d || metric_is_string(d->id)) {
            snprintf(err, n, "unknown or non-numeric metric '%s'", tok);
            return -1;
        }
        if (k < max)
            out[k++] = d->id;
    }
    if (!k)
        snprintf(err, n, "no metric given");
    return k ? k : -1;
}

char *history_query_range_json(const char *db_path, const char *metric, const char *gpu, const char *pid,
                               const char *start, const char *end, const char *step, const char *agg, int *status)
{
    char err[300] = "";
    metric_id ids[M_COUNT];
    unsigned char sel[HQ_MAX_GPUS];
    int64_t now = (int64_t)gw_now_us();
    hq_request rq = {.metrics = ids, .agg = AGG_AVG, .to_us = now, .from_us = now - 3600ll * 1000000};
    *status = 400;
    if (!metric || !*metric)
        snprintf(err, sizeof err, "metric is required");
    else if ((rq.nmetrics = parse_metrics(metric, ids, M_COUNT, err, sizeof err)) < 0) {
    } else if (gpu && *gpu && gw_parse_index_list(gpu, sel, HQ_MAX_GPUS) != 0)
        snprintf(err, sizeof err, "bad gpu list '%s'", gpu);
    else if (start && *start && tp_parse_time(start, now, &rq.from_us) != 0)
        snprintf(err, sizeof err, "bad start '%s'", start);
    else if (end && *end && tp_parse_time(end, now, &rq.to_us) != 0)
        snprintf(err, sizeof err, "bad end '%s'", end);
    else if (step && *step && gw_parse_duration_us(step, &rq.step_us) != 0)
        snprintf(err, sizeof err, "bad step '%s'", step);
    else if (agg && *agg && hq_parse_agg(agg, &rq.agg) != 0)
        snprintf(err, sizeof err, "bad agg '%s' (avg, min, max, last)", agg);
    else if (pid && *pid && (rq.pid = (unsigned)strtoul(pid, NULL, 10)) == 0)
        snprintf(err, sizeof err, "bad pid '%s'", pid);
    if (err[0])
        return hq_error_json(err);
    if (gpu && *gpu)
        rq.gpus = sel;
    store *st = store_open(db_path, 1, err, sizeof err);
    if (!st) {
        *status = 503;
        return hq_error_json(err);
    }
    hq_result res;
    char *text;
    if (hq_run(st, &rq, &res, err, sizeof err) != 0) {
        text = hq_error_json(err);
    } else {
        *status = 200;
        text = hq_result_json(st, &rq, &res, 0);
        hq_free(&res);
    }
    store_close(st);
    return text;
}
