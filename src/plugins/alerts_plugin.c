/* alerts_plugin.c - the alert engine as a plugin of the pipeline (the agent's and top's): its own
 * evaluator thread woken after a round when a rule group is due (so evaluation never delays
 * sampling), rules read through the pipeline's view, series on /metrics, /api/v1/alerts, receivers
 * from the `alerts:` section, a rebuild on SIGHUP that keeps the state of unchanged rules, and every
 * alert that starts firing or resolves posted as an "alert" event (the history records it). The
 * engine's state is posted as an "alert_states" event after every evaluation (top's panel shows it;
 * the history keeps it when what a restart restores changed) and taken back from the history at a
 * restart. The "finding" events of diagnosis set what finding.DETECTOR reads in rule conditions. */
#include "alerts.h"
#include "alerts_settings.h"
#include "history.h"
#include "notify.h"
#include "plugin.h"
#include "util.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

typedef struct alerts_state {
    const pipeline_view *view;
    pthread_mutex_t mu;               /* engine/notifier pointers (swapped on reload), tick, stop */
    pthread_cond_t cv;                /* a tick for the evaluator */
    pthread_cond_t settled;           /* the evaluator is done with a tick */
    atomic_int_least64_t next_due_us; /* when a group is due next (0: at the next tick) */
    alert_engine *e;
    notifier *n;
    int64_t tick_us; /* time of the round not yet evaluated (or being evaluated), 0 if none */
    int stop;
    pthread_t thread;
    int running;
    atomic_uint_least64_t metrics_gen;     /* +1 when write_metrics' text may have changed */
    int64_t outage_tolerance_us, grace_us; /* for the restart (alerts.for_outage_tolerance, for_grace_period) */
    int sampled;                           /* evaluator thread: every GPU had a sample before the first evaluation */
    int ticks_waited;                      /* evaluator thread: for those samples */
    gpu_sample *probe;                     /* evaluator thread: a sample to look at */
} alerts_state;

/* The ticks the first evaluation waits at most for a sample of every GPU. */
#define FIRST_EVAL_MAX_TICKS 10

/* How long a reload waits for the previous receivers to send what they still hold. */
#define RELOAD_FLUSH_S 5.0

/* Engine listener (runs in alert_engine_eval, under p->mu): alerts that start firing or resolve,
 * posted as events. */
static void to_events(const alert_list *l, int64_t now_us, void *arg)
{
    alerts_state *p = arg;
    for (int i = 0; i < l->n; i++) {
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
        gw_event ev = {.kind = EV_ALERT,
                       .t_us = (uint64_t)now_us,
                       .gpu = gpu ? atoi(gpu) : -1,
                       .alert = {v->alertname, sev, summary, v->value, v->state != ALERT_INACTIVE}};
        p->view->post_event(p->view, &ev);
    }
}

/* ---- building the engine and receivers from the config ---- */

static int build(alerts_state *p, gw_doc *cfg, alert_engine **pe, notifier **pn)
{
    alerts_settings s;
    *pe = NULL;
    *pn = NULL;
    if (alerts_settings_read(cfg, &s) != 0) {
        for (int i = 0; i < cfg->errs->n; i++)
            gw_log(GW_LOG_ERROR, "alerts config error", "error=\"%s\"", cfg->errs->msg[i]);
        alerts_settings_free(&s);
        return -1;
    }
    if (!s.enabled) {
        alerts_settings_free(&s);
        return 0;
    }
    alert_engine *e = alert_engine_new();
    notifier *n = notifier_new();
    if (!e || !n) {
        gw_log(GW_LOG_ERROR, "alerts: out of memory", NULL);
        alert_engine_free(e);
        notifier_free(n);
        alerts_settings_free(&s);
        return -1;
    }
    notifier_watch(n, &p->metrics_gen);
    alert_engine_set_default_interval(e, (int64_t)(s.interval_s * 1e6));
    p->outage_tolerance_us = (int64_t)(s.outage_tolerance_s * 1e6);
    p->grace_us = (int64_t)(s.grace_period_s * 1e6);
    int errors = alert_engine_set_external_label(e, "Hostname", p->view->hostname) != 0;
    for (int i = 0; i < s.external.n; i++)
        errors += alert_engine_set_external_label(e, s.external.v[i].name, s.external.v[i].value) != 0;
    if (errors)
        gw_log(GW_LOG_ERROR, "alerts: out of memory", NULL);
    errors += s.default_rules_file ? alert_engine_load(e, s.default_rules_file, stderr) : 0;
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

/* ---- the state across a restart (docs/alerts.md, "Reload and restart") ---- */

/* The engine's state after an evaluation, for a screen to show and, when what a restart restores
 * changed, for the history to keep (called with p->mu held). */
static void post_states(alerts_state *p, int64_t now_us, int changed)
{
    alert_records r;
    if (alert_engine_records(p->e, &r) != 0) {
        gw_log(GW_LOG_WARN, "alerts: out of memory, the alert states are not recorded this time", NULL);
        return;
    }
    gw_event ev = {.kind = EV_ALERT_STATES, .t_us = (uint64_t)now_us, .gpu = -1, .alert_states = {&r, changed}};
    p->view->post_event(p->view, &ev);
    alert_records_free(&r);
}

/* At the start: the states the previous run left in the history, when it stopped less than the
 * outage tolerance ago. */
static void restore(alerts_state *p)
{
    const char *db = p->view->fact ? p->view->fact(p->view, "db") : NULL;
    if (!db) {
        gw_log(GW_LOG_INFO, "alerts: no history, alert states start over", NULL);
        return;
    }
    alert_records saved;
    int64_t last_seen = 0;
    int skipped = 0;
    char err[512];
    if (history_read_alert_states(db, &saved, &last_seen, &skipped, err, sizeof err) != 0) {
        gw_log(GW_LOG_WARN, "alerts: the history's alert states cannot be read; they start over", "err=\"%s\"", err);
        return;
    }
    int64_t now = (int64_t)gw_now_us();
    alert_restore how = {now, last_seen, p->outage_tolerance_us, p->grace_us};
    alert_restore_counts c;
    if (alert_engine_restore(p->e, &saved, &how, &c) != 0)
        gw_log(GW_LOG_ERROR, "alerts: out of memory, alert states partly restored", NULL);
    double down_s = last_seen ? (double)(now - last_seen) / 1e6 : -1;
    if (c.too_long && (saved.nalerts || saved.nfindings))
        gw_log(GW_LOG_WARN, "alert states start over: down longer than alerts.for_outage_tolerance",
               "down_s=%.1f tolerance_s=%g firing_resolved=%d pending_dropped=%d", down_s,
               (double)p->outage_tolerance_us / 1e6, c.resolved, c.dropped);
    else if (saved.nalerts || saved.nfindings)
        gw_log(GW_LOG_INFO, "alert states restored",
               "firing=%d pending=%d findings=%d firing_resolved=%d pending_dropped=%d invalid=%d down_s=%.1f",
               c.firing, c.pending, c.findings, c.resolved, c.dropped, c.invalid + skipped, down_s);
    alert_records_free(&saved);
}

/* ---- the evaluator thread ---- */

/* 1 once the source has a sample of every GPU, or waited FIRST_EVAL_MAX_TICKS ticks for them (a GPU
 * that never answers). Not before the backend is open: a first evaluation over no GPU would delay
 * the next one; nor before the first samples: a rule over no sample does not hold, which would
 * resolve the alerts restored at the start. */
static int ready(alerts_state *p, const sample_source *src, int64_t now)
{
    int n = src->gpu_count(src->ctx);
    if (p->sampled || n <= 0)
        return n > 0;
    int missing = 0;
    for (int gpu = 0; p->probe && gpu < n && !missing; gpu++)
        missing = !src->latest(src->ctx, gpu, now, p->probe);
    p->sampled = !missing || ++p->ticks_waited >= FIRST_EVAL_MAX_TICKS;
    return p->sampled;
}

static void *evaluator(void *arg)
{
    alerts_state *p = arg;
    const sample_source *src = &p->view->source;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->stop && !p->tick_us)
            pthread_cond_wait(&p->cv, &p->mu);
        if (p->stop)
            break;
        int64_t now = p->tick_us;
        if (p->e && now >= alert_engine_next_due(p->e) && ready(p, src, now)) {
            if (src->capacity)
                alert_engine_set_source_capacity(p->e, src->capacity(src->ctx));
            int evaluated = alert_engine_eval(p->e, src, now, 0); /* under mu: a reload waits for it */
            int changed = alert_engine_take_changes(p->e);
            if (evaluated != 0 || changed)
                post_states(p, now, changed);
            atomic_fetch_add(&p->metrics_gen, 1);
        }
        atomic_store(&p->next_due_us, p->e && p->sampled ? alert_engine_next_due(p->e) : 0);
        p->tick_us = 0;
        pthread_cond_broadcast(&p->settled);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* The evaluator is woken only when a group is due (an evaluation every 15 s by default, not every
 * round). */
static void on_tick(void *ctx, uint64_t now_us)
{
    alerts_state *p = ctx;
    if ((int64_t)now_us < atomic_load(&p->next_due_us))
        return;
    pthread_mutex_lock(&p->mu);
    p->tick_us = (int64_t)now_us;
    pthread_cond_signal(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

/* Returns once the evaluator is done with the last tick (its events posted). */
static void settle(void *ctx)
{
    alerts_state *p = ctx;
    pthread_mutex_lock(&p->mu);
    while (p->tick_us && !p->stop)
        pthread_cond_wait(&p->settled, &p->mu);
    pthread_mutex_unlock(&p->mu);
}

/* ---- HTTP ---- */

/* Out of memory: out->oom (the agent writes the plugins' text again at the next scrape) rather than
 * a text without the alerts. */
static int write_metrics(void *ctx, gw_buf *out)
{
    alerts_state *p = ctx;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) {
        out->oom = 1;
        return -1;
    }
    pthread_mutex_lock(&p->mu);
    int rc = p->e ? alert_engine_write_metrics(p->e, f) : 0;
    if (p->n)
        notifier_write_metrics(p->n, f);
    pthread_mutex_unlock(&p->mu);
    if (fclose(f) != 0)
        rc = -1;
    if (rc == 0)
        buf_append(out, text, len);
    else
        out->oom = 1;
    free(text);
    return rc;
}

static uint64_t metrics_version(void *ctx)
{
    return atomic_load(&((alerts_state *)ctx)->metrics_gen);
}

static int handle_http(void *ctx, const agent_request *req, agent_response *resp)
{
    alerts_state *p = ctx;
    if (strcmp(req->path, "/api/v1/alerts") != 0)
        return 0;
    pthread_mutex_lock(&p->mu);
    char *json = p->e ? alert_engine_json(p->e) : NULL;
    int oom = p->e && !json;
    pthread_mutex_unlock(&p->mu);
    if (oom)
        resp->status = 500;
    buf_puts(&resp->body, json  ? json
                          : oom ? "{\"status\":\"error\",\"error\":\"out of memory\"}"
                                : "{\"status\":\"success\",\"data\":{\"alerts\":[],\"resolved\":[]}}");
    free(json);
    return 1;
}

/* ---- findings from diagnosis ---- */

/* Sampler thread: a finding that appeared, changed severity or cleared (docs/diagnosis.md). */
static void on_event(void *ctx, const gw_event *ev)
{
    alerts_state *p = ctx;
    if (ev->kind != EV_FINDING)
        return;
    int level = ev->finding.active ? (int)ev->finding.severity + 1 : 0; /* 1 info, 2 warning, 3 critical */
    pthread_mutex_lock(&p->mu);
    if (p->e && alert_engine_set_finding(p->e, ev->gpu, ev->finding.detector, level) != 0)
        gw_log(GW_LOG_WARN, "alerts: out of memory, a finding is not seen by the rules", "detector=%s gpu=%d",
               ev->finding.detector, ev->gpu);
    pthread_mutex_unlock(&p->mu);
}

/* ---- lifecycle ---- */

static void on_reload(void *ctx, gw_doc *cfg)
{
    alerts_state *p = ctx;
    alert_engine *e;
    notifier *n;
    if (build(p, cfg, &e, &n) != 0) {
        gw_log(GW_LOG_ERROR, "alerts: reload failed, keeping the previous rules", NULL);
        return;
    }
    pthread_mutex_lock(&p->mu);
    alert_engine *old_e = p->e;
    notifier *old_n = p->n;
    alert_carry_counts c = {0};
    if (old_e && e && alert_engine_take_over(e, old_e, (int64_t)gw_now_us(), &c) != 0) {
        pthread_mutex_unlock(&p->mu);
        alert_engine_free(e);
        notifier_free(n);
        gw_log(GW_LOG_ERROR, "alerts: out of memory, reload failed, keeping the previous rules", NULL);
        return;
    }
    p->e = e;
    p->n = n;
    atomic_store(&p->next_due_us, 0); /* the new rules: evaluated at the next tick */
    pthread_mutex_unlock(&p->mu);
    atomic_fetch_add(&p->metrics_gen, 1);
    alert_engine_free(old_e);
    if (old_n && notifier_flush(old_n, RELOAD_FLUSH_S) != 0)
        gw_log(GW_LOG_WARN, "alerts: notifications the previous receivers still held were dropped at the reload",
               "waited_s=%g", RELOAD_FLUSH_S);
    notifier_free(old_n);
    gw_log(GW_LOG_INFO, "alerts reloaded",
           "rules_kept=%d rules_changed=%d rules_new=%d rules_removed=%d alerts_kept=%d alerts_resolved=%d",
           c.rules_kept, c.rules_changed, c.rules_new, c.rules_removed, c.alerts_kept, c.alerts_resolved);
}

static void stop(void *ctx)
{
    alerts_state *p = ctx;
    if (!p->running)
        return;
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    pthread_cond_signal(&p->cv);
    pthread_cond_broadcast(&p->settled);
    pthread_mutex_unlock(&p->mu);
    pthread_join(p->thread, NULL);
    p->running = 0;
}

static void release(void *ctx)
{
    alerts_state *p = ctx;
    alert_engine_free(p->e);
    notifier_free(p->n);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
    pthread_cond_destroy(&p->settled);
    free(p->probe);
    free(p);
}

static void check(gw_doc *cfg)
{
    alerts_settings s;
    alerts_settings_read(cfg, &s);
    alerts_settings_free(&s);
}

static int start(const pipeline_view *view, gw_doc *cfg, void **ctx)
{
    alerts_state *p = calloc(1, sizeof *p);
    if (!p)
        return -1;
    p->view = view;
    p->probe = malloc(sizeof *p->probe); /* none: the first evaluation does not wait */
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    pthread_cond_init(&p->settled, NULL);
    if (build(p, cfg, &p->e, &p->n) != 0) {
        release(p);
        return -1;
    }
    if (p->e)
        restore(p);
    if (pthread_create(&p->thread, NULL, evaluator, p) != 0) {
        release(p);
        return -1;
    }
    pthread_setname_np(p->thread, "gw-alerts");
    p->running = 1;
    *ctx = p;
    return 0;
}

const pipeline_plugin alerts_plugin = {
    .name = "alerts",
    .check = check,
    .start = start,
    .on_tick = on_tick,
    .on_event = on_event,
    .settle = settle,
    .on_reload = on_reload,
    .write_metrics = write_metrics,
    .metrics_version = metrics_version,
    .handle_http = handle_http,
    .stop = stop,
    .free = release,
};
