/* remote.c - a top_source reading a gpuwatch agent's JSON API (/api/v1/gpus, /api/v1/processes);
 * metrics are keyed by catalog field names. HTTP details live in remote_http.c. */
#include "remote_http.h"
#include "top_alerts.h"
#include "util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct remote_ctx {
    remote_http http;
    gpu_sample *tmp; /* TOP_MAX_GPUS, filled without the model lock */
    gpu_info *info;
    int *lost;
    gpu_proc *procs;
} remote_ctx;

static void parse_gpu(const cJSON *o, gpu_info *info, gpu_sample *s, int *lost)
{
    double v;
    memset(info, 0, sizeof *info);
    memset(s, 0, sizeof *s);
    info->index = jnum(o, "index", &v) ? (int)v : 0;
    for (int id = 0; id < M_STR_END; id++) {
        const char *str = jstr(o, catalog_get((metric_id)id)->field);
        if (!str)
            continue;
        gw_strlcpy(info->str[id], str, GW_STR_LEN);
        mset_add(&info->str_present, (metric_id)id);
    }
    *lost = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "lost"));
    s->status = *lost ? GPU_LOST : GPU_OK;
    s->t_us = jnum(o, "timestamp", &v) ? (uint64_t)(v * 1e6) : gw_now_us();
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, "metrics");
    for (int id = M_STR_END; id < M_COUNT && m; id++) {
        const metric_def *d = catalog_get((metric_id)id);
        if (!(d->flags & MF_BIT) && jnum(m, d->field, &v))
            sample_set(s, (metric_id)id, v);
    }
}

static void parse_proc(const cJSON *o, gpu_proc *p)
{
    double v;
    memset(p, 0, sizeof *p);
    if (jnum(o, "gpu", &v))
        p->gpu = (int)v;
    if (jnum(o, "pid", &v))
        p->pid = (unsigned)v;
    const char *type = jstr(o, "type");
    if (type && strchr(type, 'C'))
        p->type |= PROC_COMPUTE;
    if (type && strchr(type, 'G'))
        p->type |= PROC_GRAPHICS;
    const char *s;
    if ((s = jstr(o, "name")))
        gw_strlcpy(p->name, s, sizeof p->name);
    if ((s = jstr(o, "command")))
        gw_strlcpy(p->cmdline, s, sizeof p->cmdline);
    if ((s = jstr(o, "user")))
        gw_strlcpy(p->user, s, sizeof p->user);
    if ((s = jstr(o, "container")))
        gw_strlcpy(p->container, s, sizeof p->container);
    p->has_mem = jnum(o, "memory_mib", &p->mem_mib);
    p->has_sm = jnum(o, "sm_util", &p->sm_util);
    p->has_memutil = jnum(o, "memory_util", &p->mem_util);
    p->has_cpu = jnum(o, "cpu_percent", &p->cpu_percent);
    p->has_rss = jnum(o, "rss_mib", &p->rss_mib);
    if (jnum(o, "start_time", &v))
        p->start_time_s = (uint64_t)v;
}

/* The agent's pending and firing alerts (best effort: an agent without alerts has none). */
static int read_alerts(remote_ctx *c, top_alert_line *out, int max)
{
    char err[512];
    cJSON *root = remote_get_json(&c->http, "/api/v1/alerts", err, sizeof err);
    if (!root)
        return 0;
    int n = 0;
    const cJSON *a;
    cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "data"), "alerts"))
    {
        if (n >= max)
            break;
        const cJSON *labels = cJSON_GetObjectItemCaseSensitive(a, "labels");
        const cJSON *ann = cJSON_GetObjectItemCaseSensitive(a, "annotations");
        top_alert_line_make(&out[n++], jstr(labels, "alertname"), jstr(labels, "severity"), jstr(a, "state"),
                            jstr(ann, "summary"));
    }
    cJSON_Delete(root);
    top_alert_lines_sort(out, n);
    return n;
}

/* Reads both endpoints; on success stores them in the model. */
static int remote_refresh(void *vctx, top_model *m)
{
    remote_ctx *c = vctx;
    char err[512] = "";
    cJSON *g = remote_get_json(&c->http, "/api/v1/gpus", err, sizeof err);
    cJSON *p = g ? remote_get_json(&c->http, "/api/v1/processes", err, sizeof err) : NULL;
    if (!g || !p) {
        cJSON_Delete(g);
        pthread_mutex_lock(&m->lock);
        gw_strlcpy(m->error, err, sizeof m->error);
        m->seq++;
        pthread_mutex_unlock(&m->lock);
        return -1;
    }
    int n = 0, np = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(g, "gpus"))
    {
        if (n >= TOP_MAX_GPUS)
            break;
        parse_gpu(it, &c->info[n], &c->tmp[n], &c->lost[n]);
        n++;
    }
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(p, "processes"))
    {
        if (np >= TOP_MAX_PROCS)
            break;
        parse_proc(it, &c->procs[np++]);
    }
    top_alert_line alerts[TOP_MAX_ALERTS];
    int nalerts = read_alerts(c, alerts, TOP_MAX_ALERTS);
    const char *host = jstr(g, "hostname"), *drv = jstr(g, "driver_version");
    uint64_t now = gw_mono_us();
    pthread_mutex_lock(&m->lock);
    if (host)
        snprintf(m->host, sizeof m->host, "%.60s (%.60s)", host, c->http.base);
    if (drv)
        gw_strlcpy(m->versions.driver, drv, sizeof m->versions.driver);
    if (!m->hist)
        m->hist = ring_new(n ? n : 1, TOP_HISTORY);
    int cap = m->hist ? ring_gpus(m->hist) : 0;
    m->ngpus = n < cap ? n : cap;
    for (int i = 0; i < m->ngpus; i++) {
        top_gpu *tg = &m->gpus[i];
        tg->info = c->info[i];
        tg->s = c->tmp[i];
        tg->have_sample = 1;
        tg->lost = c->lost[i];
        if (!tg->lost) {
            tg->fresh_us = now;
            ring_push(m->hist, i, &c->tmp[i]);
        }
    }
    memcpy(m->procs, c->procs, (size_t)np * sizeof *m->procs);
    m->nprocs = np;
    memcpy(m->alerts, alerts, (size_t)nalerts * sizeof *alerts);
    m->nalerts = nalerts;
    m->updated_us = now;
    m->error[0] = 0;
    m->seq++;
    pthread_mutex_unlock(&m->lock);
    cJSON_Delete(g);
    cJSON_Delete(p);
    return 0;
}

static void remote_close(void *vctx)
{
    remote_ctx *c = vctx;
    remote_http_close(&c->http);
    free(c->tmp);
    free(c->info);
    free(c->lost);
    free(c->procs);
    free(c);
}

int top_source_remote(top_source *src, top_model *m, const top_remote_opts *o, char *err, size_t errlen)
{
    if (!o->host || !strchr(o->host, ':')) {
        snprintf(err, errlen, "--host needs HOST:PORT (got '%s')", o->host ? o->host : "");
        return 1;
    }
    remote_ctx *c = calloc(1, sizeof *c);
    if (!c) {
        gw_strlcpy(err, "out of memory", errlen);
        return 1;
    }
    c->tmp = calloc(TOP_MAX_GPUS, sizeof *c->tmp);
    c->info = calloc(TOP_MAX_GPUS, sizeof *c->info);
    c->lost = calloc(TOP_MAX_GPUS, sizeof *c->lost);
    c->procs = calloc(TOP_MAX_PROCS, sizeof *c->procs);
    if (!c->tmp || !c->info || !c->lost || !c->procs) {
        gw_strlcpy(err, "out of memory", errlen);
        remote_close(c);
        return 1;
    }
    if (remote_http_open(&c->http, o, err, errlen) != 0) {
        remote_close(c);
        return 1;
    }
    m->versions.cuda[0] = 0;
    /* Size the chart ring from the agent's GPU count and fill it with its history, then read. */
    char gerr[512];
    cJSON *g = remote_get_json(&c->http, "/api/v1/gpus", gerr, sizeof gerr);
    if (!g) {
        gw_strlcpy(err, gerr, errlen);
        remote_close(c);
        return 1;
    }
    int n = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(g, "gpus"));
    cJSON_Delete(g);
    if (n > TOP_MAX_GPUS)
        n = TOP_MAX_GPUS;
    m->hist = ring_new(n ? n : 1, TOP_HISTORY);
    if (m->hist)
        remote_prefill_history(&c->http, m->hist, n);
    if (remote_refresh(c, m) != 0) {
        gw_strlcpy(err, m->error, errlen);
        remote_close(c);
        return 1;
    }
    src->ctx = c;
    src->refresh = remote_refresh;
    src->close = remote_close;
    return 0;
}
