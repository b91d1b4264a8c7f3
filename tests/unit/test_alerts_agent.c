/* test_alerts_agent.c - the alerts plugin inside an in-process agent on gpusim: rules from the
 * config fire (GPU and process scope), their events reach the other plugins (a recorder standing for
 * the history), /api/v1/alerts and /metrics show them, thresholds apply on reload; and the config
 * check reports located errors. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "skip.h"
#include "lazy_curl.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "agent.h"
#include "http_server.h"
#include "nvml_backend.h"

extern const agent_plugin alerts_plugin;

typedef struct {
    pthread_mutex_t mu;
    int n;
    int gpu[16];
    char detail[16][256];
} events;

static events EV = {.mu = PTHREAD_MUTEX_INITIALIZER};

/* A plugin that records the events it is handed, as the history does. */
static int recorder_start(const agent_view *view, gw_config *cfg, void **ctx)
{
    (void)view, (void)cfg;
    *ctx = &EV;
    return 0;
}
static void recorder_event(void *ctx, const agent_event *ev)
{
    events *e = ctx;
    assert_string_equal(ev->kind, "alert");
    pthread_mutex_lock(&e->mu);
    if (e->n < 16) {
        e->gpu[e->n] = ev->gpu;
        snprintf(e->detail[e->n], sizeof e->detail[0], "%s", ev->detail);
        e->n++;
    }
    pthread_mutex_unlock(&e->mu);
}
static const agent_plugin recorder_plugin = {.name = "recorder", .start = recorder_start, .on_event = recorder_event};

static int count(events *e)
{
    pthread_mutex_lock(&e->mu);
    int n = e->n;
    pthread_mutex_unlock(&e->mu);
    return n;
}

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

static const char *RULES = "groups:\n"
                           "  - name: t\n"
                           "    interval: 100ms\n"
                           "    rules:\n"
                           "      - alert: Warm\n"
                           "        condition: {metric: temperature.gpu, op: \">\", threshold: 60}\n"
                           "        labels: {severity: info}\n"
                           "        annotations: {summary: \"GPU {{ $labels.gpu }} at {{ $value }}\"}\n"
                           "      - alert: BigProcess\n"
                           "        scope: process\n"
                           "        gpus: [1]\n"
                           "        condition: {metric: process.memory, op: \">\", threshold: 1000}\n";

static gw_config *config_with(const char *rules_path, const char *extra)
{
    char text[1024];
    snprintf(text, sizeof text,
             "listen: 127.0.0.1:0\ninterval: 100ms\nalerts:\n  default_rules: false\n  rule_files: [%s]\n%s",
             rules_path, extra);
    gw_config *cfg = malloc(sizeof *cfg);
    config_init(cfg);
    assert_int_equal(config_load_string(cfg, text, "t.yaml"), 0);
    alerts_plugin.check(cfg);
    for (int i = 0; i < cfg->errs.n; i++)
        fprintf(stderr, "%s\n", cfg->errs.msg[i]);
    assert_int_equal(cfg->errs.n, 0);
    return cfg;
}

static void test_plugin_in_agent(void **st)
{
    (void)st;
    const char *lib = getenv("GPUSIM_LIB");
    if (!lib || access(lib, R_OK) != 0)
        skip_case("GPUSIM_LIB is not a built gpusim (ctest sets it)");
    setenv("GPUWATCH_NVML_LIB", lib, 1);
    setenv("GPUSIM_SCENARIO", GW_SOURCE_DIR "/tests/scenarios/agent_two.yaml", 1); /* 61 C, pid 4242 2 GiB */
    gw_log_set_level(GW_LOG_ERROR);
    char rules[] = "/tmp/gw-alerts-rules-XXXXXX";
    int fd = mkstemp(rules);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, RULES, strlen(RULES)), (ssize_t)strlen(RULES));
    close(fd);

    agent_cli cli = {0};
    agent *a = calloc(1, sizeof *a);
    assert_int_equal(agent_init(a, config_with(rules, ""), &cli), 0);
    assert_int_equal(agent_add_plugin(a, &recorder_plugin, a->cfg), 0);
    assert_int_equal(agent_add_plugin(a, &alerts_plugin, a->cfg), 0);
    events *ev = &EV;
    char err[256];
    assert_int_equal(agent_start(a, err, sizeof err), 0);
    int port = http_port(a->http);
    for (int i = 0; i < 250 && count(ev) < 3; i++)
        usleep(20000);
    assert_int_equal(count(ev), 3); /* Warm on gpu 0 and 1, BigProcess on gpu 1 */
    int warm = 0, big = 0;
    for (int i = 0; i < 3; i++) {
        if (strstr(ev->detail[i], "alertname=Warm state=firing severity=info value=61 summary=\"GPU "))
            warm++;
        if (strstr(ev->detail[i], "alertname=BigProcess state=firing") && ev->gpu[i] == 1)
            big++;
    }
    assert_int_equal(warm, 2);
    assert_int_equal(big, 1);

    gw_buf body;
    buf_init(&body);
    assert_int_equal(get(port, "/api/v1/alerts", &body), 200);
    assert_non_null(strstr(body.data, "\"alertname\":\"BigProcess\""));
    assert_non_null(strstr(body.data, "\"command\":\"python3\""));
    assert_non_null(strstr(body.data, "\"pid\":\"4242\""));
    assert_int_equal(get(port, "/metrics", &body), 200);
    assert_non_null(
        strstr(body.data, "gpuwatch_alert{alertname=\"Warm\",gpu=\"1\",severity=\"info\",alertstate=\"firing\"} 1\n"));
    assert_non_null(strstr(
        body.data,
        "gpuwatch_alert{alertname=\"BigProcess\",gpu=\"1\",severity=\"\",pid=\"4242\",alertstate=\"firing\"} 1\n"));

    /* A reload with a higher threshold: the engine is rebuilt and Warm no longer holds. */
    agent_reload(a, config_with(rules, "  thresholds: {Warm: 70}\n"));
    usleep(500000);
    assert_int_equal(get(port, "/api/v1/alerts", &body), 200);
    assert_null(strstr(body.data, "\"alertname\":\"Warm\""));
    assert_non_null(strstr(body.data, "\"alertname\":\"BigProcess\""));

    agent_stop(a);
    free(a);
    buf_release(&body);
    unlink(rules);
}

static int has_error(gw_config *c, const char *prefix, const char *text)
{
    for (int i = 0; i < c->errs.n; i++)
        if (strncmp(c->errs.msg[i], prefix, strlen(prefix)) == 0 && strstr(c->errs.msg[i], text))
            return 1;
    return 0;
}

static void test_config_check(void **st)
{
    (void)st;
    char rules[] = "/tmp/gw-alerts-bad-XXXXXX";
    int fd = mkstemp(rules);
    const char *bad =
        "groups:\n- name: g\n  rules:\n  - alert: X\n    condition: {metric: nope, op: \">\", threshold: 1}\n";
    assert_int_equal(write(fd, bad, strlen(bad)), (ssize_t)strlen(bad));
    close(fd);
    char text[1024];
    snprintf(text, sizeof text,
             "alerts:\n"                                                /* 1 */
             "  colour: blue\n"                                         /* 2 */
             "  rule_files: [%s, /nonexistent/rules.yaml]\n"            /* 3 */
             "  receivers:\n"                                           /* 4 */
             "    - {name: a, type: pager}\n"                           /* 5 */
             "    - {name: b, type: exec, command: \"notify --all\"}\n" /* 6 */
             "    - {name: c, type: webhook, url: ftp://x}\n"           /* 7 */
             "  thresholds: {GPUTemperatureWarning: hot}\n",            /* 8 */
             rules);
    gw_config cfg;
    config_init(&cfg);
    assert_int_equal(config_load_string(&cfg, text, "c.yaml"), 0);
    alerts_plugin.check(&cfg);
    assert_true(has_error(&cfg, "c.yaml:2:3:", "unknown key 'colour' in alerts"));
    assert_true(has_error(&cfg, "c.yaml:3:", ":5:25: metric: unknown metric 'nope'"));
    assert_true(has_error(&cfg, "c.yaml:3:", "no file '/nonexistent/rules.yaml'"));
    assert_true(has_error(&cfg, "c.yaml:5:", "'type' must be exec, webhook or alertmanager"));
    assert_true(has_error(&cfg, "c.yaml:6:", "never a shell string"));
    assert_true(has_error(&cfg, "c.yaml:7:", "'ftp://x' is not an http(s) URL"));
    assert_true(has_error(&cfg, "c.yaml:8:", "alerts.thresholds.GPUTemperatureWarning: expected a number, got 'hot'"));
    config_free(&cfg);
    unlink(rules);
}

int main(void)
{
    backend_register(&nvml_backend_ops);
    curl_global_init(CURL_GLOBAL_DEFAULT);
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_plugin_in_agent), cmocka_unit_test(test_config_check)};
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    curl_global_cleanup();
    return skip_result(rc);
}
