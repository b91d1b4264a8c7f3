/* test_agent_plugins.c - the plugin contract history, alerts and diagnosis use: an agent runs in
 * this process on gpusim, and a test plugin reads the agent through its view, sees samples,
 * processes, ticks and events (its own and another plugin's), adds series to /metrics, serves its
 * own path, is told about a reload, and is stopped then freed once; a plugin may stay off. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "skip.h"
#include "lazy_curl.h"
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "agent.h"
#include "nvml_backend.h"
#include "http_server.h"

typedef struct {
    atomic_int samples, processes, ticks, reloads, stops, frees, scrapes, events, view_gpus, view_procs;
    atomic_int last_temp, named_info;
    const agent_view *view;
} counters;

static counters C;

static int start(const agent_view *view, gw_config *cfg, void **ctx)
{
    (void)cfg;
    C.view = view;
    *ctx = &C;
    return 0;
}

static void on_sample(void *ctx, int gpu, const gpu_info *info, const gpu_sample *s)
{
    counters *c = ctx;
    (void)gpu;
    if (info && info->str[M_NAME][0])
        atomic_store(&c->named_info, 1);
    atomic_fetch_add(&c->samples, 1);
    double t;
    if (sample_get(s, M_TEMP_GPU, &t))
        atomic_store(&c->last_temp, (int)t);
}
static void on_processes(void *ctx, int gpu, uint64_t t_us, const gpu_proc *p, int n)
{
    (void)gpu, (void)p, (void)n;
    assert_true(t_us > 0);
    atomic_fetch_add(&((counters *)ctx)->processes, 1);
}
/* Reads the agent through the view, as a plugin does, and posts an event every third tick. */
static void on_tick(void *ctx, uint64_t now)
{
    counters *c = ctx;
    const sample_source *src = &c->view->source;
    atomic_store(&c->view_gpus, src->gpu_count(src->ctx));
    gpu_proc procs[8];
    atomic_store(&c->view_procs, src->procs(src->ctx, 1, (int64_t)now, procs, 8));
    if (atomic_fetch_add(&c->ticks, 1) % 3 == 0) {
        agent_event ev = {.t_us = now, .gpu = 1, .kind = "test", .detail = "tick=yes"};
        c->view->post_event(c->view, &ev);
    }
}
static void on_event(void *ctx, const agent_event *ev)
{
    if (!strcmp(ev->kind, "test") && !strcmp(ev->detail, "tick=yes") && ev->gpu == 1)
        atomic_fetch_add(&((counters *)ctx)->events, 1);
}
static void on_reload(void *ctx, gw_config *cfg)
{
    assert_string_equal(doc_text(doc_path(&cfg->doc, "history.path")), "/tmp/h.db");
    atomic_fetch_add(&((counters *)ctx)->reloads, 1);
}
static int write_metrics(void *ctx, gw_buf *out)
{
    counters *c = ctx;
    buf_printf(out, "# HELP hooktest_ticks Ticks seen.\n# TYPE hooktest_ticks counter\nhooktest_ticks %d\n",
               atomic_load(&c->ticks));
    atomic_fetch_add(&c->scrapes, 1);
    return 0;
}
static int handle_http(void *ctx, const agent_request *req, agent_response *resp)
{
    (void)ctx;
    if (strcmp(req->path, "/api/v1/hooktest") != 0)
        return 0;
    const char *x = req->param(req, "x");
    buf_printf(&resp->body, "{\"x\":\"%s\"}", x ? x : "");
    return 1;
}
static void on_stop(void *ctx)
{
    counters *c = ctx;
    assert_int_equal(atomic_load(&c->frees), 0); /* every stop comes before any free */
    atomic_fetch_add(&c->stops, 1);
}
static void on_free(void *ctx)
{
    atomic_fetch_add(&((counters *)ctx)->frees, 1);
}

static const agent_plugin test_plugin = {
    .name = "test",
    .start = start,
    .on_sample = on_sample,
    .on_processes = on_processes,
    .on_tick = on_tick,
    .on_event = on_event,
    .on_reload = on_reload,
    .write_metrics = write_metrics,
    .handle_http = handle_http,
    .stop = on_stop,
    .free = on_free,
};

/* A hook with metrics_version: its text is kept by the agent until the version moves. */
typedef struct {
    atomic_int version, value, writes;
} versioned;

static int versioned_write(void *ctx, gw_buf *out)
{
    versioned *v = ctx;
    buf_printf(out,
               "# HELP hooktest_kept A value kept between scrapes.\n# TYPE hooktest_kept gauge\nhooktest_kept %d\n",
               atomic_load(&v->value));
    atomic_fetch_add(&v->writes, 1);
    return 0;
}
static uint64_t versioned_version(void *ctx)
{
    return (uint64_t)atomic_load(&((versioned *)ctx)->version);
}

static versioned V;
static int versioned_start(const agent_view *view, gw_config *cfg, void **ctx)
{
    (void)view, (void)cfg;
    *ctx = &V;
    return 0;
}
static const agent_plugin kept_plugin = {
    .name = "kept", .start = versioned_start, .write_metrics = versioned_write, .metrics_version = versioned_version};

/* A plugin that chooses to stay off: none of its functions may be called. */
static int off_start(const agent_view *view, gw_config *cfg, void **ctx)
{
    (void)view, (void)cfg;
    *ctx = NULL;
    return 0;
}
static void off_tick(void *ctx, uint64_t now)
{
    (void)ctx, (void)now;
    fail_msg("a plugin that is off was called");
}
static const agent_plugin off_plugin = {.name = "off", .start = off_start, .on_tick = off_tick};

static size_t collect(char *p, size_t sz, size_t n, void *ud)
{
    buf_append(ud, p, sz * n);
    return sz * n;
}

static long get(int port, const char *path, gw_buf *body)
{
    char url[256];
    snprintf(url, sizeof url, "http://127.0.0.1:%d%s", port, path);
    buf_clear(body);
    CURL *c = curl_easy_init();
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, body);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 5L);
    long code = 0;
    if (curl_easy_perform(c) == CURLE_OK)
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
    curl_easy_cleanup(c);
    return code;
}

static void test_plugins(void **st)
{
    (void)st;
    const char *lib = getenv("GPUSIM_LIB");
    if (!lib || access(lib, R_OK) != 0)
        skip_case("GPUSIM_LIB is not a built gpusim (ctest sets it)");
    setenv("GPUWATCH_NVML_LIB", lib, 1);
    setenv("GPUSIM_SCENARIO", GW_SOURCE_DIR "/tests/scenarios/agent_two.yaml", 1);
    gw_log_set_level(GW_LOG_WARN);
    gw_config *cfg = malloc(sizeof *cfg);
    config_init(cfg);
    assert_int_equal(config_load_string(cfg, "listen: 127.0.0.1:0\ninterval: 100ms\n", "t.yaml"), 0);
    agent_cli cli = {0};
    agent *a = calloc(1, sizeof *a);
    assert_int_equal(agent_init(a, cfg, &cli), 0);
    atomic_store(&V.value, 7);
    assert_int_equal(agent_add_plugin(a, &test_plugin, a->cfg), 0);
    assert_int_equal(agent_add_plugin(a, &kept_plugin, a->cfg), 0);
    assert_int_equal(agent_add_plugin(a, &off_plugin, a->cfg), 0);
    assert_int_equal(a->nplugins, 2);
    char err[256];
    assert_int_equal(agent_start(a, err, sizeof err), 0);
    int port = http_port(a->http);
    assert_true(port > 0);
    /* each GPU is read on its own thread; a read that ends after its round's deadline (the first,
     * with GPM's 100 ms between two GPM samples) is handed over by the next round */
    for (int i = 0; i < 200 && (atomic_load(&C.ticks) < 3 || atomic_load(&C.samples) < 6); i++)
        usleep(20000);
    assert_true(atomic_load(&C.ticks) >= 3);
    assert_true(atomic_load(&C.samples) >= 6);
    assert_true(atomic_load(&C.processes) >= 6);
    assert_int_equal(atomic_load(&C.last_temp), 61);
    assert_int_equal(atomic_load(&C.named_info), 1);
    assert_int_equal(atomic_load(&C.view_gpus), 2);
    assert_true(atomic_load(&C.view_procs) >= 1);
    for (int i = 0; i < 200 && atomic_load(&C.events) < 1; i++)
        usleep(20000);
    assert_true(atomic_load(&C.events) >= 1); /* posted on a tick, delivered on the sampler thread */
    assert_non_null(agent_ring(a));
    gpu_sample s;
    assert_int_equal(ring_latest(agent_ring(a), 1, &s), 1);

    gw_buf body;
    buf_init(&body);
    assert_int_equal(get(port, "/metrics", &body), 200);
    assert_non_null(strstr(body.data, "\nhooktest_ticks "));
    assert_non_null(strstr(body.data, "DCGM_FI_DEV_GPU_TEMP{"));
    assert_non_null(strstr(body.data, "\ngpuwatch_up 1\n"));
    assert_non_null(strstr(body.data, "\ngpuwatch_sample_age_seconds{gpu=\"1\"} "));
    assert_non_null(strstr(body.data, "\nhooktest_kept 7\n"));

    /* The unversioned hook writes on every scrape; the versioned one only when its version moved. */
    int scrapes = atomic_load(&C.scrapes), writes = atomic_load(&V.writes);
    atomic_store(&V.value, 8); /* the version has not moved: scrapes still show the kept text */
    for (int i = 0; i < 3; i++) {
        assert_int_equal(get(port, "/metrics", &body), 200);
        assert_non_null(strstr(body.data, "\nhooktest_kept 7\n"));
    }
    assert_int_equal(atomic_load(&C.scrapes), scrapes + 3);
    assert_int_equal(atomic_load(&V.writes), writes);
    atomic_fetch_add(&V.version, 1);
    assert_int_equal(get(port, "/metrics", &body), 200);
    assert_non_null(strstr(body.data, "\nhooktest_kept 8\n"));
    assert_null(strstr(body.data, "\nhooktest_kept 7\n"));
    assert_int_equal(atomic_load(&V.writes), writes + 1);
    assert_int_equal(get(port, "/metrics", &body), 200);
    assert_int_equal(atomic_load(&V.writes), writes + 1);
    assert_int_equal(get(port, "/api/v1/hooktest?x=42", &body), 200);
    assert_string_equal(body.data, "{\"x\":\"42\"}");
    assert_int_equal(get(port, "/api/v1/other", &body), 404);

    gw_config *fresh = malloc(sizeof *fresh);
    config_init(fresh);
    assert_int_equal(
        config_load_string(fresh, "listen: 127.0.0.1:0\ninterval: 200ms\nhistory:\n  path: /tmp/h.db\n", "t2.yaml"), 0);
    agent_reload(a, fresh);
    assert_int_equal(atomic_load(&C.reloads), 1);
    assert_true(agent_interval(a) == 0.2);

    agent_stop(a);
    free(a);
    assert_int_equal(atomic_load(&C.stops), 1);
    assert_int_equal(atomic_load(&C.frees), 1);
    buf_release(&body);
}

int main(void)
{
    backend_register(&nvml_backend_ops);
    curl_global_init(CURL_GLOBAL_DEFAULT);
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_plugins)};
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    curl_global_cleanup();
    return skip_result(rc);
}
