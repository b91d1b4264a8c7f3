/* history_plugin.c - the history as a plugin of the agent's pipeline: reads the `history:` section,
 * records what the sampler thread hands over and the events the file keeps (memory only; the
 * history writer thread does the disk), keeps the alert engine's latest state for a restart, serves
 * /api/v1/query_range and adds gpuwatch_history_* series. */
#include "history.h"
#include "plugin.h"
#include "util.h"
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct hist_plugin {
    history *h;
    pthread_mutex_t ver_mu; /* seen, version */
    history_stats seen;     /* the statistics at the last metrics_version call */
    uint64_t version;
} hist_plugin;

/* Reads the `history:` section (enabled, path, flush_interval, raw_retention, rollup_retention,
 * max_size) into out, the path into path; problems go to the document's error list. `gpuwatch agent
 * --db PATH` overrides history.path. Returns 0, or -1 when the section has errors. */
static int history_settings_read(gw_doc *d, history_config *out, char *path, size_t n, int *enabled)
{
    static const char *const keys[] = {"enabled",  "path", "flush_interval", "raw_retention", "rollup_retention",
                                       "max_size", NULL};
    int errors = d->errs->n;
    history_config_defaults(out);
    *enabled = 1;
    char def[4096];
    history_default_path(def, sizeof def);
    const char *file = def;
    doc_node *sec = doc_path(d, "history");
    if (!doc_is_null(sec) && doc_check_map(d, sec, "history", keys) == 0) {
        doc_opt_bool(d, sec, "history", "enabled", enabled);
        doc_opt_string(d, sec, "history", "path", &file);
        if (doc_opt_duration(d, sec, "history", "flush_interval", &out->flush_interval_s) == 0 &&
            (out->flush_interval_s < 0.1 || out->flush_interval_s > 3600))
            doc_error(d, doc_get(d, sec, "flush_interval"), "history.flush_interval: between 100ms and 1h");
        if (doc_opt_duration(d, sec, "history", "raw_retention", &out->raw_retention_s) == 0 &&
            out->raw_retention_s < 60)
            doc_error(d, doc_get(d, sec, "raw_retention"), "history.raw_retention: at least 1m");
        if (doc_opt_duration(d, sec, "history", "rollup_retention", &out->rollup_retention_s) == 0 &&
            out->rollup_retention_s < out->raw_retention_s)
            doc_error(d, doc_get(d, sec, "rollup_retention"),
                      "history.rollup_retention: at least history.raw_retention");
        doc_opt_size(d, sec, "history", "max_size", &out->max_size);
        if (!*file)
            doc_error(d, doc_get(d, sec, "path"), "history.path: empty");
    }
    const char *given = doc_overridden(d, "history", "path");
    gw_strlcpy(path, given ? given : file, n);
    out->path = path;
    return d->errs->n > errors ? -1 : 0;
}

static void check(gw_doc *cfg)
{
    history_config hc;
    char path[4096];
    int enabled;
    history_settings_read(cfg, &hc, path, sizeof path, &enabled);
}

static void on_sample(void *ctx, int gpu, const gpu_info *info, const gpu_sample *s)
{
    hist_plugin *p = ctx;
    history_record_sample(p->h, gpu, info, s);
}

static void on_processes(void *ctx, int gpu, uint64_t t_us, const gpu_proc *procs, int n)
{
    hist_plugin *p = ctx;
    history_record_processes(p->h, gpu, t_us, procs, n);
}

/* An event goes to the events table (the kinds it keeps); the alert engine's state, when what a
 * restart restores changed, replaces the one the file holds. */
static void on_event(void *ctx, const gw_event *ev)
{
    hist_plugin *p = ctx;
    if (ev->kind != EV_ALERT_STATES)
        history_record_event(p->h, ev);
    else if (ev->alert_states.changed && ev->alert_states.records)
        history_set_alert_states(p->h, ev->alert_states.records);
}

static void on_tick(void *ctx, uint64_t now_us)
{
    (void)now_us;
    history_round_end(((hist_plugin *)ctx)->h);
}

static int write_metrics(void *ctx, gw_buf *out)
{
    hist_plugin *p = ctx;
    history_stats st;
    history_get_stats(p->h, &st);
    buf_printf(
        out,
        "# HELP gpuwatch_history_samples_total Metric values recorded into the history.\n"
        "# TYPE gpuwatch_history_samples_total counter\ngpuwatch_history_samples_total %llu\n"
        "# HELP gpuwatch_history_dropped_samples_total Values dropped from memory while the file could not be "
        "written.\n"
        "# TYPE gpuwatch_history_dropped_samples_total counter\ngpuwatch_history_dropped_samples_total %llu\n"
        "# HELP gpuwatch_history_flush_errors_total History flushes that failed (disk full, read-only file...).\n"
        "# TYPE gpuwatch_history_flush_errors_total counter\ngpuwatch_history_flush_errors_total %llu\n"
        "# HELP gpuwatch_history_writable 1 when the last history flush succeeded.\n"
        "# TYPE gpuwatch_history_writable gauge\ngpuwatch_history_writable %d\n"
        "# HELP gpuwatch_history_buffered_bytes Encoded history waiting in memory to be written.\n"
        "# TYPE gpuwatch_history_buffered_bytes gauge\ngpuwatch_history_buffered_bytes %zu\n"
        "# HELP gpuwatch_history_damaged_files_total History files found damaged and moved aside (recording "
        "went on in a new file).\n"
        "# TYPE gpuwatch_history_damaged_files_total counter\ngpuwatch_history_damaged_files_total %llu\n",
        (unsigned long long)st.samples, (unsigned long long)st.dropped, (unsigned long long)st.flush_errors,
        st.writable, st.buffered, (unsigned long long)st.damaged_files);
    return 0;
}

/* Goes up when a statistic write_metrics shows has changed since the last call. */
static uint64_t metrics_version(void *ctx)
{
    hist_plugin *p = ctx;
    history_stats st;
    history_get_stats(p->h, &st);
    pthread_mutex_lock(&p->ver_mu);
    history_stats *s = &p->seen;
    if (st.samples != s->samples || st.dropped != s->dropped || st.flush_errors != s->flush_errors ||
        st.writable != s->writable || st.buffered != s->buffered || st.damaged_files != s->damaged_files) {
        *s = st;
        p->version++;
    }
    uint64_t v = p->version;
    pthread_mutex_unlock(&p->ver_mu);
    return v;
}

static int handle_http(void *ctx, const agent_request *req, agent_response *resp)
{
    hist_plugin *p = ctx;
    if (strcmp(req->path, "/api/v1/query_range") != 0)
        return 0;
    int status = 400;
    char *json = history_query_range_json(history_path(p->h), req->param(req, "metric"), req->param(req, "gpu"),
                                          req->param(req, "pid"), req->param(req, "start"), req->param(req, "end"),
                                          req->param(req, "step"), req->param(req, "agg"), &status);
    resp->status = status;
    resp->content_type = "application/json";
    buf_puts(&resp->body, json ? json : "{\"status\":\"error\",\"error\":\"out of memory\"}");
    free(json);
    return 1;
}

static void on_reload(void *ctx, gw_doc *cfg)
{
    hist_plugin *p = ctx;
    history_config hc;
    char path[4096];
    int enabled;
    if (history_settings_read(cfg, &hc, path, sizeof path, &enabled) != 0) {
        gw_log(GW_LOG_ERROR, "history: reload failed, keeping the previous settings", NULL);
        return;
    }
    if (strcmp(path, history_path(p->h)) != 0 || !enabled)
        gw_log(GW_LOG_WARN, "history: path and enabled take effect at the next start", "path=%s", history_path(p->h));
    history_set_limits(p->h, &hc);
}

static void release(void *ctx)
{
    hist_plugin *p = ctx;
    history_close(p->h);
    pthread_mutex_destroy(&p->ver_mu);
    free(p);
}

static int start(const pipeline_view *view, gw_doc *cfg, void **ctx)
{
    history_config hc;
    char path[4096], err[512];
    int enabled;
    if (history_settings_read(cfg, &hc, path, sizeof path, &enabled) != 0)
        return -1;
    if (!enabled) {
        gw_log(GW_LOG_INFO, "history off (history.enabled: false)", NULL);
        return 0;
    }
    hist_plugin *p = calloc(1, sizeof *p);
    if (!p)
        return -1;
    pthread_mutex_init(&p->ver_mu, NULL);
    p->h = history_open(&hc, err, sizeof err);
    if (!p->h) {
        gw_log(GW_LOG_ERROR, "history: cannot start", "err=\"%s\"", err);
        pthread_mutex_destroy(&p->ver_mu);
        free(p);
        return -1;
    }
    view->advertise(view, "db", path);
    gw_log(GW_LOG_INFO, "history recording", "path=%s flush_interval_s=%g raw_retention_s=%g rollup_retention_s=%g",
           path, hc.flush_interval_s, hc.raw_retention_s, hc.rollup_retention_s);
    *ctx = p;
    return 0;
}

static const pipeline_plugin_option options[] = {
    {"--db", GW_OPT_PATH, "path", "PATH", "history file (overrides history.path; see docs/history.md)"},
    {0},
};

const pipeline_plugin history_plugin = {
    .name = "history",
    .options = options,
    .check = check,
    .start = start,
    .on_sample = on_sample,
    .on_processes = on_processes,
    .on_tick = on_tick,
    .on_event = on_event,
    .on_reload = on_reload,
    .write_metrics = write_metrics,
    .metrics_version = metrics_version,
    .handle_http = handle_http,
    .free = release,
};
