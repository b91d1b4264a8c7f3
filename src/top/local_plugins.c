/* local_plugins.c - top's local pipeline: the same alerts and diagnosis plugins the agent runs
 * (src/plugins), with settings made from top's preferences and thresholds, and one more plugin of
 * top's own, its panels, which takes their events into the model: the alert engine's state (every
 * pending and firing alert) after each evaluation, and each diagnosis run's report. The local
 * source (source_local.c) feeds the pipeline from every refresh, on the refresh thread. */
#include "top_model.h"
#include "plugins.h"
#include "util.h"
#include <stdio.h>
#include <string.h>

void top_diag_thresholds(diag_config *cfg, const top_thresholds *th)
{
    static const char *const names[] = {"thermal.gpu_warn_c", "thermal.gpu_crit_c", "thermal.mem_warn_c",
                                        "thermal.mem_crit_c"};
    const double tops[] = {th->temp_warn, th->temp_crit, th->hbm_warn, th->hbm_crit};
    for (int k = 0; k < diag_config_count(); k++) {
        const diag_param *q = diag_config_param(k);
        double v;
        for (int i = 0; i < 4; i++)
            if (strcmp(q->name, names[i]) == 0 && diag_config_get(cfg, q->name, &v) == 0 && v == q->def)
                diag_config_set(cfg, q->name, tops[i]);
    }
}

int top_plugin_settings(const diag_settings *diag, const top_thresholds *th, gw_buf *out)
{
    diag_settings d = *diag;
    top_diag_thresholds(&d.cfg, th);
    /* The rules' thresholds agree with the colours too (the default rules' four temperature rules). */
    buf_printf(out,
               "alerts:\n  thresholds:\n    GPUTemperatureWarning: %.10g\n    GPUTemperatureCritical: %.10g\n"
               "    GPUMemoryTemperatureWarning: %.10g\n    GPUMemoryTemperatureCritical: %.10g\n",
               th->temp_warn, th->temp_crit, th->hbm_warn, th->hbm_crit);
    buf_puts(out, "diagnosis:\n");
    diag_settings_write(&d, out);
    return out->oom ? -1 : 0;
}

/* ---- the panels: a plugin of top's ---- */

/* The alert engine's pending and firing alerts, as the alert panel's lines. */
static void show_alerts(top_model *m, const alert_records *r)
{
    top_alert lines[TOP_MAX_ALERTS];
    int n = 0;
    for (int i = 0; r && i < r->nalerts && n < TOP_MAX_ALERTS; i++) {
        const alert_record *a = &r->alerts[i];
        top_alert_set(&lines[n++], a->name, a->severity, a->firing ? "firing" : "pending", a->summary, a->active_at_us,
                      a->for_us);
    }
    top_alerts_sort(lines, n);
    pthread_mutex_lock(&m->lock);
    memcpy(m->alerts, lines, (size_t)n * sizeof *lines);
    m->nalerts = n;
    pthread_mutex_unlock(&m->lock);
}

/* A diagnosis run's report into the findings panel (a failed run: the panel says so). */
static void show_report(top_model *m, const gw_event *ev)
{
    diag_report r;
    int ok = ev->diagnosis.report && diag_report_copy(&r, ev->diagnosis.report) == 0;
    if (!ok)
        diag_report_init(&r);
    pthread_mutex_lock(&m->lock);
    m->find.next_us = ev->diagnosis.next_us;
    pthread_mutex_unlock(&m->lock);
    top_findings_publish(m, &r, ok ? FIND_OK : FIND_ERROR,
                         ok                     ? NULL
                         : ev->diagnosis.report ? "diagnosis: out of memory"
                                                : "diagnosis: out of memory, run skipped",
                         ev->t_us);
    diag_report_free(&r);
}

static void panels_event(void *ctx, const gw_event *ev)
{
    if (ev->kind == EV_ALERT_STATES)
        show_alerts(ctx, ev->alert_states.records);
    else if (ev->kind == EV_DIAGNOSIS)
        show_report(ctx, ev);
}

static const pipeline_plugin panels_plugin = {.name = "top", .on_event = panels_event};

/* ---- assembly ---- */

static void findings_state(top_model *m, const diag_settings *diag, find_state st, const char *why)
{
    pthread_mutex_lock(&m->lock);
    m->find.state = st;
    m->find.window_s = diag->window_s;
    m->find.interval_s = diag->interval_s;
    m->find.next_us = gw_now_us() + (uint64_t)(diag->interval_s * 1e6);
    snprintf(m->find.why, sizeof m->find.why, "%s", why ? why : "");
    pthread_mutex_unlock(&m->lock);
}

/* The plugins from the settings document (the alerts plugin may fail alone: no alert panel then). */
static int add_plugins(pipeline *pl, top_model *m, const diag_settings *diag, const top_thresholds *th, char *why,
                       size_t n)
{
    gw_buf text;
    buf_init(&text);
    errlist errs = {0};
    gw_doc doc = {0};
    int rc = -1;
    if (top_plugin_settings(diag, th, &text) != 0 || doc_load_text(&doc, "top", text.data, text.len, &errs) != 0) {
        snprintf(why, n, "%s", errs.n ? errs.msg[0] : "out of memory");
        goto out;
    }
    if (pipeline_add(pl, &alerts_plugin, &doc) != 0)
        gw_log(GW_LOG_DEBUG, "top: alerts panel without rules", NULL);
    if (pipeline_add(pl, &diagnosis_plugin, &doc) != 0) {
        findings_state(m, diag, FIND_ERROR, "diagnosis: out of memory");
        snprintf(why, n, "the diagnosis cannot start");
        goto out;
    }
    rc = pipeline_attach(pl, &panels_plugin, m);
out:
    doc_free(&doc);
    errlist_free(&errs);
    buf_release(&text);
    return rc;
}

pipeline *top_local_pipeline(top_model *m, int ngpus, const diag_settings *diag, const top_thresholds *th, char *why,
                             size_t n)
{
    findings_state(m, diag, diag->enabled ? FIND_WAITING : FIND_OFF, NULL);
    pipeline *pl = pipeline_new(m->host);
    if (!pl || pipeline_open(pl, ngpus, TOP_HISTORY) != 0) {
        pipeline_free(pl);
        findings_state(m, diag, FIND_ERROR, "diagnosis: out of memory");
        snprintf(why, n, "out of memory");
        return NULL;
    }
    if (add_plugins(pl, m, diag, th, why, n) != 0) {
        pipeline_free(pl);
        return NULL;
    }
    return pl;
}
