/* agent_client.c - fetching and decoding an agent's /api/v1 answers (agent_client.h). */
#include "agent_client.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"

struct agent_client {
    http_client *http;
    gw_buf body;
    api_context ctx;
    char gpus_path[1024]; /* /api/v1/gpus, with ?metrics= when only some are wanted */
};

agent_client *agent_client_open(const http_client_opts *o, char *err, size_t n)
{
    agent_client *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, n, "out of memory");
        return NULL;
    }
    buf_init(&c->body);
    snprintf(c->gpus_path, sizeof c->gpus_path, "/api/v1/gpus");
    c->http = http_client_open(o, err, n);
    if (!c->http) {
        free(c);
        return NULL;
    }
    return c;
}

void agent_client_close(agent_client *c)
{
    if (!c)
        return;
    http_client_close(c->http);
    buf_release(&c->body);
    free(c);
}

const char *agent_client_base(const agent_client *c)
{
    return http_client_base(c->http);
}

void agent_client_set_detectors(agent_client *c, const char *(*id)(int i), int n)
{
    c->ctx.detector_id = id;
    c->ctx.ndetectors = n;
}

int agent_client_want_metrics(agent_client *c, const metric_id *ids, int n)
{
    char path[sizeof c->gpus_path];
    size_t off = (size_t)snprintf(path, sizeof path, "/api/v1/gpus?metrics=");
    for (int i = 0; i < n; i++) {
        const char *f = catalog_get(ids[i])->field;
        if (off + strlen(f) + 2 > sizeof path)
            return -1;
        off += (size_t)snprintf(path + off, sizeof path - off, "%s%s", i ? "," : "", f);
    }
    memcpy(c->gpus_path, path, off + 1);
    return 0;
}

/* GETs path: 200 with the body in c->body, another status, or -1 (err filled for both). */
static long fetch(agent_client *c, const char *path, char *err, size_t n)
{
    long st = http_client_get(c->http, path, &c->body, err, n);
    c->ctx.now_us = gw_now_us();
    return st;
}

/* err = "BASE PATH: why" after a decoder's refusal. */
static int refused(agent_client *c, const char *path, const char *why, char *err, size_t n)
{
    snprintf(err, n, "agent %s%s: %s", http_client_base(c->http), path, why);
    return -1;
}

int agent_client_gpus(agent_client *c, api_gpus *out, char *err, size_t n)
{
    char why[256];
    memset(out, 0, sizeof *out);
    if (fetch(c, c->gpus_path, err, n) != 200)
        return -1;
    if (api_decode_gpus(c->body.data, c->body.len, &c->ctx, out, why, sizeof why) != 0)
        return refused(c, "/api/v1/gpus", why, err, n);
    c->ctx.ngpus = out->n ? out->n : API_MAX_GPUS;
    return 0;
}

int agent_client_processes(agent_client *c, api_procs *out, char *err, size_t n)
{
    char why[256];
    memset(out, 0, sizeof *out);
    if (fetch(c, "/api/v1/processes", err, n) != 200)
        return -1;
    if (api_decode_processes(c->body.data, c->body.len, &c->ctx, out, why, sizeof why) != 0)
        return refused(c, "/api/v1/processes", why, err, n);
    return 0;
}

int agent_client_samples(agent_client *c, metric_id metric, double since_s, int max_points, api_samples *out, char *err,
                         size_t n)
{
    char path[160], why[256];
    memset(out, 0, sizeof *out);
    snprintf(path, sizeof path, "/api/v1/samples?metric=%s&since=%.0fs", catalog_get(metric)->field,
             since_s < 1 ? 1 : since_s);
    if (fetch(c, path, err, n) != 200)
        return -1;
    if (api_decode_samples(c->body.data, c->body.len, &c->ctx, max_points, out, why, sizeof why) != 0)
        return refused(c, "/api/v1/samples", why, err, n);
    return 0;
}

int agent_client_alerts(agent_client *c, api_alerts *out, char *err, size_t n)
{
    char why[256];
    memset(out, 0, sizeof *out);
    if (fetch(c, "/api/v1/alerts", err, n) != 200)
        return -1;
    if (api_decode_alerts(c->body.data, c->body.len, &c->ctx, out, why, sizeof why) != 0)
        return refused(c, "/api/v1/alerts", why, err, n);
    return 0;
}

int agent_client_findings(agent_client *c, diag_report *out, char *err, size_t n)
{
    char why[256];
    diag_report_clear(out);
    long st = fetch(c, "/api/v1/findings", err, n);
    if (st == 404)
        return AGENT_NOT_SERVED;
    if (st != 200)
        return -1;
    if (api_decode_findings(c->body.data, c->body.len, &c->ctx, out, why, sizeof why) != 0)
        return refused(c, "/api/v1/findings", why, err, n);
    return 0;
}
