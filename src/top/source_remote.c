/* source_remote.c - a top_source reading a gpuwatch agent through the client layer (agent_client.h:
 * one keep-alive connection, every answer bounded and validated): /api/v1/gpus and /api/v1/processes
 * each refresh, /api/v1/alerts (best effort), /api/v1/findings every 10 s (the agent diagnoses every
 * minute; a 404 says it does not diagnose), and at start /api/v1/samples so that the charts begin
 * with the agent's recent history. An agent on gpusim says so ("simulated": true), and top shows the
 * banner. */
#include "top_model.h"
#include "agent_client.h"
#include "diag.h"
#include "util.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct remote_ctx {
    agent_client *ac;
    int max_gpus;          /* the agent's GPU count at start (the chart history's size) */
    double interval_s;     /* the agent's sampling interval (1 s when it does not say) */
    uint64_t findings_due; /* monotonic time of the next /api/v1/findings read */
} remote_ctx;

#define FINDINGS_EVERY_US 10000000u
#define HISTORY_MAX_S 900 /* the agent's ring holds 15 minutes */

/* The agent's pending and firing alerts (best effort: an agent without alerts has none). */
static int read_alerts(remote_ctx *c, top_alert *out, int max)
{
    char err[512];
    api_alerts a;
    if (agent_client_alerts(c->ac, &a, err, sizeof err) != 0)
        return 0;
    int n = 0;
    for (int i = 0; i < a.n && n < max; i++)
        top_alert_set(&out[n++], a.a[i].name, a.a[i].severity, a.a[i].firing ? "firing" : "pending", a.a[i].summary,
                      a.a[i].active_at_us, -1);
    api_alerts_free(&a);
    top_alerts_sort(out, n);
    return n;
}

/* The agent's current findings into the model: its report, or why there is none. */
static void read_findings(remote_ctx *c, top_model *m)
{
    char err[512] = "", why[300] = "";
    diag_report r;
    diag_report_init(&r);
    int rc = agent_client_findings(c->ac, &r, err, sizeof err);
    find_state fs = rc == 0 ? FIND_OK : rc == AGENT_NOT_SERVED ? FIND_NOT_SERVED : FIND_ERROR;
    if (rc == AGENT_NOT_SERVED)
        snprintf(why, sizeof why,
                 "the agent does not diagnose (404 on /api/v1/findings: diagnosis.enabled: false, or an older "
                 "gpuwatch)");
    else if (rc != 0)
        snprintf(why, sizeof why, "findings: %.280s", err);
    if (fs != FIND_OK)
        diag_report_clear(&r);
    top_findings_publish(m, &r, fs, why, gw_now_us());
    diag_report_free(&r);
}

static void set_error(top_model *m, const char *err)
{
    pthread_mutex_lock(&m->lock);
    gw_strlcpy(m->error, err, sizeof m->error);
    m->seq++;
    pthread_mutex_unlock(&m->lock);
}

/* Reads the endpoints; on success stores them in the model. */
static int remote_refresh(void *vctx, top_model *m)
{
    remote_ctx *c = vctx;
    char err[512] = "";
    api_gpus g;
    api_procs p;
    if (agent_client_gpus(c->ac, &g, err, sizeof err) != 0) {
        set_error(m, err);
        return -1;
    }
    if (agent_client_processes(c->ac, &p, err, sizeof err) != 0) {
        api_gpus_free(&g);
        set_error(m, err);
        return -1;
    }
    int np = p.n < TOP_MAX_PROCS ? p.n : TOP_MAX_PROCS;
    top_alert alerts[TOP_MAX_ALERTS];
    int nalerts = read_alerts(c, alerts, TOP_MAX_ALERTS);
    uint64_t now = gw_mono_us(), wall = gw_now_us();
    pthread_mutex_lock(&m->lock);
    if (g.hostname[0])
        snprintf(m->host, sizeof m->host, "%.60s (%.60s)", g.hostname, agent_client_base(c->ac));
    if (g.driver_version[0])
        gw_strlcpy(m->versions.driver, g.driver_version, sizeof m->versions.driver);
    m->versions.simulated = g.simulated;
    m->ngpus = g.n < c->max_gpus ? g.n : c->max_gpus;
    for (int i = 0; i < m->ngpus; i++) {
        top_gpu *tg = &m->gpus[i];
        tg->info = g.gpus[i].info;
        tg->s = g.gpus[i].s;
        if (!tg->s.t_us)
            tg->s.t_us = wall; /* the agent gave no usable time: when we read it */
        tg->have_sample = 1;
        tg->lost = g.gpus[i].lost;
        if (!tg->lost) {
            tg->fresh_us = now;
            history_push(m->hist, i, &tg->s);
        }
    }
    memcpy(m->procs, p.p, (size_t)np * sizeof *m->procs);
    m->nprocs = np;
    memcpy(m->alerts, alerts, (size_t)nalerts * sizeof *alerts);
    m->nalerts = nalerts;
    m->updated_us = now;
    m->error[0] = 0;
    m->seq++;
    pthread_mutex_unlock(&m->lock);
    api_gpus_free(&g);
    api_procs_free(&p);
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

static void add_series(const api_samples *a, metric_id id, gpu_hist *h, int ngpus)
{
    for (int k = 0; k < a->n; k++) {
        const api_series *ser = &a->s[k];
        if (ser->gpu < 0 || ser->gpu >= ngpus)
            continue;
        for (int i = 0; i < ser->n; i++) {
            gpu_sample *s = hist_at(&h[ser->gpu], ser->p[i].t_us);
            if (s && !isnan(ser->p[i].v))
                sample_set(s, id, ser->p[i].v);
        }
    }
}

/* The charted metrics of the agent's recent past (as much as the charts hold); an agent without
 * history (or an error) just leaves the charts to fill from now on. Memory percent needs
 * memory.total, from the first refresh's GPUs. */
static void prefill_history(remote_ctx *c, top_history *hist, int ngpus, const top_gpu *latest)
{
    static const metric_id ids[] = {M_UTIL_GPU, M_MEM_USED, M_POWER_DRAW, M_TEMP_GPU, M_TEMP_MEMORY};
    gpu_hist *h = calloc((size_t)ngpus, sizeof *h);
    int ok = h != NULL;
    for (int g = 0; ok && g < ngpus; g++)
        ok = (h[g].s = calloc(TOP_HISTORY, sizeof *h[g].s)) != NULL;
    double since = fmin(c->interval_s * TOP_HISTORY, HISTORY_MAX_S);
    for (size_t i = 0; ok && i < sizeof ids / sizeof ids[0]; i++) {
        char err[512];
        api_samples a;
        if (agent_client_samples(c->ac, ids[i], since, TOP_HISTORY, &a, err, sizeof err) != 0)
            break;
        add_series(&a, ids[i], h, ngpus);
        api_samples_free(&a);
    }
    for (int g = 0; ok && g < ngpus; g++) {
        double total;
        int has_total = sample_get(&latest[g].s, M_MEM_TOTAL, &total);
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
    agent_client_close(c->ac);
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
    http_client_opts ho = {.host = o->host,
                           .tls = o->tls,
                           .cacert = o->cacert,
                           .insecure = o->insecure,
                           .user = o->user,
                           .password_file = o->password_file,
                           .user_agent = "gpuwatch-top"};
    if (!(c->ac = agent_client_open(&ho, err, errlen))) {
        free(c);
        return 1;
    }
    agent_client_set_detectors(c->ac, diag_detector_id, diag_detector_count());
    m->remote = 1;
    m->versions.cuda[0] = 0;
    /* The agent's GPU count sizes the chart history; a first read, then the charts' past before it. */
    api_gpus g;
    if (agent_client_gpus(c->ac, &g, err, errlen) != 0) {
        remote_close(c);
        return 1;
    }
    int n = g.n < TOP_MAX_GPUS ? g.n : TOP_MAX_GPUS;
    c->max_gpus = n;
    c->interval_s = isnan(g.interval_s) ? 1 : g.interval_s;
    api_gpus_free(&g);
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
    prefill_history(c, m->hist, m->ngpus, m->gpus);
    for (int i = 0; i < m->ngpus; i++)
        if (!m->gpus[i].lost)
            history_push(m->hist, i, &m->gpus[i].s);
    src->ctx = c;
    src->refresh = remote_refresh;
    src->close = remote_close;
    return 0;
}
