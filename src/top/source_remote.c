/* source_remote.c - a top_source reading a gpuwatch agent's JSON API over one keep-alive connection
 * (http_client.h): /api/v1/gpus and /api/v1/processes each refresh (metrics keyed by catalog field names),
 * /api/v1/alerts (best effort), /api/v1/findings every 10 s (the agent diagnoses every minute; a 404
 * says it does not diagnose), and at start /api/v1/samples so that the charts begin with the
 * agent's recent history. An agent on gpusim says so ("simulated": true), and top shows the banner. */
#include "top_model.h"
#include "diag_report.h"
#include "http_client.h"
#include "util.h"
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct remote_ctx {
    http_client *http;
    gw_buf body;
    gpu_sample *tmp; /* TOP_MAX_GPUS, filled without the model lock */
    gpu_info *info;
    int *lost;
    gpu_proc *procs;
    int max_gpus;          /* the agent's GPU count at start (the chart history's size) */
    uint64_t findings_due; /* monotonic time of the next /api/v1/findings read */
} remote_ctx;

#define FINDINGS_EVERY_US 10000000u

/* GETs path and parses the JSON answer; NULL with err filled (HTTP status, curl error, not JSON). */
static cJSON *get_json(remote_ctx *c, const char *path, char *err, size_t errlen)
{
    if (http_client_get(c->http, path, &c->body, err, errlen) != 200)
        return NULL;
    cJSON *root = c->body.len ? cJSON_Parse(c->body.data) : NULL;
    if (!root)
        snprintf(err, errlen, "agent %s%s: the answer is not JSON", http_client_base(c->http), path);
    return root;
}

/* ---- JSON ---- */

static const char *jstr(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* A number (or a boolean as 0/1) under key; 0 when absent or null. */
static int jnum(const cJSON *o, const char *key, double *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (cJSON_IsNumber(v)) {
        *out = v->valuedouble;
        return 1;
    }
    if (cJSON_IsBool(v)) {
        *out = cJSON_IsTrue(v) ? 1 : 0;
        return 1;
    }
    return 0;
}

static int jtrue(const cJSON *o, const char *key)
{
    return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, key));
}

/* "2025-01-02T03:04:05.678Z" as CLOCK_REALTIME microseconds; 0 when absent or not that form. */
static int64_t jtime(const cJSON *o, const char *key)
{
    const char *s = jstr(o, key);
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    const char *rest = s ? strptime(s, "%Y-%m-%dT%H:%M:%S", &tm) : NULL;
    if (!rest)
        return 0;
    double frac = *rest == '.' ? strtod(rest, NULL) : 0;
    time_t t = timegm(&tm);
    return t < 0 ? 0 : (int64_t)t * 1000000 + (int64_t)(frac * 1e6);
}

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
    *lost = jtrue(o, "lost");
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
static int read_alerts(remote_ctx *c, top_alert *out, int max)
{
    char err[512];
    cJSON *root = get_json(c, "/api/v1/alerts", err, sizeof err);
    if (!root)
        return 0;
    int n = 0;
    const cJSON *a;
    cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "data"), "alerts"))
    {
        if (n >= max)
            break;
        const char *state = jstr(a, "state");
        if (state && strcmp(state, "pending") != 0 && strcmp(state, "firing") != 0)
            continue;
        const cJSON *labels = cJSON_GetObjectItemCaseSensitive(a, "labels");
        const cJSON *ann = cJSON_GetObjectItemCaseSensitive(a, "annotations");
        top_alert_set(&out[n++], jstr(labels, "alertname"), jstr(labels, "severity"), state, jstr(ann, "summary"),
                      jtime(a, "activeAt"), -1);
    }
    cJSON_Delete(root);
    top_alerts_sort(out, n);
    return n;
}

/* The agent's current findings into the model: its report, or why there is none. */
static void read_findings(remote_ctx *c, top_model *m)
{
    char err[512] = "", why[300];
    diag_report r;
    diag_report_init(&r);
    long st = http_client_get(c->http, "/api/v1/findings", &c->body, err, sizeof err);
    find_state fs = FIND_ERROR;
    if (st == 200 && c->body.len && diag_report_from_json(c->body.data, &r) == 0) {
        fs = FIND_OK;
        why[0] = 0;
    } else if (st == 404) {
        fs = FIND_NOT_SERVED;
        snprintf(why, sizeof why,
                 "the agent does not diagnose (404 on /api/v1/findings: diagnosis.enabled: false, or an older "
                 "gpuwatch)");
    } else if (st == 200) {
        snprintf(why, sizeof why, "%s/api/v1/findings: not a findings report", http_client_base(c->http));
    } else {
        snprintf(why, sizeof why, "findings: %.280s", err);
    }
    if (fs != FIND_OK)
        diag_report_clear(&r);
    top_findings_publish(m, &r, fs, why, gw_now_us());
    diag_report_free(&r);
}

/* Reads the endpoints; on success stores them in the model. */
static int remote_refresh(void *vctx, top_model *m)
{
    remote_ctx *c = vctx;
    char err[512] = "";
    cJSON *g = get_json(c, "/api/v1/gpus", err, sizeof err);
    cJSON *p = g ? get_json(c, "/api/v1/processes", err, sizeof err) : NULL;
    if (!g || !p) {
        cJSON_Delete(g);
        pthread_mutex_lock(&m->lock);
        gw_strlcpy(m->error, err, sizeof m->error);
        m->seq++;
        pthread_mutex_unlock(&m->lock);
        return -1;
    }
    int n = 0, np = 0, simulated = jtrue(g, "simulated");
    const cJSON *it;
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(g, "gpus"))
    {
        if (n >= TOP_MAX_GPUS)
            break;
        simulated |= jtrue(it, "simulated");
        parse_gpu(it, &c->info[n], &c->tmp[n], &c->lost[n]);
        n++;
    }
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(p, "processes"))
    {
        if (np >= TOP_MAX_PROCS)
            break;
        parse_proc(it, &c->procs[np++]);
    }
    top_alert alerts[TOP_MAX_ALERTS];
    int nalerts = read_alerts(c, alerts, TOP_MAX_ALERTS);
    const char *host = jstr(g, "hostname"), *drv = jstr(g, "driver_version");
    uint64_t now = gw_mono_us();
    pthread_mutex_lock(&m->lock);
    if (host)
        snprintf(m->host, sizeof m->host, "%.60s (%.60s)", host, http_client_base(c->http));
    if (drv)
        gw_strlcpy(m->versions.driver, drv, sizeof m->versions.driver);
    m->versions.simulated = simulated;
    m->ngpus = n < c->max_gpus ? n : c->max_gpus;
    for (int i = 0; i < m->ngpus; i++) {
        top_gpu *tg = &m->gpus[i];
        tg->info = c->info[i];
        tg->s = c->tmp[i];
        tg->have_sample = 1;
        tg->lost = c->lost[i];
        if (!tg->lost) {
            tg->fresh_us = now;
            history_push(m->hist, i, &c->tmp[i]);
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
    if (now >= c->findings_due) {
        c->findings_due = now + FINDINGS_EVERY_US;
        read_findings(c, m);
    }
    return 0;
}

/* ---- the charts start with the agent's history ---- */

typedef struct gpu_hist {
    gpu_sample *s; /* TOP_HISTORY samples, by time */
    int n;
} gpu_hist;

/* The sample of h with time t, appended when there is none (the series share their times). */
static gpu_sample *hist_at(gpu_hist *h, uint64_t t)
{
    for (int i = h->n - 1; i >= 0 && i >= h->n - 4; i--)
        if (h->s[i].t_us == t)
            return &h->s[i];
    for (int i = 0; i < h->n; i++)
        if (h->s[i].t_us == t)
            return &h->s[i];
    if (h->n >= TOP_HISTORY)
        return NULL;
    gpu_sample *s = &h->s[h->n++];
    memset(s, 0, sizeof *s);
    s->t_us = t;
    return s;
}

static int by_time(const void *a, const void *b)
{
    uint64_t x = ((const gpu_sample *)a)->t_us, y = ((const gpu_sample *)b)->t_us;
    return (x > y) - (x < y);
}

static void add_series(const cJSON *root, metric_id id, gpu_hist *h, int ngpus)
{
    const cJSON *ser;
    cJSON_ArrayForEach(ser, cJSON_GetObjectItemCaseSensitive(root, "series"))
    {
        double g;
        if (!jnum(ser, "gpu", &g) || g < 0 || g >= ngpus)
            continue;
        const cJSON *pts = cJSON_GetObjectItemCaseSensitive(ser, "samples");
        int total = cJSON_GetArraySize(pts), skip = total - TOP_HISTORY, k = 0;
        const cJSON *pt;
        cJSON_ArrayForEach(pt, pts)
        {
            if (k++ < skip)
                continue; /* keep the newest */
            const cJSON *t = cJSON_GetArrayItem(pt, 0), *v = cJSON_GetArrayItem(pt, 1);
            if (!cJSON_IsNumber(t))
                continue;
            gpu_sample *s = hist_at(&h[(int)g], (uint64_t)(t->valuedouble * 1e6));
            if (s && cJSON_IsNumber(v))
                sample_set(s, id, v->valuedouble);
        }
    }
}

/* The charted metrics of the last 15 minutes; an agent without history (or an error) just leaves
 * the charts to fill from now on. Memory percent needs memory.total, from the first refresh's GPUs. */
static void prefill_history(remote_ctx *c, top_history *hist, int ngpus, const gpu_sample *latest)
{
    static const metric_id ids[] = {M_UTIL_GPU, M_MEM_USED, M_POWER_DRAW, M_TEMP_GPU, M_TEMP_MEMORY};
    gpu_hist *h = calloc((size_t)ngpus, sizeof *h);
    int ok = h != NULL;
    for (int g = 0; ok && g < ngpus; g++)
        ok = (h[g].s = calloc(TOP_HISTORY, sizeof *h[g].s)) != NULL;
    for (size_t i = 0; ok && i < sizeof ids / sizeof ids[0]; i++) {
        char path[160], err[512];
        snprintf(path, sizeof path, "/api/v1/samples?metric=%s&since=15m", catalog_get(ids[i])->field);
        cJSON *root = get_json(c, path, err, sizeof err);
        if (!root)
            break;
        add_series(root, ids[i], h, ngpus);
        cJSON_Delete(root);
    }
    for (int g = 0; ok && g < ngpus; g++) {
        double total;
        int has_total = sample_get(&latest[g], M_MEM_TOTAL, &total);
        qsort(h[g].s, (size_t)h[g].n, sizeof *h[g].s, by_time);
        for (int i = 0; i < h[g].n; i++) {
            if (has_total)
                sample_set(&h[g].s[i], M_MEM_TOTAL, total);
            history_push(hist, g, &h[g].s[i]);
        }
    }
    for (int g = 0; h && g < ngpus; g++)
        free(h[g].s);
    free(h);
}

static void remote_close(void *vctx)
{
    remote_ctx *c = vctx;
    http_client_close(c->http);
    buf_release(&c->body);
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
    http_client_opts ho = {.host = o->host,
                           .tls = o->tls,
                           .cacert = o->cacert,
                           .insecure = o->insecure,
                           .user = o->user,
                           .password_file = o->password_file,
                           .user_agent = "gpuwatch-top"};
    if (!(c->http = http_client_open(&ho, err, errlen))) {
        remote_close(c);
        return 1;
    }
    m->remote = 1;
    m->versions.cuda[0] = 0;
    /* The agent's GPU count sizes the chart history; a first read, then the charts' past before it. */
    char gerr[512];
    cJSON *g = get_json(c, "/api/v1/gpus", gerr, sizeof gerr);
    if (!g) {
        gw_strlcpy(err, gerr, errlen);
        remote_close(c);
        return 1;
    }
    int n = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(g, "gpus"));
    cJSON_Delete(g);
    if (n > TOP_MAX_GPUS)
        n = TOP_MAX_GPUS;
    c->max_gpus = n;
    if (remote_refresh(c, m) != 0) {
        gw_strlcpy(err, m->error, errlen);
        remote_close(c);
        return 1;
    }
    m->hist = history_new(n, TOP_HISTORY);
    if (!m->hist) {
        gw_strlcpy(err, "out of memory", errlen);
        remote_close(c);
        return 1;
    }
    prefill_history(c, m->hist, m->ngpus, c->tmp);
    for (int i = 0; i < m->ngpus; i++)
        if (!m->gpus[i].lost)
            history_push(m->hist, i, &m->gpus[i].s);
    src->ctx = c;
    src->refresh = remote_refresh;
    src->close = remote_close;
    return 0;
}
