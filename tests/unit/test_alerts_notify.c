/* test_alerts_notify.c - receivers: exec (stdin JSON, environment, timeout kill), webhook against a
 * server that never answers (timeout, retries, counted failure) without delaying another receiver,
 * a full queue (the oldest dropped, counted), and the payload shapes (webhook version 4,
 * Alertmanager v2). No limit on how fast anything happens: a receiver that must still be busy is
 * held by the test (a gate file it waits for, a server that never answers until the test closes it). */
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
#include <sys/stat.h>
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

/* An exec receiver that holds each notification until the file gate exists (started is made when
 * the first one arrives), so that the test knows it is busy, however slow the machine. */
static void gated_receiver(receiver_config *c, const char *name, char *script, size_t len, const char *dir)
{
    snprintf(script, len, "cat > /dev/null; touch '%s/started'; while [ ! -e '%s/gate' ]; do sleep 0.02; done", dir,
             dir);
    snprintf(c->name, sizeof c->name, "%s", name);
    c->kind = RCV_EXEC;
    c->timeout_s = 600;
    c->argv[0] = S("sh");
    c->argv[1] = S("-c");
    c->argv[2] = script;
}

static int exists_in(const char *dir, const char *name)
{
    char path[256];
    struct stat sb;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return stat(path, &sb) == 0;
}

/* Polls until dir/name exists, for at most 60 s. */
static int wait_file(const char *dir, const char *name)
{
    for (uint64_t end = gw_mono_us() + 60000000; !exists_in(dir, name) && gw_mono_us() < end;)
        gw_sleep_us(10000);
    return exists_in(dir, name);
}

static void open_gate(const char *dir)
{
    char path[256];
    snprintf(path, sizeof path, "%s/gate", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fclose(f);
}

static void remove_gate_dir(const char *dir)
{
    char path[256];
    snprintf(path, sizeof path, "%s/gate", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/started", dir);
    unlink(path);
    rmdir(dir);
}

static unsigned long long metric_value(notifier *n, const char *series)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    notifier_write_metrics(n, f);
    fclose(f);
    const char *at = strstr(buf, series);
    unsigned long long v = at ? strtoull(at + strlen(series), NULL, 10) : ~0ull;
    free(buf);
    return v;
}

/* Dispatch never waits for a receiver: it returns while the receiver is held busy by the test. */
static void test_dispatch_never_waits(void **st)
{
    (void)st;
    char dir[] = "/tmp/gw-notify-XXXXXX", script[512];
    assert_non_null(mkdtemp(dir));
    notifier *n = notifier_new();
    receiver_config c = {0};
    gated_receiver(&c, "gated", script, sizeof script, dir);
    assert_int_equal(notifier_add(n, &c), 0);
    alert_list l;
    one_alert(&l, ALERT_FIRING);
    notifier_dispatch(n, &l, 0); /* returns although the receiver cannot finish before the gate opens */
    assert_true(wait_file(dir, "started"));
    unsigned long long sent, failed;
    notifier_counts(n, "gated", &sent, &failed);
    assert_true(sent == 0 && failed == 0);
    open_gate(dir);
    assert_int_equal(notifier_flush(n, 60), 0);
    notifier_counts(n, "gated", &sent, &failed);
    assert_true(sent == 1 && failed == 0);
    alert_list_free(&l);
    notifier_free(n);
    remove_gate_dir(dir);
}

/* A full queue drops its oldest notification and counts it (dropped, and failed), for every
 * queue size: the receiver is held on the first notification while more are dispatched. */
static void test_full_queue_counts_drops(void **st)
{
    (void)st;
    for (int size = 1; size <= 4; size++) {
        for (int more = size; more <= size + 3; more++) {
            char dir[] = "/tmp/gw-notify-XXXXXX", script[512], series[128];
            assert_non_null(mkdtemp(dir));
            notifier *n = notifier_new();
            atomic_uint_least64_t changes = 0;
            notifier_watch(n, &changes);
            receiver_config c = {.queue_size = size};
            gated_receiver(&c, "gated", script, sizeof script, dir);
            assert_int_equal(notifier_add(n, &c), 0);
            alert_list l;
            one_alert(&l, ALERT_FIRING);
            notifier_dispatch(n, &l, 0);
            assert_true(wait_file(dir, "started")); /* the first is taken: the queue is empty again */
            for (int i = 0; i < more; i++)
                notifier_dispatch(n, &l, 0);
            unsigned long long dropped = (unsigned long long)(more - size);
            snprintf(series, sizeof series, "gpuwatch_notifications_dropped_total{receiver=\"gated\"} ");
            assert_int_equal(metric_value(n, series), dropped);
            unsigned long long sent, failed;
            notifier_counts(n, "gated", &sent, &failed);
            assert_int_equal(sent, 0);
            assert_int_equal(failed, dropped); /* a dropped notification is a failed one */
            open_gate(dir);
            assert_int_equal(notifier_flush(n, 60), 0);
            notifier_counts(n, "gated", &sent, &failed);
            assert_int_equal(sent, 1 + (unsigned long long)size); /* the first and the queue's newest */
            assert_int_equal(failed, dropped);
            assert_int_equal(metric_value(n, series), dropped);
            assert_true(atomic_load(&changes) >= 1 + (unsigned long long)size);
            alert_list_free(&l);
            notifier_free(n);
            remove_gate_dir(dir);
        }
    }
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
    assert_int_equal(notifier_flush(n, 60), 0);
    assert_true(gw_mono_us() - t0 < 25000000); /* killed after its 0.3 s, well before the sleep's 30 s */
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

/* A webhook whose server never answers holds its worker; another receiver delivers meanwhile. The
 * webhook's attempt can only end by its 600 s timeout or by the test closing the server, so that
 * the other's delivery while it is still trying is proof, however slow the machine. */
static void test_hanging_webhook_does_not_delay_others(void **st)
{
    (void)st;
    int port;
    int srv = silent_server(&port);
    char url[64], dir[] = "/tmp/gw-notify-XXXXXX", out[128], script[512];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/hook", port);
    assert_non_null(mkdtemp(dir));
    snprintf(out, sizeof out, "%s/got", dir);
    snprintf(script, sizeof script, "cat > '%s.tmp' && mv '%s.tmp' '%s'", out, out, out);
    notifier *n = notifier_new();
    receiver_config w = {.kind = RCV_WEBHOOK, .timeout_s = 600, .max_retries = 0, .send_resolved = 1};
    snprintf(w.name, sizeof w.name, "hang");
    w.urls[0] = url;
    w.nurls = 1;
    assert_int_equal(notifier_add(n, &w), 0);
    receiver_config e = {.kind = RCV_EXEC, .timeout_s = 60, .send_resolved = 1};
    snprintf(e.name, sizeof e.name, "file");
    e.argv[0] = S("sh");
    e.argv[1] = S("-c");
    e.argv[2] = script;
    assert_int_equal(notifier_add(n, &e), 0);
    alert_list l;
    one_alert(&l, ALERT_FIRING);
    notifier_dispatch(n, &l, 0);
    assert_true(wait_file(dir, "got"));
    assert_non_null(strstr(slurp(out), "GPUHot"));
    unsigned long long sent, failed;
    notifier_counts(n, "hang", &sent, &failed);
    assert_true(sent == 0 && failed == 0); /* still in its attempt */
    close(srv);                            /* the connection is reset: the attempt fails now */
    assert_int_equal(notifier_flush(n, 60), 0);
    notifier_counts(n, "hang", &sent, &failed);
    assert_true(sent == 0 && failed == 1);
    notifier_counts(n, "file", &sent, &failed);
    assert_true(sent == 1 && failed == 0);
    alert_list_free(&l);
    notifier_free(n);
    unlink(out);
    rmdir(dir);
}

/* Each attempt waits out its timeout, retries follow: two attempts of 0.5 s take at least 1 s (a
 * lower bound, which a slow machine only makes longer). */
static void test_webhook_attempts_time_out(void **st)
{
    (void)st;
    int port;
    int srv = silent_server(&port);
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/hook", port);
    notifier *n = notifier_new();
    receiver_config w = {.kind = RCV_WEBHOOK, .timeout_s = 0.5, .max_retries = 1, .backoff_s = 0.1, .send_resolved = 1};
    snprintf(w.name, sizeof w.name, "hang");
    w.urls[0] = url;
    w.nurls = 1;
    assert_int_equal(notifier_add(n, &w), 0);
    alert_list l;
    one_alert(&l, ALERT_FIRING);
    uint64_t t0 = gw_mono_us();
    notifier_dispatch(n, &l, 0);
    assert_int_equal(notifier_flush(n, 60), 0);
    assert_true(gw_mono_us() - t0 >= 1000000);
    unsigned long long sent, failed;
    notifier_counts(n, "hang", &sent, &failed);
    assert_int_equal(sent, 0);
    assert_int_equal(failed, 1);
    alert_list_free(&l);
    notifier_free(n);
    close(srv);
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
        cmocka_unit_test(test_dispatch_never_waits),
        cmocka_unit_test(test_full_queue_counts_drops),
        cmocka_unit_test(test_exec_timeout_and_failure_counted),
        cmocka_unit_test(test_hanging_webhook_does_not_delay_others),
        cmocka_unit_test(test_webhook_attempts_time_out),
        cmocka_unit_test(test_payloads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
