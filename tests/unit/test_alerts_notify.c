/* test_alerts_notify.c - receivers: exec (stdin JSON, environment, timeout kill), webhook against a
 * server that never answers (timeout, retries, counted failure) without delaying another receiver,
 * and the payload shapes (webhook version 4, Alertmanager v2). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "alert_json.h"
#include "notify.h"
#include "util.h"

static char *S(const char *s)
{
    return (char *)s;
}

/* One firing alert that changed state in this evaluation and is due for Alertmanager. */
static void one_alert(alert_list *l, alert_state st)
{
    static char *ln[] = {"alertname", "gpu", "severity"}, *lv[] = {"GPUHot", "3", "critical"};
    static char *an[] = {"summary"}, *av[] = {"GPU 3 at 95 C"};
    l->n = 1;
    l->v = calloc(1, sizeof *l->v);
    alert_view *v = l->v;
    v->alertname = strdup("GPUHot");
    v->nlabels = 3;
    v->label_names = calloc(4, sizeof(char *));
    v->label_values = calloc(4, sizeof(char *));
    for (int i = 0; i < 3; i++) {
        v->label_names[i] = strdup(ln[i]);
        v->label_values[i] = strdup(lv[i]);
    }
    v->nannotations = 1;
    v->annotation_names = calloc(2, sizeof(char *));
    v->annotation_values = calloc(2, sizeof(char *));
    v->annotation_names[0] = strdup(an[0]);
    v->annotation_values[0] = strdup(av[0]);
    v->state = st;
    v->active_at_us = 1700000000LL * 1000000;
    v->resolved_at_us = st == ALERT_INACTIVE ? 1700000300LL * 1000000 : 0;
    v->ends_at_us = st == ALERT_INACTIVE ? v->resolved_at_us : v->active_at_us + 240LL * 1000000;
    v->value = 95;
    v->changed = v->due = 1;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    static char buf[8192];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    return buf;
}

static void test_exec_receiver(void **st)
{
    (void)st;
    char dir[] = "/tmp/gw-notify-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char out[128], script[512];
    snprintf(out, sizeof out, "%s/got", dir);
    snprintf(script, sizeof script, "cat > '%s'; env | grep ^GPUWATCH_ALERT_ | sort >> '%s'", out, out);
    notifier *n = notifier_new();
    atomic_uint_least64_t changes = 0;
    notifier_watch(n, &changes);
    receiver_config c = {.kind = RCV_EXEC, .timeout_s = 5, .send_resolved = 1};
    snprintf(c.name, sizeof c.name, "script");
    c.argv[0] = S("sh");
    c.argv[1] = S("-c");
    c.argv[2] = script;
    assert_int_equal(notifier_add(n, &c), 0);
    alert_list l;
    one_alert(&l, ALERT_FIRING);
    notifier_dispatch(n, &l, 0);
    assert_int_equal(notifier_flush(n, 10), 0);
    const char *got = slurp(out);
    assert_non_null(got);
    assert_non_null(strstr(got, "\"status\":\"firing\""));
    assert_non_null(strstr(got, "\"labels\":{\"alertname\":\"GPUHot\",\"gpu\":\"3\",\"severity\":\"critical\"}"));
    assert_non_null(strstr(got, "\"startsAt\":\"2023-11-14T22:13:20.000Z\""));
    assert_non_null(strstr(got, "GPUWATCH_ALERT_LABEL_GPU=3\n"));
    assert_non_null(strstr(got, "GPUWATCH_ALERT_ANNOTATION_SUMMARY=GPU 3 at 95 C\n"));
    assert_non_null(strstr(got, "GPUWATCH_ALERT_STATUS=firing\n"));
    assert_non_null(strstr(got, "GPUWATCH_ALERT_VALUE=95\n"));
    unsigned long long sent, failed;
    notifier_counts(n, "script", &sent, &failed);
    assert_int_equal(sent, 1);
    assert_int_equal(failed, 0);
    assert_int_equal(atomic_load(&changes), 1); /* a cached /metrics text learns of the delivery */
    alert_list_free(&l);
    notifier_free(n);
    unlink(out);
    rmdir(dir);
}

static void test_exec_timeout_and_failure_counted(void **st)
{
    (void)st;
    notifier *n = notifier_new();
    atomic_uint_least64_t changes = 0;
    notifier_watch(n, &changes);
    receiver_config c = {.kind = RCV_EXEC, .timeout_s = 0.3};
    snprintf(c.name, sizeof c.name, "slow");
    c.argv[0] = S("sleep");
    c.argv[1] = S("30");
    assert_int_equal(notifier_add(n, &c), 0);
    receiver_config bad = {.kind = RCV_EXEC, .timeout_s = 5};
    snprintf(bad.name, sizeof bad.name, "missing");
    bad.argv[0] = S("/nonexistent/program");
    assert_int_equal(notifier_add(n, &bad), 0);
    alert_list l;
    one_alert(&l, ALERT_FIRING);
    uint64_t t0 = gw_mono_us();
    notifier_dispatch(n, &l, 0);
    assert_true(gw_mono_us() - t0 < 100000); /* dispatch never waits for a receiver */
    assert_int_equal(notifier_flush(n, 10), 0);
    assert_true(gw_mono_us() - t0 < 5000000); /* killed after 0.3 s, not 30 s */
    unsigned long long sent, failed;
    notifier_counts(n, "slow", &sent, &failed);
    assert_int_equal(failed, 1);
    notifier_counts(n, "missing", &sent, &failed);
    assert_int_equal(failed, 1);
    assert_int_equal(atomic_load(&changes), 2);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    notifier_write_metrics(n, f);
    fclose(f);
    assert_non_null(strstr(buf, "gpuwatch_notifications_failed_total{receiver=\"slow\"} 1\n"));
    free(buf);
    alert_list_free(&l);
    notifier_free(n);
}

/* A TCP port that accepts connections (listen backlog) and never answers. */
static int silent_server(int *port)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    assert_int_equal(bind(s, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(s, 16), 0);
    socklen_t len = sizeof a;
    getsockname(s, (struct sockaddr *)&a, &len);
    *port = ntohs(a.sin_port);
    return s;
}

static void test_hanging_webhook_does_not_delay_others(void **st)
{
    (void)st;
    int port;
    int srv = silent_server(&port);
    char url[64], dir[] = "/tmp/gw-notify-XXXXXX", out[128], script[512];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/hook", port);
    assert_non_null(mkdtemp(dir));
    snprintf(out, sizeof out, "%s/got", dir);
    snprintf(script, sizeof script, "cat > '%s'", out);
    notifier *n = notifier_new();
    receiver_config w = {.kind = RCV_WEBHOOK, .timeout_s = 0.5, .max_retries = 1, .backoff_s = 0.1, .send_resolved = 1};
    snprintf(w.name, sizeof w.name, "hang");
    w.urls[0] = url;
    w.nurls = 1;
    assert_int_equal(notifier_add(n, &w), 0);
    receiver_config e = {.kind = RCV_EXEC, .timeout_s = 5, .send_resolved = 1};
    snprintf(e.name, sizeof e.name, "file");
    e.argv[0] = S("sh");
    e.argv[1] = S("-c");
    e.argv[2] = script;
    assert_int_equal(notifier_add(n, &e), 0);
    alert_list l;
    one_alert(&l, ALERT_FIRING);
    uint64_t t0 = gw_mono_us();
    notifier_dispatch(n, &l, 0);
    /* The exec receiver is done long before the webhook's 2 x 0.5 s attempts are over. */
    while (!slurp(out) && gw_mono_us() - t0 < 5000000)
        gw_sleep_us(10000);
    assert_non_null(slurp(out));
    assert_true(gw_mono_us() - t0 < 500000);
    unsigned long long sent, failed;
    notifier_counts(n, "hang", &sent, &failed);
    assert_int_equal(failed, 0); /* still trying */
    assert_int_equal(notifier_flush(n, 10), 0);
    assert_true(gw_mono_us() - t0 >= 1000000); /* two attempts of 0.5 s */
    notifier_counts(n, "hang", &sent, &failed);
    assert_int_equal(sent, 0);
    assert_int_equal(failed, 1);
    alert_list_free(&l);
    notifier_free(n);
    close(srv);
    unlink(out);
    rmdir(dir);
}

static void test_payloads(void **st)
{
    (void)st;
    alert_list l;
    one_alert(&l, ALERT_INACTIVE);
    const alert_view *v = &l.v[0];
    char *hook = alert_json_webhook(&v, 1, "team");
    assert_non_null(strstr(hook, "\"version\":\"4\""));
    assert_non_null(strstr(hook, "\"status\":\"resolved\""));
    assert_non_null(strstr(hook, "\"receiver\":\"team\""));
    assert_non_null(strstr(hook, "\"groupLabels\":{\"alertname\":\"GPUHot\"}"));
    assert_non_null(
        strstr(hook, "\"commonLabels\":{\"alertname\":\"GPUHot\",\"gpu\":\"3\",\"severity\":\"critical\"}"));
    assert_non_null(strstr(hook, "\"endsAt\":\"2023-11-14T22:18:20.000Z\""));
    assert_non_null(strstr(hook, "\"fingerprint\":\""));
    free(hook);
    cJSON *am = alert_json_am(v);
    char *s = cJSON_PrintUnformatted(am);
    assert_non_null(strstr(s, "\"startsAt\":\"2023-11-14T22:13:20.000Z\",\"endsAt\":\"2023-11-14T22:18:20.000Z\""));
    free(s);
    cJSON_Delete(am);
    alert_list_free(&l);
}

int main(void)
{
    gw_log_set_level((gw_log_level)(GW_LOG_ERROR + 1));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exec_receiver),
        cmocka_unit_test(test_exec_timeout_and_failure_counted),
        cmocka_unit_test(test_hanging_webhook_does_not_delay_others),
        cmocka_unit_test(test_payloads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
