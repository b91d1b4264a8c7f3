/* alerts_agent.c - the alert engine inside the agent: its own evaluator thread woken after every
 * sampling round (so evaluation never delays sampling), rules read from the agent's ring, series on
 * /metrics, /api/v1/alerts, receivers from the config, and a rebuild on SIGHUP. */
#include "alerts_agent.h"
#include "history/history_agent.h"
#include "alerts.h"
#include "alerts_config.h"
#include "notify.h"
#include "template.h"
#include "util.h"
#include <stdlib.h>
#include <string.h>

typedef struct alert_event {
    int64_t t_us;
    int gpu;
    char detail[768];
} alert_event;

typedef struct alerts_plugin {
    agent *a;
    pthread_mutex_t mu; /* engine/notifier pointers (swapped on reload), tick, stop */
    pthread_cond_t cv;
    alert_engine *e;
    notifier *n;
    int64_t tick_us; /* time of the round not yet evaluated, 0 if none */
    int stop;
    pthread_t thread;
    int running;
    atomic_uint_least64_t metrics_gen; /* +1 when write_metrics' text may have changed */
    alerts_event_fn sink;              /* alert events (history), or NULL */
    void *sink_arg;
    alert_event *events; /* made by the evaluator, delivered by on_tick (sampler thread) */
    int nevents;
} alerts_plugin;

/* Engine listener (runs in alert_engine_eval, under p->mu): firing and resolved alerts as events. */
static void to_events(const alert_list *l, int64_t now_us, void *arg)
{
    alerts_plugin *p = arg;
    for (int i = 0; p->sink && i < l->n; i++) {
        const alert_view *v = &l->v[i];
        if (!v->changed)
            continue;
        const char *gpu = NULL, *sev = "", *summary = "";
        for (int k = 0; k < v->nlabels; k++) {
            if (!strcmp(v->label_names[k], "gpu"))
                gpu = v->label_values[k];
            if (!strcmp(v->label_names[k], "severity"))
                sev = v->label_values[k];
        }
        for (int k = 0; k < v->nannotations; k++)
            if (!strcmp(v->annotation_names[k], "summary"))
                summary = v->annotation_values[k];
        alert_event *ev = realloc(p->events, (size_t)(p->nevents + 1) * sizeof *ev);
        if (!ev)
            return;
        p->events = ev;
        ev = &p->events[p->nevents++];
        char value[40];
        tmpl_format_value(v->value, value, sizeof value);
        ev->t_us = now_us;
        ev->gpu = gpu ? atoi(gpu) : -1;
        snprintf(ev->detail, sizeof ev->detail, "alertname=%s state=%s severity=%s value=%s summary=\"%s\"",
                 v->alertname, v->state == ALERT_INACTIVE ? "resolved" : "firing", sev, value, summary);
    }
}

/* Hands queued events to the sink. Runs on the sampler thread, and once more from on_stop: the
 * agent stops plugins in reverse order, so the history (attached first) is still open then. */
static void deliver_events(alerts_plugin *p)
{
    pthread_mutex_lock(&p->mu);
    alert_event *ev = p->events;
    int n = p->nevents;
    alerts_event_fn fn = p->sink;
    void *arg = p->sink_arg;
    p->events = NULL;
    p->nevents = 0;
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; fn && i < n; i++)
        fn(arg, (uint64_t)ev[i].t_us, ev[i].gpu, "alert", ev[i].detail);
    free(ev);
}

static void record_in_history(void *arg, uint64_t t_us, int gpu, const char *kind, const char *detail)
{
    history_record_event(arg, t_us, gpu, kind, detail);
}

int alerts_agent_set_event_sink(agent *a, alerts_event_fn fn, void *arg)
{
    for (int i = 0; i < a->nhooks; i++)
        if (a->hooks[i].name && !strcmp(a->hooks[i].name, "alerts")) {
            alerts_plugin *p = a->hooks[i].ctx;
            pthread_mutex_lock(&p->mu);
            p->sink = fn;
            p->sink_arg = arg;
            pthread_mutex_unlock(&p->mu);
            return 0;
        }
    return -1;
}

/* ---- the agent as an alert_source ---- */

static int src_count(void *ctx)
{
    agent *a = ctx;
    pthread_mutex_lock(&a->state_lock);
    int n = a->ring ? a->ngpus : 0;
    pthread_mutex_unlock(&a->state_lock);
    return n;
}

static int src_info(void *ctx, int gpu, gpu_info *out)
{
    agent *a = ctx;
    pthread_mutex_lock(&a->state_lock);
    int ok = gpu < a->ngpus && a->have_info[gpu];
    if (ok)
        *out = a->info[gpu];
    pthread_mutex_unlock(&a->state_lock);
    return ok;
}

static void src_each(void *ctx, int gpu, uint64_t since_us, void (*fn)(const gpu_sample *, void *), void *arg)
{
    ring *r = agent_ring(ctx);
    if (r)
        ring_each(r, gpu, since_us, fn, arg);
}

static int src_latest(void *ctx, int gpu, int64_t now_us, gpu_sample *out)
{
    (void)now_us;
    ring *r = agent_ring(ctx);
    return r ? ring_latest(r, gpu, out) : 0;
}

static int src_procs(void *ctx, int gpu, int64_t now_us, gpu_proc *out, int max)
{
    agent *a = ctx;
    (void)now_us;
    pthread_mutex_lock(&a->state_lock);
    int n = gpu < a->ngpus && a->procs ? a->nprocs[gpu] : 0;
    if (n > max)
        n = max;
    if (n)
        memcpy(out, a->procs[gpu], (size_t)n * sizeof *out);
    pthread_mutex_unlock(&a->state_lock);
    return n;
}

/* ---- building the engine and receivers from the config ---- */

static int build(alerts_plugin *p, gw_config *cfg, alert_engine **pe, notifier **pn)
{
    alerts_settings s;
    *pe = NULL;
    *pn = NULL;
    if (alerts_settings_read(cfg, &s) != 0) {
        for (int i = 0; i < cfg->nerrors; i++)
            gw_log(GW_LOG_ERROR, "alerts config error", "error=\"%s\"", cfg->errors[i]);
        alerts_settings_free(&s);
        return -1;
    }
    if (!s.enabled) {
        alerts_settings_free(&s);
        return 0;
    }
    alert_engine *e = alert_engine_new();
    notifier *n = notifier_new();
    if (n)
        notifier_watch(n, &p->metrics_gen);
    alert_engine_set_default_interval(e, (int64_t)(s.interval_s * 1e6));
    alert_engine_set_external_label(e, "Hostname", p->a->hostname);
    for (int i = 0; i < s.external.n; i++)
        alert_engine_set_external_label(e, s.external.v[i].name, s.external.v[i].value);
    int errors = s.default_rules_file ? alert_engine_load(e, s.default_rules_file, stderr) : 0;
    for (int i = 0; i < s.nrule_files; i++)
        errors += alert_engine_load(e, s.rule_files[i], stderr);
    for (int i = 0; i < s.nthresholds; i++)
        if (alert_engine_set_threshold(e, s.thresholds[i].alertname, s.thresholds[i].value) == 0)
            gw_log(GW_LOG_WARN, "alerts.thresholds: no single-condition rule of that name", "alertname=%s",
                   s.thresholds[i].alertname);
    for (int i = 0; i < s.nreceivers; i++)
        if (notifier_add(n, &s.receivers[i]) != 0) {
            gw_log(GW_LOG_ERROR, "alerts: cannot start receiver", "receiver=%s", s.receivers[i].name);
            errors++;
        }
    alert_engine_set_notifier(e, n);
    alert_engine_set_listener(e, to_events, p);
    gw_log(GW_LOG_INFO, "alerts loaded", "rules=%d files=%d default_rules=%s receivers=%d interval_s=%g",
           alert_engine_rule_count(e), s.nrule_files, s.default_rules_file ? s.default_rules_file : "off", s.nreceivers,
           s.interval_s);
    alerts_settings_free(&s);
    if (errors) {
        alert_engine_free(e);
        notifier_free(n);
        return -1;
    }
    *pe = e;
    *pn = n;
    return 0;
}

/* ---- the evaluator thread ---- */

static void *evaluator(void *arg)
{
    alerts_plugin *p = arg;
    alert_source src = {p->a, src_count, src_info, src_each, src_latest, src_procs};
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->stop && !p->tick_us)
            pthread_cond_wait(&p->cv, &p->mu);
        if (p->stop)
            break;
        int64_t now = p->tick_us;
        p->tick_us = 0;
        /* Not before the backend is open: a first evaluation over no GPU would delay the next one. */
        if (p->e && now >= alert_engine_next_due(p->e) && src_count(p->a) > 0) {
            alert_engine_eval(p->e, &src, now, 0); /* under mu: a reload waits for it */
            atomic_fetch_add(&p->metrics_gen, 1);
        }
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

static void on_tick(void *ctx, uint64_t now_us)
{
    alerts_plugin *p = ctx;
    deliver_events(p);
    pthread_mutex_lock(&p->mu);
    p->tick_us = (int64_t)now_us;
    pthread_cond_signal(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

/* ---- HTTP ---- */

static int write_metrics(void *ctx, gw_buf *out)
{
    alerts_plugin *p = ctx;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return 0;
    pthread_mutex_lock(&p->mu);
    if (p->e)
        alert_engine_write_metrics(p->e, f);
    if (p->n)
        notifier_write_metrics(p->n, f);
    pthread_mutex_unlock(&p->mu);
    fclose(f);
    buf_append(out, text, len);
    free(text);
    return 0;
}

static uint64_t metrics_version(void *ctx)
{
    return atomic_load(&((alerts_plugin *)ctx)->metrics_gen);
}

static int handle_http(void *ctx, const agent_request *req, agent_response *resp)
{
    alerts_plugin *p = ctx;
    if (strcmp(req->path, "/api/v1/alerts") != 0)
        return 0;
    pthread_mutex_lock(&p->mu);
    char *json = p->e ? alert_engine_json(p->e) : NULL;
    pthread_mutex_unlock(&p->mu);
    buf_puts(&resp->body, json ? json : "{\"status\":\"success\",\"data\":{\"alerts\":[],\"resolved\":[]}}");
    free(json);
    return 1;
}

/* ---- lifecycle ---- */

static void on_reload(void *ctx, gw_config *cfg)
{
    alerts_plugin *p = ctx;
    alert_engine *e;
    notifier *n;
    if (build(p, cfg, &e, &n) != 0) {
        gw_log(GW_LOG_ERROR, "alerts: reload failed, keeping the previous rules", NULL);
        return;
    }
    pthread_mutex_lock(&p->mu);
    alert_engine *old_e = p->e;
    notifier *old_n = p->n;
    p->e = e;
    p->n = n;
    pthread_mutex_unlock(&p->mu);
    atomic_fetch_add(&p->metrics_gen, 1);
    alert_engine_free(old_e);
    notifier_free(old_n);
    gw_log(GW_LOG_INFO, "alerts reloaded (alert states start over)", NULL);
}

static void on_stop(void *ctx)
{
    alerts_plugin *p = ctx;
    if (p->running) {
        pthread_mutex_lock(&p->mu);
        p->stop = 1;
        pthread_cond_signal(&p->cv);
        pthread_mutex_unlock(&p->mu);
        pthread_join(p->thread, NULL);
    }
    deliver_events(p); /* alerts resolved or fired since the last sampling round */
    alert_engine_free(p->e);
    notifier_free(p->n);
    free(p->events);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
    free(p);
}

void alerts_config_check(gw_config *cfg)
{
    alerts_settings s;
    alerts_settings_read(cfg, &s);
    alerts_settings_free(&s);
}

int alerts_agent_attach(agent *a, gw_config *cfg)
{
    alerts_plugin *p = calloc(1, sizeof *p);
    if (!p)
        return -1;
    p->a = a;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    if (build(p, cfg, &p->e, &p->n) != 0 || pthread_create(&p->thread, NULL, evaluator, p) != 0) {
        on_stop(p);
        return -1;
    }
    p->running = 1;
    history *hist = history_agent_store(a); /* history attaches first (src/agent/plugins.c) */
    if (hist) {
        p->sink = record_in_history;
        p->sink_arg = hist;
    }
    agent_hooks h = {.name = "alerts",
                     .ctx = p,
                     .on_tick = on_tick,
                     .on_reload = on_reload,
                     .write_metrics = write_metrics,
                     .metrics_version = metrics_version,
                     .handle_http = handle_http,
                     .on_stop = on_stop};
    if (agent_add_hooks(a, &h) != 0) {
        on_stop(p);
        return -1;
    }
    return 0;
}
