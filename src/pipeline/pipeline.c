/* pipeline.c - the pipeline's plugins: started with its view, handed every sample, process list,
 * tick and event in order, asked for the agent's outputs, stopped and freed; and its events,
 * posted from any thread and delivered on the pipeline's. */
#include "pipeline_internal.h"
#include <stdlib.h>
#include <string.h>
#include "util.h"

/* ---- events ---- */

void pipeline_post(pipeline *p, const gw_event *ev)
{
    gw_event copy;
    int ok = event_copy(&copy, ev) == 0;
    pthread_mutex_lock(&p->events_lock);
    gw_event *grown = ok ? realloc(p->events, (size_t)(p->nevents + 1) * sizeof *grown) : NULL;
    if (grown) {
        p->events = grown;
        grown[p->nevents++] = copy;
    }
    pthread_mutex_unlock(&p->events_lock);
    if (!grown) {
        if (ok)
            event_free(&copy);
        gw_log(GW_LOG_WARN, "event dropped: out of memory", "kind=%s", event_kind_name(ev->kind));
    }
}

/* Hands the events posted since the last delivery to every plugin's on_event. */
static void deliver(pipeline *p)
{
    pthread_mutex_lock(&p->events_lock);
    gw_event *ev = p->events;
    int n = p->nevents;
    p->events = NULL;
    p->nevents = 0;
    pthread_mutex_unlock(&p->events_lock);
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < p->nplugins; k++)
            if (p->plugins[k].p->on_event)
                p->plugins[k].p->on_event(p->plugins[k].ctx, &ev[i]);
        event_free(&ev[i]);
    }
    free(ev);
}

/* ---- the view plugins get ---- */

static void view_post_event(const pipeline_view *v, const gw_event *ev)
{
    pipeline_post(v->pipeline, ev);
}

static void view_advertise(const pipeline_view *v, const char *key, const char *value)
{
    pipeline *p = v->pipeline;
    if (p->nfacts == PIPELINE_MAX_PLUGINS)
        return;
    gw_strlcpy(p->facts[p->nfacts].key, key, sizeof p->facts[0].key);
    gw_strlcpy(p->facts[p->nfacts].value, value, sizeof p->facts[0].value);
    p->nfacts++;
}

void pipeline_host_fact(pipeline *p, const char *key, const char *value)
{
    pthread_mutex_lock(&p->mu);
    int i = 0;
    while (i < p->nhost_facts && strcmp(p->host_facts[i].key, key) != 0)
        i++;
    if (i < PIPELINE_MAX_HOST_FACTS) {
        gw_strlcpy(p->host_facts[i].key, key, sizeof p->host_facts[0].key);
        gw_strlcpy(p->host_facts[i].value, value, sizeof p->host_facts[0].value);
        if (i == p->nhost_facts)
            p->nhost_facts++;
    }
    pthread_mutex_unlock(&p->mu);
}

static const char *view_fact(const pipeline_view *v, const char *key)
{
    pipeline *p = v->pipeline;
    const char *host = NULL;
    pthread_mutex_lock(&p->mu);
    for (int i = 0; i < p->nhost_facts && !host; i++)
        if (strcmp(p->host_facts[i].key, key) == 0)
            host = p->host_facts[i].value;
    pthread_mutex_unlock(&p->mu);
    if (host)
        return host;
    for (int i = 0; i < p->nfacts; i++)
        if (strcmp(p->facts[i].key, key) == 0)
            return p->facts[i].value;
    return NULL;
}

pipeline *pipeline_new(const char *hostname)
{
    pipeline *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    gw_strlcpy(p->hostname, hostname ? hostname : "localhost", sizeof p->hostname);
    pthread_mutex_init(&p->events_lock, NULL);
    p->view = (pipeline_view){
        .hostname = p->hostname,
        .advertise = view_advertise,
        .fact = view_fact,
        .post_event = view_post_event,
        .pipeline = p,
    };
    pipeline_state_init(p);
    return p;
}

int pipeline_attach(pipeline *p, const pipeline_plugin *pl, void *ctx)
{
    if (p->nplugins >= PIPELINE_MAX_PLUGINS) {
        gw_log(GW_LOG_ERROR, "too many plugins", "name=%s", pl->name);
        return -1;
    }
    p->plugins[p->nplugins].p = pl;
    p->plugins[p->nplugins].ctx = ctx;
    p->nplugins++;
    return 0;
}

int pipeline_add(pipeline *p, const pipeline_plugin *pl, gw_doc *cfg)
{
    if (p->nplugins >= PIPELINE_MAX_PLUGINS) {
        gw_log(GW_LOG_ERROR, "too many plugins", "name=%s", pl->name);
        return -1;
    }
    void *ctx = NULL;
    if (pl->start && pl->start(&p->view, cfg, &ctx) != 0) {
        gw_log(GW_LOG_ERROR, "plugin failed to start", "name=%s", pl->name);
        return -1;
    }
    if (!ctx) {
        gw_log(GW_LOG_DEBUG, "plugin off", "name=%s", pl->name);
        return 0;
    }
    gw_log(GW_LOG_DEBUG, "plugin started", "name=%s", pl->name);
    return pipeline_attach(p, pl, ctx);
}

/* An event of a GPU's samples, for every plugin. */
static void derived(const gw_event *ev, void *arg)
{
    pipeline_post(arg, ev);
}

void pipeline_sample(pipeline *p, int gpu, const gpu_info *info, const gpu_sample *s)
{
    if (pipeline_keep_sample(p, gpu, info, s) != 0)
        return;
    event_derive(&p->derivers[gpu], gpu, s, derived, p);
    for (int k = 0; k < p->nplugins; k++)
        if (p->plugins[k].p->on_sample)
            p->plugins[k].p->on_sample(p->plugins[k].ctx, gpu, info, s);
}

void pipeline_processes(pipeline *p, int gpu, uint64_t t_us, const gpu_proc *procs, int n)
{
    pipeline_keep_processes(p, gpu, procs, n);
    for (int k = 0; k < p->nplugins; k++)
        if (p->plugins[k].p->on_processes)
            p->plugins[k].p->on_processes(p->plugins[k].ctx, gpu, t_us, procs, n > 0 ? n : 0);
}

void pipeline_tick(pipeline *p, uint64_t now_us)
{
    deliver(p); /* the round's events first: on_tick sees them (a diagnosis run, the rules) */
    for (int k = 0; k < p->nplugins; k++)
        if (p->plugins[k].p->on_tick)
            p->plugins[k].p->on_tick(p->plugins[k].ctx, now_us);
    deliver(p);
}

void pipeline_settle(pipeline *p)
{
    for (int k = 0; k < p->nplugins; k++)
        if (p->plugins[k].p->settle)
            p->plugins[k].p->settle(p->plugins[k].ctx);
    deliver(p);
}

void pipeline_reload(pipeline *p, gw_doc *cfg)
{
    for (int k = 0; k < p->nplugins; k++)
        if (p->plugins[k].p->on_reload)
            p->plugins[k].p->on_reload(p->plugins[k].ctx, cfg);
}

void pipeline_stop(pipeline *p)
{
    for (int k = 0; k < p->nplugins; k++)
        if (p->plugins[k].p->stop)
            p->plugins[k].p->stop(p->plugins[k].ctx);
    deliver(p); /* what the plugins posted until they stopped (alerts resolved...) */
    for (int k = p->nplugins - 1; k >= 0; k--)
        if (p->plugins[k].p->free)
            p->plugins[k].p->free(p->plugins[k].ctx);
    p->nplugins = 0;
}

void pipeline_free(pipeline *p)
{
    if (!p)
        return;
    pipeline_stop(p);
    pipeline_state_free(p);
    pthread_mutex_destroy(&p->events_lock);
    free(p);
}

/* ---- the agent's outputs ---- */

void pipeline_write_metrics(pipeline *p, gw_buf *out, int versioned)
{
    for (int k = 0; k < p->nplugins; k++)
        if (p->plugins[k].p->write_metrics && (p->plugins[k].p->metrics_version != NULL) == (versioned != 0))
            p->plugins[k].p->write_metrics(p->plugins[k].ctx, out);
}

uint64_t pipeline_metrics_version(pipeline *p)
{
    uint64_t v = 0;
    for (int k = 0; k < p->nplugins; k++)
        if (p->plugins[k].p->write_metrics && p->plugins[k].p->metrics_version)
            v += p->plugins[k].p->metrics_version(p->plugins[k].ctx);
    return v;
}

int pipeline_handle_http(pipeline *p, const agent_request *req, agent_response *resp)
{
    for (int k = 0; k < p->nplugins; k++)
        if (p->plugins[k].p->handle_http && p->plugins[k].p->handle_http(p->plugins[k].ctx, req, resp))
            return 1;
    return 0;
}

int pipeline_facts(pipeline *p, const char **keys, const char **values, int max)
{
    int n = 0;
    for (; n < p->nfacts && n < max; n++) {
        keys[n] = p->facts[n].key;
        values[n] = p->facts[n].value;
    }
    return n;
}
