/* api_json.c - JSON endpoints, /healthz and the HTML index (see api_json.h). JSON goes through cJSON. */
#include "api_json.h"
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "timeparse.h"
#include "util.h"

static void send_json(agent_response *resp, cJSON *root)
{
    char *text = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    if (!text) {
        resp->status = 500;
        buf_puts(&resp->body, "{\"error\":\"out of memory\"}");
        return;
    }
    buf_puts(&resp->body, text);
    buf_putc(&resp->body, '\n');
    free(text);
    resp->content_type = "application/json";
}

void api_error(agent_response *resp, int status, const char *msg)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "error", msg);
    buf_clear(&resp->body);
    send_json(resp, root);
    resp->status = status;
}

/* A metric's value, typed: numbers, booleans for yes/no kinds, null when absent. */
static cJSON *typed_value(const gpu_sample *s, metric_id id)
{
    double v;
    if (!s || !sample_get(s, id, &v))
        return cJSON_CreateNull();
    switch (catalog_get(id)->fmt) {
    case MF_ACTIVE:
    case MF_ENABLED:
    case MF_YESNO: return cJSON_CreateBool(v != 0);
    default: return cJSON_CreateNumber(v);
    }
}

/* A GPU's object: identity, state, and its metrics (those in want, or all when want is NULL). */
static cJSON *gpu_json(const agent_snapshot *s, int i, const metric_set *want)
{
    const agent_gpu_view *g = &s->gpus[i];
    int stale;
    double age = snapshot_sample_age(s, i, s->now_us, &stale);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "index", g->info.index);
    for (int id = 0; id < M_STR_END; id++) {
        const char *f = catalog_get((metric_id)id)->field;
        if (g->have_info && mset_has(&g->info.str_present, (metric_id)id))
            cJSON_AddStringToObject(o, f, g->info.str[id]);
        else
            cJSON_AddNullToObject(o, f);
    }
    cJSON_AddBoolToObject(o, "simulated", s->simulated);
    cJSON_AddBoolToObject(o, "lost", g->lost);
    cJSON_AddBoolToObject(o, "stale", stale);
    cJSON_AddBoolToObject(o, "hung", g->hung);
    if (g->hung)
        cJSON_AddNumberToObject(o, "hung_seconds", g->hung_s);
    else
        cJSON_AddNullToObject(o, "hung_seconds");
    if (g->has_sample) {
        cJSON_AddNumberToObject(o, "timestamp", (double)g->sample.t_us / 1e6);
        cJSON_AddNumberToObject(o, "sample_age_seconds", age);
    } else {
        cJSON_AddNullToObject(o, "timestamp");
        cJSON_AddNullToObject(o, "sample_age_seconds");
    }
    cJSON *m = cJSON_AddObjectToObject(o, "metrics");
    for (int id = M_STR_END; id < M_COUNT; id++)
        if (!want || mset_has(want, (metric_id)id))
            cJSON_AddItemToObject(m, catalog_get((metric_id)id)->field,
                                  typed_value(g->has_sample && !g->lost ? &g->sample : NULL, (metric_id)id));
    cJSON *mig = cJSON_AddArrayToObject(o, "mig_devices"); /* MIG mode: nvidia-smi -L's MIG devices */
    for (int k = 0; mig && k < g->nmig; k++) {
        const gpu_mig *d = &g->mig[k];
        cJSON *e = cJSON_CreateObject();
        cJSON_AddItemToArray(mig, e);
        cJSON_AddNumberToObject(e, "index", d->index);
        cJSON_AddNumberToObject(e, "gpu_instance_id", d->gi);
        cJSON_AddNumberToObject(e, "compute_instance_id", d->ci);
        cJSON_AddStringToObject(e, "profile", d->profile);
        cJSON_AddStringToObject(e, "uuid", d->uuid);
        if (d->has_mem) {
            cJSON_AddNumberToObject(e, "memory.total", d->mem_total_mib);
            cJSON_AddNumberToObject(e, "memory.used", d->mem_used_mib);
        } else {
            cJSON_AddNullToObject(e, "memory.total");
            cJSON_AddNullToObject(e, "memory.used");
        }
    }
    return o;
}

static cJSON *units_json(const metric_set *want)
{
    cJSON *u = cJSON_CreateObject();
    for (int id = M_STR_END; id < M_COUNT; id++) {
        const metric_def *d = catalog_get((metric_id)id);
        if (d->unit && (!want || mset_has(want, (metric_id)id)))
            cJSON_AddStringToObject(u, d->field, d->unit);
    }
    return u;
}

#define METRICS_PARAM_MAX 4096 /* bytes of ?metrics= */

/* ?metrics=NAME,...: the metrics a client wants (field names or aliases), so that one that shows a
 * few (top --hosts) is not sent and does not decode the whole catalog. 0, or -1 with why. */
static int wanted_metrics(const char *list, metric_set *want, char *why, size_t n)
{
    memset(want, 0, sizeof *want);
    if (strlen(list) > METRICS_PARAM_MAX) {
        snprintf(why, n, "parameter 'metrics': at most %d bytes", METRICS_PARAM_MAX);
        return -1;
    }
    const char *p = list;
    do {
        char name[128];
        size_t len = strcspn(p, ",");
        snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : sizeof name - 1), p);
        const metric_def *d = len < sizeof name ? catalog_find(name) : NULL;
        if (!d || d->id < M_STR_END) {
            snprintf(why, n, "parameter 'metrics': unknown metric '%.100s' (field names, e.g. utilization.gpu)", name);
            return -1;
        }
        mset_add(want, d->id);
        p += len;
    } while (*p++ == ',');
    return 0;
}

void api_gpus(agent *a, const agent_request *req, agent_response *resp)
{
    char why[300];
    metric_set want;
    const char *list = req->param(req, "metrics");
    if (list && wanted_metrics(list, &want, why, sizeof why) != 0) {
        api_error(resp, 400, why);
        return;
    }
    agent_snapshot s;
    if (agent_snapshot_take(a, &s) != 0) {
        api_error(resp, 500, "out of memory");
        return;
    }
    cJSON *root = cJSON_CreateObject();
    cJSON_AddBoolToObject(root, "backend_up", s.backend_up);
    cJSON_AddBoolToObject(root, "simulated", s.simulated);
    cJSON_AddStringToObject(root, "hostname", a->hostname);
    cJSON_AddStringToObject(root, "driver_version", s.driver_version);
    cJSON_AddNumberToObject(root, "interval_seconds", s.interval_s);
    cJSON *arr = cJSON_AddArrayToObject(root, "gpus");
    for (int i = 0; i < s.ngpus; i++)
        cJSON_AddItemToArray(arr, gpu_json(&s, i, list ? &want : NULL));
    cJSON_AddItemToObject(root, "units", units_json(list ? &want : NULL));
    snapshot_free(&s);
    send_json(resp, root);
}

static void add_opt_number(cJSON *o, const char *key, int has, double v)
{
    if (has)
        cJSON_AddNumberToObject(o, key, v);
    else
        cJSON_AddNullToObject(o, key);
}

void api_processes(agent *a, const agent_request *req, agent_response *resp)
{
    (void)req;
    agent_snapshot s;
    if (agent_snapshot_take(a, &s) != 0) {
        api_error(resp, 500, "out of memory");
        return;
    }
    cJSON *root = cJSON_CreateObject();
    cJSON *arr = cJSON_AddArrayToObject(root, "processes");
    for (int i = 0; i < s.nprocs; i++) {
        const gpu_proc *p = &s.procs[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "gpu", p->gpu);
        cJSON_AddNumberToObject(o, "pid", p->pid);
        char type[8] = "";
        if (p->type & PROC_COMPUTE)
            strcat(type, "C");
        if (p->type & PROC_GRAPHICS)
            strcat(type, *type ? "+G" : "G");
        if (p->type & PROC_MPS)
            strcat(type, "M");
        cJSON_AddStringToObject(o, "type", type);
        cJSON_AddStringToObject(o, "name", p->name);
        cJSON_AddStringToObject(o, "command", p->cmdline);
        cJSON_AddStringToObject(o, "user", p->user);
        cJSON_AddStringToObject(o, "container", p->container);
        add_opt_number(o, "memory_mib", p->has_mem, p->mem_mib);
        add_opt_number(o, "sm_util", p->has_sm, p->sm_util);
        add_opt_number(o, "memory_util", p->has_memutil, p->mem_util);
        add_opt_number(o, "encoder_util", p->has_enc, p->enc_util);
        add_opt_number(o, "decoder_util", p->has_dec, p->dec_util);
        add_opt_number(o, "cpu_percent", p->has_cpu, p->cpu_percent);
        add_opt_number(o, "rss_mib", p->has_rss, p->rss_mib);
        add_opt_number(o, "start_time", p->start_time_s != 0, (double)p->start_time_s);
        cJSON_AddItemToArray(arr, o);
    }
    snapshot_free(&s);
    send_json(resp, root);
}

/* since: a time as the history takes it (timeparse.h): a duration back from now ("5m"), Unix
 * seconds or RFC 3339. Absent: the whole ring. */
static int parse_since(const char *s, uint64_t now_us, uint64_t *since_us)
{
    int64_t t = 0;
    if (s && *s && tp_parse_time(s, (int64_t)now_us, &t) != 0)
        return -1;
    *since_us = (uint64_t)t;
    return 0;
}

typedef struct {
    cJSON *arr;
    metric_id id;
} samples_ctx;

static void add_sample(const gpu_sample *s, void *ctx)
{
    samples_ctx *c = ctx;
    cJSON *pair = cJSON_CreateArray();
    cJSON_AddItemToArray(pair, cJSON_CreateNumber((double)s->t_us / 1e6));
    cJSON_AddItemToArray(pair, typed_value(s->status == GPU_LOST ? NULL : s, c->id));
    cJSON_AddItemToArray(c->arr, pair);
}

void api_samples(agent *a, const agent_request *req, agent_response *resp)
{
    const char *metric = req->param(req, "metric");
    const char *gpu = req->param(req, "gpu");
    const char *since = req->param(req, "since");
    if (!metric || !*metric) {
        api_error(resp, 400, "missing parameter 'metric' (a field name, e.g. temperature.gpu)");
        return;
    }
    const metric_def *d = catalog_find(metric);
    if (!d || metric_is_string(d->id)) {
        api_error(resp, 400, "unknown numeric metric in 'metric'");
        return;
    }
    uint64_t now = gw_now_us(), since_us;
    if (parse_since(since, now, &since_us) != 0) {
        api_error(resp, 400, "bad 'since': a duration back from now (5m, 30s), Unix seconds or RFC 3339");
        return;
    }
    ring *r = agent_ring(a);
    int n = ring_gpus(r);
    unsigned char sel[256];
    memset(sel, 1, sizeof sel);
    if (gpu && *gpu && gw_parse_index_list(gpu, sel, (int)sizeof sel) != 0) {
        api_error(resp, 400, "bad 'gpu': an index or list such as 0,2-3");
        return;
    }
    for (int i = n; gpu && *gpu && i < (int)sizeof sel; i++)
        if (sel[i]) {
            api_error(resp, 400, "no such gpu in 'gpu'");
            return;
        }
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "metric", d->field);
    if (d->unit)
        cJSON_AddStringToObject(root, "unit", d->unit);
    else
        cJSON_AddNullToObject(root, "unit");
    cJSON *series = cJSON_AddArrayToObject(root, "series");
    for (int i = 0; i < n && i < (int)sizeof sel; i++) {
        if (!sel[i])
            continue;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "gpu", i);
        samples_ctx c = {cJSON_AddArrayToObject(o, "samples"), d->id};
        ring_each(r, i, since_us, add_sample, &c);
        cJSON_AddItemToArray(series, o);
    }
    send_json(resp, root);
}

void api_healthz(agent *a, const agent_request *req, agent_response *resp)
{
    (void)req;
    agent_snapshot s;
    if (agent_snapshot_take(a, &s) != 0) {
        api_error(resp, 500, "out of memory");
        return;
    }
    resp->content_type = "text/plain; charset=utf-8";
    int stale = 0, failing = 0;
    for (int i = 0; i < s.ngpus; i++) {
        int is_stale;
        snapshot_sample_age(&s, i, s.now_us, &is_stale);
        stale += is_stale || !s.gpus[i].has_sample;
        failing += !is_stale && s.gpus[i].has_sample && s.gpus[i].sample.status == GPU_ERROR;
    }
    if (!s.backend_up) {
        resp->status = 503;
        buf_printf(&resp->body, "backend down: %s\n", s.backend_error);
    } else if (s.ngpus > 0 && stale == s.ngpus) {
        resp->status = 503;
        buf_printf(&resp->body, "all %d GPUs stale: no sample for over %.1f s\n", s.ngpus, 3 * s.interval_s);
    } else if (s.ngpus > 0 && stale + failing == s.ngpus) {
        resp->status = 503;
        buf_printf(&resp->body, "no GPU read: %d stale, %d failing (driver unloaded?)\n", stale, failing);
    } else {
        buf_puts(&resp->body, "ok\n");
    }
    snapshot_free(&s);
}

static void html_text(gw_buf *b, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<': buf_puts(b, "&lt;"); break;
        case '>': buf_puts(b, "&gt;"); break;
        case '&': buf_puts(b, "&amp;"); break;
        case '"': buf_puts(b, "&quot;"); break;
        default: buf_putc(b, *s);
        }
    }
}

void api_index(agent *a, const agent_request *req, agent_response *resp)
{
    (void)req;
    agent_snapshot s;
    if (agent_snapshot_take(a, &s) != 0) {
        api_error(resp, 500, "out of memory");
        return;
    }
    gw_buf *b = &resp->body;
    resp->content_type = "text/html; charset=utf-8";
    buf_puts(b, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>gpuwatch agent</title></head><body>\n"
                "<h1>gpuwatch agent on ");
    html_text(b, a->hostname);
    buf_puts(b,
             "</h1>\n<ul>\n"
             "<li><a href=\"/metrics\">/metrics</a> Prometheus metrics (dcgm-exporter compatible and gpuwatch_)</li>\n"
             "<li><a href=\"/api/v1/gpus\">/api/v1/gpus</a> GPUs with their latest sample</li>\n"
             "<li><a href=\"/api/v1/processes\">/api/v1/processes</a> processes on the GPUs</li>\n"
             "<li><a "
             "href=\"/api/v1/samples?metric=utilization.gpu&amp;since=5m\">/api/v1/"
             "samples?gpu=&amp;metric=&amp;since=</a> recent samples</li>\n"
             "<li><a href=\"/healthz\">/healthz</a> health</li>\n</ul>\n");
    if (!s.backend_up) {
        buf_puts(b, "<p>Backend down: ");
        html_text(b, s.backend_error);
        buf_puts(b, "</p>\n");
    }
    buf_puts(b, "<table border=\"1\"><tr><th>GPU</th><th>Name</th><th>UUID</th><th>Bus id</th><th>State</th></tr>\n");
    for (int i = 0; i < s.ngpus; i++) {
        const agent_gpu_view *g = &s.gpus[i];
        buf_printf(b, "<tr><td>%d</td><td>", g->info.index);
        html_text(b, g->info.str[M_NAME]);
        buf_puts(b, "</td><td>");
        html_text(b, g->info.str[M_UUID]);
        buf_puts(b, "</td><td>");
        html_text(b, g->info.str[M_PCI_BUS_ID]);
        int stale;
        snapshot_sample_age(&s, i, s.now_us, &stale);
        buf_printf(b, "</td><td>%s</td></tr>\n", g->lost ? "lost" : g->hung ? "hung" : stale ? "stale" : "ok");
    }
    buf_puts(b, "</table>\n</body></html>\n");
    snapshot_free(&s);
}
