/* remote.c - a top_source reading a gpuwatch agent's JSON API (/api/v1/gpus, /api/v1/processes)
 * with libcurl (keep-alive, https, basic auth) and cJSON. Metrics are keyed by catalog field names. */
#include "top_model.h"
#include "util.h"
#include <cjson/cJSON.h>
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct remote_ctx {
    CURL *curl;
    char base[128];
    char password[256];
    char *body;
    size_t len;
    gpu_sample *tmp;              /* TOP_MAX_GPUS, filled without the model lock */
    gpu_info *info;
    int *lost;
    gpu_proc *procs;
} remote_ctx;

static size_t on_data(char *p, size_t size, size_t n, void *vctx)
{
    remote_ctx *c = vctx;
    size_t add = size * n;
    if (c->len + add > (64u << 20)) return 0;             /* refuse absurd bodies */
    char *nb = realloc(c->body, c->len + add + 1);
    if (!nb) return 0;
    memcpy(nb + c->len, p, add);
    c->body = nb;
    c->len += add;
    c->body[c->len] = 0;
    return add;
}

/* GETs path and parses it; NULL with err filled on failure. */
static cJSON *get_json(remote_ctx *c, const char *path, char *err, size_t errlen)
{
    char url[256];
    snprintf(url, sizeof url, "%s%s", c->base, path);
    c->len = 0;
    curl_easy_setopt(c->curl, CURLOPT_URL, url);
    CURLcode rc = curl_easy_perform(c->curl);
    if (rc != CURLE_OK) {
        snprintf(err, errlen, "agent %s: %s", c->base, curl_easy_strerror(rc));
        return NULL;
    }
    long status = 0;
    curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &status);
    if (status != 200) {
        snprintf(err, errlen, "agent %s%s: HTTP %ld%s", c->base, path, status,
                 status == 401 ? " (wrong or missing --user/--password-file)" : "");
        return NULL;
    }
    cJSON *root = c->body ? cJSON_Parse(c->body) : NULL;
    if (!root) snprintf(err, errlen, "agent %s%s: the answer is not JSON", c->base, path);
    return root;
}

static const char *jstr(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int jnum(const cJSON *o, const char *key, double *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (cJSON_IsNumber(v)) { *out = v->valuedouble; return 1; }
    if (cJSON_IsBool(v)) { *out = cJSON_IsTrue(v) ? 1 : 0; return 1; }
    return 0;
}

static void parse_gpu(const cJSON *o, gpu_info *info, gpu_sample *s, int *lost)
{
    double v;
    memset(info, 0, sizeof *info);
    memset(s, 0, sizeof *s);
    info->index = jnum(o, "index", &v) ? (int)v : 0;
    for (int id = 0; id < M_STR_END; id++) {
        const char *str = jstr(o, catalog_get((metric_id)id)->field);
        if (!str) continue;
        gw_strlcpy(info->str[id], str, GW_STR_LEN);
        mset_add(&info->str_present, (metric_id)id);
    }
    *lost = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "lost"));
    s->status = *lost ? GPU_LOST : GPU_OK;
    s->t_us = jnum(o, "timestamp", &v) ? (uint64_t)(v * 1e6) : gw_now_us();
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, "metrics");
    for (int id = M_STR_END; id < M_COUNT && m; id++) {
        const metric_def *d = catalog_get((metric_id)id);
        if (!(d->flags & MF_BIT) && jnum(m, d->field, &v)) sample_set(s, (metric_id)id, v);
    }
}

static void parse_proc(const cJSON *o, gpu_proc *p)
{
    double v;
    memset(p, 0, sizeof *p);
    if (jnum(o, "gpu", &v)) p->gpu = (int)v;
    if (jnum(o, "pid", &v)) p->pid = (unsigned)v;
    const char *type = jstr(o, "type");
    if (type && strchr(type, 'C')) p->type |= PROC_COMPUTE;
    if (type && strchr(type, 'G')) p->type |= PROC_GRAPHICS;
    const char *s;
    if ((s = jstr(o, "name"))) gw_strlcpy(p->name, s, sizeof p->name);
    if ((s = jstr(o, "command"))) gw_strlcpy(p->cmdline, s, sizeof p->cmdline);
    if ((s = jstr(o, "user"))) gw_strlcpy(p->user, s, sizeof p->user);
    if ((s = jstr(o, "container"))) gw_strlcpy(p->container, s, sizeof p->container);
    p->has_mem = jnum(o, "memory_mib", &p->mem_mib);
    p->has_sm = jnum(o, "sm_util", &p->sm_util);
    p->has_memutil = jnum(o, "memory_util", &p->mem_util);
    p->has_cpu = jnum(o, "cpu_percent", &p->cpu_percent);
    p->has_rss = jnum(o, "rss_mib", &p->rss_mib);
    if (jnum(o, "start_time", &v)) p->start_time_s = (uint64_t)v;
}

/* Reads both endpoints; on success stores them in the model. */
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
    int n = 0, np = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(g, "gpus")) {
        if (n >= TOP_MAX_GPUS) break;
        parse_gpu(it, &c->info[n], &c->tmp[n], &c->lost[n]);
        n++;
    }
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(p, "processes")) {
        if (np >= TOP_MAX_PROCS) break;
        parse_proc(it, &c->procs[np++]);
    }
    const char *host = jstr(g, "hostname"), *drv = jstr(g, "driver_version");
    uint64_t now = gw_mono_us();
    pthread_mutex_lock(&m->lock);
    if (host) snprintf(m->host, sizeof m->host, "%.60s (%.60s)", host, c->base);
    if (drv) gw_strlcpy(m->versions.driver, drv, sizeof m->versions.driver);
    if (!m->hist) m->hist = ring_new(n ? n : 1, TOP_HISTORY);
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
    m->updated_us = now;
    m->error[0] = 0;
    m->seq++;
    pthread_mutex_unlock(&m->lock);
    cJSON_Delete(g);
    cJSON_Delete(p);
    return 0;
}

/* ---- chart history from the agent's ring (/api/v1/samples), read once at start ---- */

typedef struct gpu_hist {
    gpu_sample *s;                /* TOP_HISTORY samples, by time */
    int n;
} gpu_hist;

/* The sample of h with time t, appended when there is none (the series share their times). */
static gpu_sample *hist_at(gpu_hist *h, uint64_t t)
{
    for (int i = h->n - 1; i >= 0 && i >= h->n - 4; i--)
        if (h->s[i].t_us == t) return &h->s[i];
    for (int i = 0; i < h->n; i++)
        if (h->s[i].t_us == t) return &h->s[i];
    if (h->n >= TOP_HISTORY) return NULL;
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
    cJSON_ArrayForEach(ser, cJSON_GetObjectItemCaseSensitive(root, "series")) {
        double g;
        if (!jnum(ser, "gpu", &g) || g < 0 || g >= ngpus) continue;
        const cJSON *pts = cJSON_GetObjectItemCaseSensitive(ser, "samples");
        int total = cJSON_GetArraySize(pts), skip = total - TOP_HISTORY, k = 0;
        const cJSON *pt;
        cJSON_ArrayForEach(pt, pts) {
            if (k++ < skip) continue;                     /* keep the newest */
            const cJSON *t = cJSON_GetArrayItem(pt, 0), *v = cJSON_GetArrayItem(pt, 1);
            if (!cJSON_IsNumber(t)) continue;
            gpu_sample *s = hist_at(&h[(int)g], (uint64_t)(t->valuedouble * 1e6));
            if (s && cJSON_IsNumber(v)) sample_set(s, id, v->valuedouble);
        }
    }
}

/* Fills the chart ring with the agent's recent history of the charted metrics. Best effort:
 * an agent without it (or an error) just leaves the charts to fill from now on. */
static void prefill(remote_ctx *c, ring *r, int ngpus)
{
    static const metric_id ids[] = {M_UTIL_GPU, M_MEM_USED, M_POWER_DRAW, M_TEMP_GPU, M_TEMP_MEMORY};
    gpu_hist *h = calloc((size_t)ngpus, sizeof *h);
    int ok = h != NULL;
    for (int g = 0; ok && g < ngpus; g++) ok = (h[g].s = calloc(TOP_HISTORY, sizeof *h[g].s)) != NULL;
    for (size_t i = 0; ok && i < sizeof ids / sizeof ids[0]; i++) {
        char path[160], err[512];
        snprintf(path, sizeof path, "/api/v1/samples?metric=%s&since=15m", catalog_get(ids[i])->field);
        cJSON *root = get_json(c, path, err, sizeof err);
        if (!root) break;
        add_series(root, ids[i], h, ngpus);
        cJSON_Delete(root);
    }
    for (int g = 0; ok && g < ngpus; g++) {
        qsort(h[g].s, (size_t)h[g].n, sizeof *h[g].s, by_time);
        for (int i = 0; i < h[g].n; i++) ring_push(r, g, &h[g].s[i]);
    }
    for (int g = 0; h && g < ngpus; g++) free(h[g].s);
    free(h);
}

static void remote_close(void *vctx)
{
    remote_ctx *c = vctx;
    if (c->curl) curl_easy_cleanup(c->curl);
    curl_global_cleanup();
    free(c->body);
    free(c->tmp);
    free(c->info);
    free(c->lost);
    free(c->procs);
    free(c);
}

static int read_password(const char *file, char *out, size_t n, char *err, size_t errlen)
{
    FILE *f = fopen(file, "r");
    if (!f) { snprintf(err, errlen, "--password-file %s: cannot read it", file); return -1; }
    if (!fgets(out, (int)n, f)) out[0] = 0;
    fclose(f);
    out[strcspn(out, "\r\n")] = 0;
    return 0;
}

int top_source_remote(top_source *src, top_model *m, const top_remote_opts *o, char *err, size_t errlen)
{
    if (!o->host || !strchr(o->host, ':')) {
        snprintf(err, errlen, "--host needs HOST:PORT (got '%s')", o->host ? o->host : "");
        return 1;
    }
    remote_ctx *c = calloc(1, sizeof *c);
    if (!c) { gw_strlcpy(err, "out of memory", errlen); return 1; }
    curl_global_init(CURL_GLOBAL_DEFAULT);
    c->curl = curl_easy_init();
    c->tmp = calloc(TOP_MAX_GPUS, sizeof *c->tmp);
    c->info = calloc(TOP_MAX_GPUS, sizeof *c->info);
    c->lost = calloc(TOP_MAX_GPUS, sizeof *c->lost);
    c->procs = calloc(TOP_MAX_PROCS, sizeof *c->procs);
    if (!c->curl || !c->tmp || !c->info || !c->lost || !c->procs) {
        gw_strlcpy(err, "out of memory", errlen);
        remote_close(c);
        return 1;
    }
    snprintf(c->base, sizeof c->base, "%s://%s", o->tls ? "https" : "http", o->host);
    curl_easy_setopt(c->curl, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(c->curl, CURLOPT_WRITEDATA, c);
    curl_easy_setopt(c->curl, CURLOPT_CONNECTTIMEOUT_MS, 2000L);
    curl_easy_setopt(c->curl, CURLOPT_TIMEOUT_MS, 5000L);
    curl_easy_setopt(c->curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c->curl, CURLOPT_USERAGENT, "gpuwatch-top");
    if (o->cacert) curl_easy_setopt(c->curl, CURLOPT_CAINFO, o->cacert);
    if (o->insecure) {
        curl_easy_setopt(c->curl, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(c->curl, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    if (o->user) {
        if (read_password(o->password_file, c->password, sizeof c->password, err, errlen) != 0) {
            remote_close(c);
            return 1;
        }
        curl_easy_setopt(c->curl, CURLOPT_USERNAME, o->user);
        curl_easy_setopt(c->curl, CURLOPT_PASSWORD, c->password);
    }
    m->versions.cuda[0] = 0;
    /* Size the chart ring from the agent's GPU count and fill it with its history, then read. */
    char gerr[512];
    cJSON *g = get_json(c, "/api/v1/gpus", gerr, sizeof gerr);
    if (!g) {
        gw_strlcpy(err, gerr, errlen);
        remote_close(c);
        return 1;
    }
    int n = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(g, "gpus"));
    cJSON_Delete(g);
    if (n > TOP_MAX_GPUS) n = TOP_MAX_GPUS;
    m->hist = ring_new(n ? n : 1, TOP_HISTORY);
    if (m->hist) prefill(c, m->hist, n);
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
