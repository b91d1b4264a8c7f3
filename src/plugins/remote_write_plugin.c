/* remote_write_plugin.c - Prometheus remote write as an agent plugin: reads the `remote_write:`
 * section, hands every sample and process list to the engine (src/remote_write, remote_write.h),
 * resends from the history file the history plugin advertises, and adds gpuwatch_remote_write_*
 * series to /metrics. Off when the section names no endpoint. */
#include <stdlib.h>
#include <string.h>
#include "config.h"
#include "plugin.h"
#include "remote_write.h"
#include "util.h"

typedef struct rw_plugin {
    rw_settings s;
    rw_engine *e;
    const pipeline_view *view;
} rw_plugin;

/* Its section, over the exporter's choice of series (the agent's load checks the exporter:); expo
 * (may be NULL) gets the exporter's process limit and metrics, so that it sends what /metrics shows. */
static int settings_read(gw_doc *cfg, rw_settings *s, expo_options *expo)
{
    gw_config ex;
    config_read_exporter(cfg, &ex);
    int rc = rw_settings_read(cfg, ex.series, s);
    if (expo) {
        expo_options_default(expo);
        expo->process_limit = ex.process_series_limit;
        for (int i = 0; i < ex.nmetrics; i++)
            expo_enable(expo, ex.metrics[i]);
    }
    config_free(&ex);
    return rc;
}

static void check(gw_doc *cfg)
{
    rw_settings s;
    if (settings_read(cfg, &s, NULL) == 0)
        rw_settings_free(&s);
}

static int simulated(void *ctx)
{
    const pipeline_view *v = ctx;
    const char *f = v->fact(v, "simulated");
    return f && strcmp(f, "1") == 0;
}

static int start(const pipeline_view *view, gw_doc *cfg, void **ctx)
{
    rw_plugin *p = calloc(1, sizeof *p);
    if (!p)
        return -1;
    expo_options expo;
    if (settings_read(cfg, &p->s, &expo) != 0) {
        free(p);
        return -1;
    }
    if (p->s.nendpoints == 0) {
        rw_settings_free(&p->s);
        free(p);
        return 0;
    }
    p->view = view;
    rw_engine_config c = {.settings = &p->s,
                          .hostname = view->hostname,
                          .db = view->fact(view, "db"),
                          .simulated = simulated,
                          .simulated_ctx = (void *)view,
                          .expo = expo};
    char err[512];
    p->e = rw_engine_start(&c, err, sizeof err);
    if (!p->e) {
        gw_log(GW_LOG_ERROR, "remote write: cannot start", "err=\"%s\"", err);
        rw_settings_free(&p->s);
        free(p);
        return -1;
    }
    for (int i = 0; i < p->s.nendpoints; i++)
        gw_log(GW_LOG_INFO, "remote write", "remote_name=%s url=%s resend_from_history=%d", p->s.ep[i].name,
               p->s.ep[i].url, c.db != NULL);
    *ctx = p;
    return 0;
}

static void on_sample(void *ctx, int gpu, const gpu_info *info, const gpu_sample *s)
{
    rw_engine_sample(((rw_plugin *)ctx)->e, gpu, info, s);
}

static void on_processes(void *ctx, int gpu, uint64_t t_us, const gpu_proc *procs, int n)
{
    (void)t_us;
    rw_engine_processes(((rw_plugin *)ctx)->e, gpu, procs, n);
}

static void on_tick(void *ctx, uint64_t now_us)
{
    (void)now_us;
    rw_engine_round(((rw_plugin *)ctx)->e);
}

static int write_metrics(void *ctx, gw_buf *out)
{
    rw_engine_metrics(((rw_plugin *)ctx)->e, out);
    return 0;
}

/* The endpoints are read at start: a changed section is used from the next start. */
static void on_reload(void *ctx, gw_doc *cfg)
{
    rw_plugin *p = ctx;
    rw_settings s;
    if (settings_read(cfg, &s, NULL) != 0)
        return;
    int same = s.nendpoints == p->s.nendpoints && s.series == p->s.series;
    for (int i = 0; same && i < s.nendpoints; i++)
        same = strcmp(s.ep[i].url, p->s.ep[i].url) == 0 && strcmp(s.ep[i].name, p->s.ep[i].name) == 0;
    if (!same)
        gw_log(GW_LOG_WARN, "remote write: the remote_write section changed; it applies at the next start", NULL);
    rw_settings_free(&s);
}

static void stop(void *ctx)
{
    rw_engine_stop(((rw_plugin *)ctx)->e);
}

static void release(void *ctx)
{
    rw_plugin *p = ctx;
    rw_engine_free(p->e);
    rw_settings_free(&p->s);
    free(p);
}

const pipeline_plugin remote_write_plugin = {
    .name = "remote_write",
    .check = check,
    .start = start,
    .on_sample = on_sample,
    .on_processes = on_processes,
    .on_tick = on_tick,
    .on_reload = on_reload,
    .write_metrics = write_metrics,
    .stop = stop,
    .free = release,
};
