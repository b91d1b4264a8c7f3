/* agent.c - the agent's lifecycle (init, start, reload, stop), its pipeline, state snapshots. */
#include "agent.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "http_server.h"
#include "metrics_page.h"
#include "util.h"

int agent_add_plugin(agent *a, const pipeline_plugin *p, gw_config *cfg)
{
    return pipeline_add(a->pl, p, &cfg->doc);
}

int agent_facts(agent *a, const char **keys, const char **values, int max)
{
    return pipeline_facts(a->pl, keys, values, max);
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
    a->pl = pipeline_new(a->hostname);
    a->page = page_cache_new();
    return a->page && a->pl ? 0 : -1;
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
    pipeline_reload(a->pl, &cfg->doc);
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
    pipeline_stop(a->pl); /* stop, the last events delivered (alerts resolved...), free */
    if (left) {
        /* A thread is still inside a backend call: the backend, the sampler and the agent stay. */
        gw_log(GW_LOG_WARN, "stopped with a backend call in progress", "seconds=%.1f",
               (double)(gw_mono_us() - t0) / 1e6);
        return 1;
    }
    if (a->backend_up)
        sampler_close(&a->s);
    pipeline_free(a->pl);
    free(a->mig);
    free(a->nmig);
    free(a->hung_since);
    free(a->status);
    free(a->xids);
    page_cache_free(a->page);
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
    return pipeline_ring(a->pl);
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
    const sample_source *src = pipeline_source(a->pl);
    gpu_proc *procs = NULL;
    int np = pipeline_processes_all(a->pl, &procs);
    pthread_mutex_lock(&a->state_lock);
    out->gen = a->gen;
    out->backend_up = a->backend_up;
    out->simulated = a->simulated;
    gw_strlcpy(out->backend_error, a->backend_error, sizeof out->backend_error);
    gw_strlcpy(out->driver_version, a->driver_version, sizeof out->driver_version);
    out->sampling_duration_s = a->sampling_duration_s;
    out->interval_s = a->interval_s;
    int n = a->ngpus;
    size_t gn = n > 0 ? (size_t)n : 1, en = a->nerrors > 0 ? (size_t)a->nerrors : 1;
    out->gpus = calloc(gn, sizeof *out->gpus);
    out->errors = malloc(en * sizeof *out->errors);
    if (!out->gpus || !out->errors || np < 0) {
        pthread_mutex_unlock(&a->state_lock);
        free(procs);
        snapshot_free(out);
        return -1;
    }
    uint64_t mono = gw_mono_us();
    for (int i = 0; i < n; i++) {
        out->gpus[i].hung = a->hung_since[i] != 0;
        out->gpus[i].xids = a->xids[i];
        out->gpus[i].hung_s = a->hung_since[i] && mono > a->hung_since[i] ? (double)(mono - a->hung_since[i]) / 1e6 : 0;
        out->gpus[i].nmig = a->nmig[i];
        memcpy(out->gpus[i].mig, &a->mig[(size_t)i * GW_MIG_MAX], (size_t)a->nmig[i] * sizeof *a->mig);
    }
    memcpy(out->errors, a->errors, (size_t)a->nerrors * sizeof *out->errors);
    out->nerrors = a->nerrors;
    out->ngpus = n;
    pthread_mutex_unlock(&a->state_lock);
    out->procs = procs;
    out->nprocs = np;
    ring *r = pipeline_ring(a->pl);
    out->ring_bytes = r ? ring_bytes(r) : 0;
    for (int i = 0; i < n; i++) {
        agent_gpu_view *g = &out->gpus[i];
        g->have_info = src->gpu_info(src->ctx, i, &g->info);
        g->has_sample = r && ring_latest(r, i, &g->sample);
        g->lost = g->has_sample && g->sample.status == GPU_LOST;
    }
    return 0;
}
