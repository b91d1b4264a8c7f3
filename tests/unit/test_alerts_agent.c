/* test_alerts_agent.c - the alerts plugin inside an in-process agent on gpusim: rules from the
 * config fire (GPU and process scope), their events and the engine's states reach the other plugins
 * (a recorder standing for the history), /api/v1/alerts and /metrics show them, thresholds apply on
 * reload (the changed rule's alerts resolve once, the other rule's go on); and the config check
 * reports located errors. */
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
#include <cjson/cJSON.h>
#include "agent.h"
#include "http_server.h"
#include "nvml_backend.h"

extern const agent_plugin alerts_plugin;

typedef struct {
    pthread_mutex_t mu;
    int n;
    int gpu[16];
    char detail[16][256];
    int states;       /* alert_states events */
    int state_alerts; /* alerts in the latest one */
    int state_firing; /* of which firing */
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
    pthread_mutex_lock(&e->mu);
    if (ev->alerts) {
        assert_string_equal(ev->kind, "alert_states");
        e->states++;
        e->state_alerts = ev->alerts->nalerts;
        e->state_firing = 0;
        for (int i = 0; i < ev->alerts->nalerts; i++)
            e->state_firing += ev->alerts->alerts[i].firing;
        pthread_mutex_unlock(&e->mu);
        return;
    }
    assert_string_equal(ev->kind, "alert");
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

static int firing_states(events *e)
{
    pthread_mutex_lock(&e->mu);
    int n = e->state_firing;
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

/* How many alerts named name /api/v1/alerts's json lists under data.LIST ("alerts" or "resolved"),
 * the last one's activeAt in out. */
static int active_at(const char *json, const char *list, const char *name, char *out, size_t n)
{
    cJSON *root = cJSON_Parse(json);
    const cJSON *arr = cJSON_GetObjectItem(cJSON_GetObjectItem(root, "data"), list), *a;
    int found = 0;
    cJSON_ArrayForEach(a, arr)
    {
        const char *an = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(a, "labels"), "alertname"));
        if (!an || strcmp(an, name) != 0)
            continue;
        found++;
        snprintf(out, n, "%s", cJSON_GetStringValue(cJSON_GetObjectItem(a, "activeAt")));
    }
    cJSON_Delete(root);
    return found;
}

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
    for (int i = 0; i < 250 && firing_states(ev) < 3; i++)
        usleep(20000);
    assert_int_equal(firing_states(ev), 3); /* the states for the history: the three firing alerts */

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

    assert_int_equal(get(port, "/api/v1/alerts", &body), 200);
    char big_since[64];
    assert_int_equal(active_at(body.data, "alerts", "BigProcess", big_since, sizeof big_since), 1);

    /* A reload with a higher threshold: Warm's rule changed, its two alerts resolve once (and no
     * longer hold); BigProcess's did not, its alert goes on with its active time. */
    agent_reload(a, config_with(rules, "  thresholds: {Warm: 70}\n"));
    for (int i = 0; i < 250 && count(ev) < 5; i++)
        usleep(20000);
    assert_int_equal(count(ev), 5);
    int resolved = 0;
    for (int i = 3; i < 5; i++)
        resolved += strstr(ev->detail[i], "alertname=Warm state=resolved") != NULL;
    assert_int_equal(resolved, 2);
    for (int i = 0; i < 250 && firing_states(ev) != 1; i++)
        usleep(20000);
    assert_int_equal(firing_states(ev), 1);
    assert_int_equal(get(port, "/api/v1/alerts", &body), 200);
    char t[64];
    assert_int_equal(active_at(body.data, "alerts", "Warm", t, sizeof t), 0);
    assert_int_equal(active_at(body.data, "resolved", "Warm", t, sizeof t), 2);
    assert_int_equal(active_at(body.data, "alerts", "BigProcess", t, sizeof t), 1);
    assert_string_equal(t, big_since);
    assert_int_equal(count(ev), 5); /* BigProcess was not sent again */

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
             "  thresholds: {GPUTemperatureWarning: hot}\n"             /* 8 */
             "  for_outage_tolerance: 31d\n"                            /* 9 */
             "  for_grace_period: soon\n",                              /* 10 */
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
    assert_true(has_error(&cfg, "c.yaml:9:", "alerts.for_outage_tolerance: between 0 and 30d"));
    assert_true(has_error(&cfg, "c.yaml:10:", "alerts.for_grace_period"));
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
