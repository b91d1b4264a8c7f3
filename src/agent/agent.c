/* agent.c - the agent's lifecycle (init, start, reload, stop), its plugins and view, state snapshots. */
#include "agent.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "http_server.h"
#include "metrics_page.h"
#include "util.h"

/* ---- the view plugins get: the agent as a sample_source, and its event channel ---- */

static int view_count(void *ctx)
{
    agent *a = ctx;
    pthread_mutex_lock(&a->state_lock);
    int n = a->ring ? a->ngpus : 0;
    pthread_mutex_unlock(&a->state_lock);
    return n;
}

static int view_info(void *ctx, int gpu, gpu_info *out)
{
    agent *a = ctx;
    pthread_mutex_lock(&a->state_lock);
    int ok = gpu >= 0 && gpu < a->ngpus && a->have_info[gpu];
    if (ok)
        *out = a->info[gpu];
    pthread_mutex_unlock(&a->state_lock);
    return ok;
}

static void view_each(void *ctx, int gpu, uint64_t since_us, void (*fn)(const gpu_sample *, void *), void *arg)
{
    ring *r = agent_ring(ctx);
    if (r)
        ring_each(r, gpu, since_us, fn, arg);
}

static int view_latest(void *ctx, int gpu, int64_t now_us, gpu_sample *out)
{
    (void)now_us;
    ring *r = agent_ring(ctx);
    return r ? ring_latest(r, gpu, out) : 0;
}

static int view_procs(void *ctx, int gpu, int64_t now_us, gpu_proc *out, int max)
{
    agent *a = ctx;
    (void)now_us;
    pthread_mutex_lock(&a->state_lock);
    int n = gpu >= 0 && gpu < a->ngpus && a->procs ? a->nprocs[gpu] : 0;
    if (n > max)
        n = max;
    if (n)
        memcpy(out, a->procs[gpu], (size_t)n * sizeof *out);
    pthread_mutex_unlock(&a->state_lock);
    return n;
}

static int view_capacity(void *ctx)
{
    ring *r = agent_ring(ctx);
    return r ? ring_capacity(r) : 0;
}

static void event_free(agent_event *ev)
{
    free((char *)ev->kind);
    free((char *)ev->detail);
    alert_records *alerts = (alert_records *)ev->alerts;
    if (alerts)
        alert_records_free(alerts);
    free(alerts);
}

/* out becomes a copy of ev (detail "" for none). Returns 0, or -1 when out of memory (nothing kept). */
static int event_copy(agent_event *out, const agent_event *ev)
{
    *out =
        (agent_event){ev->t_us, ev->gpu, strdup(ev->kind ? ev->kind : ""), strdup(ev->detail ? ev->detail : ""), NULL};
    alert_records *alerts = ev->alerts ? malloc(sizeof *alerts) : NULL;
    if (alerts && alert_records_copy(alerts, ev->alerts) != 0) {
        free(alerts);
        alerts = NULL;
    }
    out->alerts = alerts;
    if (out->kind && out->detail && (!ev->alerts || alerts))
        return 0;
    event_free(out);
    return -1;
}

static void view_post_event(const agent_view *v, const agent_event *ev)
{
    agent *a = v->agent;
    agent_event copy;
    int ok = event_copy(&copy, ev) == 0;
    pthread_mutex_lock(&a->events_lock);
    agent_event *grown = ok ? realloc(a->events, (size_t)(a->nevents + 1) * sizeof *grown) : NULL;
    if (grown) {
        a->events = grown;
        grown[a->nevents++] = copy;
    }
    pthread_mutex_unlock(&a->events_lock);
    if (!grown) {
        if (ok)
            event_free(&copy);
        gw_log(GW_LOG_WARN, "event dropped: out of memory", "kind=%s", ev->kind);
    }
}

static void view_advertise(const agent_view *v, const char *key, const char *value)
{
    agent *a = v->agent;
    if (a->nfacts == AGENT_MAX_PLUGINS)
        return;
    gw_strlcpy(a->facts[a->nfacts].key, key, sizeof a->facts[0].key);
    gw_strlcpy(a->facts[a->nfacts].value, value, sizeof a->facts[0].value);
    a->nfacts++;
}

static const char *view_fact(const agent_view *v, const char *key)
{
    agent *a = v->agent;
    if (strcmp(key, "simulated") == 0) {
        pthread_mutex_lock(&a->state_lock);
        int simulated = a->simulated;
        pthread_mutex_unlock(&a->state_lock);
        return simulated ? "1" : "0";
    }
    for (int i = 0; i < a->nfacts; i++)
        if (strcmp(a->facts[i].key, key) == 0)
            return a->facts[i].value;
    return NULL;
}

void agent_deliver_events(agent *a)
{
    pthread_mutex_lock(&a->events_lock);
    agent_event *ev = a->events;
    int n = a->nevents;
    a->events = NULL;
    a->nevents = 0;
    pthread_mutex_unlock(&a->events_lock);
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < a->nplugins; k++)
            if (a->plugins[k].p->on_event)
                a->plugins[k].p->on_event(a->plugins[k].ctx, &ev[i]);
        event_free(&ev[i]);
    }
    free(ev);
}

int agent_add_plugin(agent *a, const agent_plugin *p, gw_config *cfg)
{
    if (a->nplugins >= AGENT_MAX_PLUGINS) {
        gw_log(GW_LOG_ERROR, "too many plugins", "name=%s", p->name);
        return -1;
    }
    void *ctx = NULL;
    if (p->start && p->start(&a->view, cfg, &ctx) != 0) {
        gw_log(GW_LOG_ERROR, "plugin failed to start", "name=%s", p->name);
        return -1;
    }
    if (!ctx) {
        gw_log(GW_LOG_DEBUG, "plugin off", "name=%s", p->name);
        return 0;
    }
    a->plugins[a->nplugins].p = p;
    a->plugins[a->nplugins].ctx = ctx;
    a->nplugins++;
    gw_log(GW_LOG_DEBUG, "plugin started", "name=%s", p->name);
    return 0;
}

/* Resolves the config's exporter settings and the command-line overrides. */
static void apply_settings(agent *a, gw_config *cfg)
{
    if (a->cli.listen) {
        free(cfg->listen);
        cfg->listen = strdup(a->cli.listen);
    }
    if (a->cli.interval > 0)
        cfg->interval = a->cli.interval;
    if (a->cli.log_level_set)
        cfg->log_level = a->cli.log_level;
    gw_log_set_level(cfg->log_level);
    expo_options_default(&a->expo);
    a->expo.series = cfg->series;
    a->expo.process_limit = cfg->process_series_limit;
    a->expo.hostname = a->hostname;
    for (int i = 0; i < cfg->nmetrics; i++)
        expo_enable(&a->expo, cfg->metrics[i]);
}

int agent_init(agent *a, gw_config *cfg, const agent_cli *cli)
{
    memset(a, 0, sizeof *a);
    a->cli = *cli;
    pthread_rwlock_init(&a->cfg_lock, NULL);
    pthread_mutex_init(&a->state_lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&a->wake, &ca);
    pthread_condattr_destroy(&ca);
    if (gethostname(a->hostname, sizeof a->hostname - 1) != 0)
        gw_strlcpy(a->hostname, "localhost", sizeof a->hostname);
    a->cfg = cfg;
    apply_settings(a, cfg);
    a->interval_s = cfg->interval;
    gw_strlcpy(a->backend_error, "backend not opened yet", sizeof a->backend_error);
    pthread_mutex_init(&a->events_lock, NULL);
    a->view = (agent_view){
        .source = {a, view_count, view_info, view_each, view_latest, view_procs, view_capacity},
        .hostname = a->hostname,
        .advertise = view_advertise,
        .fact = view_fact,
        .post_event = view_post_event,
        .agent = a,
    };
    a->page = page_cache_new();
    return a->page ? 0 : -1;
}

int agent_start(agent *a, char *err, size_t errlen)
{
    a->http = http_start(a, err, errlen);
    if (!a->http)
        return -1;
    if (sampler_thread_start(a) != 0) {
        gw_strlcpy(err, "cannot start the sampler thread", errlen);
        return -1;
    }
    return 0;
}

void agent_reload(agent *a, gw_config *cfg)
{
    pthread_rwlock_wrlock(&a->cfg_lock);
    gw_config *old = a->cfg;
    apply_settings(a, cfg);
    if (strcmp(old->listen, cfg->listen) != 0)
        gw_log(GW_LOG_WARN, "listen address change needs a restart", "old=%s new=%s", old->listen, cfg->listen);
    if ((old->tls_cert == NULL) != (cfg->tls_cert == NULL) ||
        (old->tls_cert && (strcmp(old->tls_cert, cfg->tls_cert) || strcmp(old->tls_key, cfg->tls_key))))
        gw_log(GW_LOG_WARN, "tls change needs a restart", NULL);
    if (old->ring_duration != cfg->ring_duration)
        gw_log(GW_LOG_WARN, "ring_duration change needs a restart", NULL);
    a->cfg = cfg;
    pthread_rwlock_unlock(&a->cfg_lock);
    pthread_mutex_lock(&a->state_lock);
    a->interval_s = cfg->interval;
    a->gen++;
    pthread_cond_broadcast(&a->wake);
    pthread_mutex_unlock(&a->state_lock);
    http_set_users(a->http, cfg->users, cfg->nusers);
    for (int k = 0; k < a->nplugins; k++)
        if (a->plugins[k].p->on_reload)
            a->plugins[k].p->on_reload(a->plugins[k].ctx, cfg);
    config_free(old);
    free(old);
    gw_log(GW_LOG_INFO, "configuration reloaded", "interval=%g series=%d metrics=%d users=%d", cfg->interval,
           cfg->series, cfg->nmetrics, cfg->nusers);
}

int agent_stop(agent *a)
{
    uint64_t t0 = gw_mono_us();
    http_stop(a->http);
    a->http = NULL;
    /* 2.5 s for the sampler thread (a round waits on nothing then): the rest of AGENT_STOP_S is
     * for the plugins (history's last flush). */
    int left = sampler_thread_stop(a, t0 + 2500000) != 0;
    pthread_mutex_lock(&a->state_lock);
    int sampler_busy = left && !a->sampler_exited && !a->in_open;
    pthread_mutex_unlock(&a->state_lock);
    if (sampler_busy) {
        /* The sampler thread is inside a plugin or the ring, not the backend: stopping the plugins
         * under it is not safe. Exit without them. */
        gw_log(GW_LOG_ERROR, "sampler thread stuck outside the backend; plugins not stopped", NULL);
        return 1;
    }
    for (int k = 0; k < a->nplugins; k++)
        if (a->plugins[k].p->stop)
            a->plugins[k].p->stop(a->plugins[k].ctx);
    agent_deliver_events(a); /* what the plugins posted until they stopped (alerts resolved...) */
    for (int k = a->nplugins - 1; k >= 0; k--)
        if (a->plugins[k].p->free)
            a->plugins[k].p->free(a->plugins[k].ctx);
    a->nplugins = 0;
    if (left) {
        /* A thread is still inside a backend call: the backend, the sampler and the agent stay. */
        gw_log(GW_LOG_WARN, "stopped with a backend call in progress", "seconds=%.1f",
               (double)(gw_mono_us() - t0) / 1e6);
        return 1;
    }
    if (a->backend_up)
        sampler_close(&a->s);
    ring_free(a->ring);
    for (int i = 0; i < a->ngpus; i++)
        free(a->procs[i]);
    free(a->procs);
    free(a->nprocs);
    free(a->mig);
    free(a->nmig);
    free(a->info);
    free(a->have_info);
    free(a->hung_since);
    free(a->status);
    free(a->xids);
    page_cache_free(a->page);
    pthread_mutex_destroy(&a->events_lock);
    config_free(a->cfg);
    free(a->cfg);
    pthread_cond_destroy(&a->wake);
    pthread_mutex_destroy(&a->state_lock);
    pthread_rwlock_destroy(&a->cfg_lock);
    memset(a, 0, sizeof *a);
    return 0;
}

double agent_interval(agent *a)
{
    pthread_mutex_lock(&a->state_lock);
    double v = a->interval_s;
    pthread_mutex_unlock(&a->state_lock);
    return v;
}

ring *agent_ring(agent *a)
{
    pthread_mutex_lock(&a->state_lock);
    ring *r = a->ring;
    pthread_mutex_unlock(&a->state_lock);
    return r;
}

void snapshot_free(agent_snapshot *s)
{
    free(s->gpus);
    free(s->procs);
    free(s->errors);
    memset(s, 0, sizeof *s);
}

double snapshot_sample_age(const agent_snapshot *s, int gpu, uint64_t now_us, int *stale)
{
    const agent_gpu_view *g = &s->gpus[gpu];
    double age = g->has_sample && now_us > g->sample.t_us ? (double)(now_us - g->sample.t_us) / 1e6 : 0;
    *stale = g->has_sample && age > 3 * s->interval_s;
    return age;
}

uint64_t agent_state_gen(agent *a)
{
    pthread_mutex_lock(&a->state_lock);
    uint64_t gen = a->gen;
    pthread_mutex_unlock(&a->state_lock);
    return gen;
}

int agent_snapshot_take(agent *a, agent_snapshot *out)
{
    memset(out, 0, sizeof *out);
    out->now_us = gw_now_us();
    pthread_mutex_lock(&a->state_lock);
    out->gen = a->gen;
    out->backend_up = a->backend_up;
    out->simulated = a->simulated;
    gw_strlcpy(out->backend_error, a->backend_error, sizeof out->backend_error);
    gw_strlcpy(out->driver_version, a->driver_version, sizeof out->driver_version);
    out->sampling_duration_s = a->sampling_duration_s;
    out->interval_s = a->interval_s;
    int n = a->ngpus, np = 0;
    for (int i = 0; i < n; i++)
        np += a->nprocs[i];
    size_t gn = n > 0 ? (size_t)n : 1, pn = np > 0 ? (size_t)np : 1;
    size_t en = a->nerrors > 0 ? (size_t)a->nerrors : 1;
    out->gpus = calloc(gn, sizeof *out->gpus);
    out->procs = malloc(pn * sizeof *out->procs);
    out->errors = malloc(en * sizeof *out->errors);
    if (!out->gpus || !out->procs || !out->errors) {
        pthread_mutex_unlock(&a->state_lock);
        snapshot_free(out);
        return -1;
    }
    uint64_t mono = gw_mono_us();
    for (int i = 0; i < n; i++) {
        out->gpus[i].info = a->info[i];
        out->gpus[i].have_info = a->have_info[i];
        out->gpus[i].hung = a->hung_since[i] != 0;
        out->gpus[i].xids = a->xids[i];
        out->gpus[i].hung_s = a->hung_since[i] && mono > a->hung_since[i] ? (double)(mono - a->hung_since[i]) / 1e6 : 0;
        if (a->nprocs[i])
            memcpy(out->procs + out->nprocs, a->procs[i], (size_t)a->nprocs[i] * sizeof *out->procs);
        out->nprocs += a->nprocs[i];
        out->gpus[i].nmig = a->nmig[i];
        memcpy(out->gpus[i].mig, &a->mig[(size_t)i * GW_MIG_MAX], (size_t)a->nmig[i] * sizeof *a->mig);
    }
    memcpy(out->errors, a->errors, (size_t)a->nerrors * sizeof *out->errors);
    out->nerrors = a->nerrors;
    out->ngpus = n;
    ring *r = a->ring;
    pthread_mutex_unlock(&a->state_lock);
    out->ring_bytes = ring_bytes(r);
    for (int i = 0; i < n; i++) {
        agent_gpu_view *g = &out->gpus[i];
        g->has_sample = ring_latest(r, i, &g->sample);
        g->lost = g->has_sample && g->sample.status == GPU_LOST;
    }
    return 0;
}
