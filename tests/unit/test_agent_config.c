/* test_agent_config.c - the agent's YAML config: defaults, good files, errors with line numbers,
 * top-level keys nobody owns, and the document the plugins read their sections from. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "config.h"
#include "exposition.h"
#include "agent_commands.h"

static int has_error(const gw_config *c, const char *needle)
{
    for (int i = 0; i < c->errs.n; i++)
        if (strstr(c->errs.msg[i], needle))
            return 1;
    return 0;
}

static void test_defaults(void **st)
{
    (void)st;
    gw_config c;
    config_init(&c);
    assert_string_equal(c.listen, ":9400");
    assert_true(c.interval == 1.0);
    assert_true(c.ring_duration == 900);
    assert_int_equal(c.series, EXPO_DCGM | EXPO_NATIVE);
    assert_int_equal(c.process_series_limit, 100);
    assert_int_equal(config_load_file(&c, "/nonexistent/gpuwatch.yaml", 0), 0);
    config_free(&c);
    config_init(&c);
    assert_int_equal(config_load_file(&c, "/nonexistent/gpuwatch.yaml", 1), 1);
    assert_true(has_error(&c, "/nonexistent/gpuwatch.yaml: cannot read: No such file"));
    config_free(&c);
}

static void test_good(void **st)
{
    (void)st;
    const char *text = "listen: 127.0.0.1:9500\n"
                       "interval: 250ms\n"
                       "ring_duration: 5m\n"
                       "exporter:\n"
                       "  series: dcgm\n"
                       "  metrics: [DCGM_FI_DEV_GPU_TEMP, memory.used, gpuwatch_power_draw_watts]\n"
                       "  process_series_limit: 7\n"
                       "tls:\n"
                       "  cert_file: /etc/c.pem\n"
                       "  key_file: /etc/k.pem\n"
                       "basic_auth_users:\n"
                       "  alice: $2y$10$abcdefghijklmnopqrstuu0123456789012345678901234567890\n"
                       "log:\n"
                       "  level: debug\n"
                       "history:\n"
                       "  path: /var/lib/gpuwatch/history.db\n"
                       "  retention: 30d\n"
                       "  enabled: yes\n"
                       "alerts:\n"
                       "  rules: [a.yaml]\n";
    gw_config c;
    config_init(&c);
    assert_int_equal(config_load_string(&c, text, "good.yaml"), 0);
    assert_string_equal(c.listen, "127.0.0.1:9500");
    assert_true(c.interval == 0.25);
    assert_true(c.ring_duration == 300);
    assert_int_equal(c.series, EXPO_DCGM);
    assert_int_equal(c.nmetrics, 3);
    assert_string_equal(c.metrics[1], "memory.used");
    assert_int_equal(c.process_series_limit, 7);
    assert_string_equal(c.tls_cert, "/etc/c.pem");
    assert_int_equal(c.nusers, 1);
    assert_string_equal(c.users[0].name, "alice");
    assert_int_equal(c.log_level, GW_LOG_DEBUG);
    /* what the plugins read: their section of the document, their problems into the same list */
    gw_doc *d = &c.doc;
    doc_node *hist = doc_path(d, "history");
    const char *path = NULL;
    assert_int_equal(doc_opt_string(d, hist, "history", "path", &path), 0);
    assert_string_equal(path, "/var/lib/gpuwatch/history.db");
    const char *none = "default";
    assert_int_equal(doc_opt_string(d, hist, "history", "nothing", &none), 0);
    assert_string_equal(none, "default");
    double secs = 0;
    assert_int_equal(doc_opt_duration(d, hist, "history", "retention", &secs), 0);
    assert_true(secs == 30 * 86400);
    int b = 0;
    assert_int_equal(doc_opt_bool(d, hist, "history", "enabled", &b), 0);
    assert_int_equal(b, 1);
    long l = 42;
    assert_int_equal(doc_opt_int(d, hist, "history", "max", 0, 100, &l), 0);
    assert_int_equal(l, 42);
    assert_true(doc_is_seq(doc_path(d, "alerts.rules")));
    assert_int_equal(doc_map_len(hist), 3);
    /* a type error in a section is reported with its line */
    assert_int_equal(doc_opt_int(d, hist, "history", "path", 0, 100, &l), -1);
    assert_true(has_error(&c, "good.yaml:16:9: history.path"));
    /* plugins own their sections: only a key nobody owns is an error */
    const char *const sections[] = {"history", "alerts", NULL};
    assert_int_equal(config_check_keys(&c, sections), 1);
    config_free(&c);
}

static void test_errors(void **st)
{
    (void)st;
    const char *text = "listen: nonsense\n"          /* 1 */
                       "interval: 10ms\n"            /* 2 */
                       "bogus: 1\n"                  /* 3 */
                       "exporter:\n"                 /* 4 */
                       "  series: all\n"             /* 5 */
                       "  metrics: [NOT_A_METRIC]\n" /* 6 */
                       "  color: red\n"              /* 7 */
                       "tls:\n"                      /* 8 */
                       "  cert_file: /x.pem\n"       /* 9 */
                       "basic_auth_users:\n"         /* 10 */
                       "  bob: plaintext\n"          /* 11 */
                       "log: {level: loud}\n"        /* 12 */
                       "interval: 2s\n";             /* 13 */
    gw_config c;
    config_init(&c);
    config_load_string(&c, text, "bad.yaml");
    int n = plugins_check((const pipeline_plugin *const[]){NULL}, &c);
    assert_true(n >= 10);
    assert_true(has_error(&c, "bad.yaml:1:9: listen"));
    assert_true(has_error(&c, "bad.yaml:2:11: interval"));
    assert_true(has_error(&c, "bad.yaml:3:1: unknown key 'bogus' at the top level"));
    assert_true(has_error(&c, "bad.yaml:5:11: exporter.series"));
    assert_true(has_error(&c, "bad.yaml:6:13: exporter.metrics: unknown metric 'NOT_A_METRIC'"));
    assert_true(has_error(&c, "bad.yaml:7:3: unknown key 'color' in exporter"));
    assert_true(has_error(&c, "bad.yaml:9:3: tls: cert_file and key_file go together"));
    assert_true(has_error(&c, "bad.yaml:11:8: basic_auth_users.bob: not a bcrypt hash"));
    assert_true(has_error(&c, "bad.yaml:12:14: log.level"));
    assert_true(has_error(&c, "bad.yaml:13:1: duplicate key 'interval' in the top level"));
    config_free(&c);
}

/* http: limits and timeouts; tls: Prometheus' web-config names into a GnuTLS priority string. */
static void test_http_and_tls(void **st)
{
    (void)st;
    gw_config c;
    config_init(&c);
    assert_int_equal(c.http_max_connections, 1000);
    assert_int_equal(c.http_max_connections_per_ip, 100);
    assert_true(c.http_request_timeout == 10 && c.http_idle_timeout == 10);
    assert_int_equal(c.tls.min_version, TLS_V12);
    char prio[512];
    assert_int_equal(tls_priority(&c.tls, prio, sizeof prio), 0);
    assert_string_equal(prio, "NORMAL:-VERS-ALL:-CIPHER-ALL:-MAC-ALL:-KX-ALL:-GROUP-ALL:+VERS-TLS1.3:+VERS-TLS1.2:"
                              "+AES-128-GCM:+AES-256-GCM:+CHACHA20-POLY1305:+AEAD:+ECDHE-ECDSA:+ECDHE-RSA:"
                              "+GROUP-X25519:+GROUP-SECP256R1:+GROUP-SECP384R1:%SERVER_PRECEDENCE");
    assert_int_equal(tls_priority(&c.tls, prio, 40), -1); /* too small: refused, not cut */
    config_free(&c);
    config_init(&c);
    const char *text = "http:\n"
                       "  max_connections: 200\n"
                       "  max_connections_per_ip: 20\n"
                       "  request_timeout: 3s\n"
                       "  idle_timeout: 1m\n"
                       "tls:\n"
                       "  cert_file: /c.pem\n"
                       "  key_file: /k.pem\n"
                       "  min_version: TLS12\n"
                       "  max_version: TLS12\n"
                       "  cipher_suites: [TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384, TLS_RSA_WITH_AES_128_CBC_SHA]\n"
                       "  curve_preferences: [CurveP521]\n"
                       "  prefer_server_cipher_suites: false\n";
    assert_int_equal(config_load_string(&c, text, "t.yaml"), 0);
    assert_int_equal(c.http_max_connections, 200);
    assert_int_equal(c.http_max_connections_per_ip, 20);
    assert_true(c.http_request_timeout == 3 && c.http_idle_timeout == 60);
    assert_int_equal(tls_priority(&c.tls, prio, sizeof prio), 0);
    assert_string_equal(prio, "NORMAL:-VERS-ALL:-CIPHER-ALL:-MAC-ALL:-KX-ALL:-GROUP-ALL:+VERS-TLS1.2:+AES-256-GCM:"
                              "+AES-128-CBC:+AEAD:+SHA1:+ECDHE-RSA:+RSA:+GROUP-SECP521R1");
    config_free(&c);
    config_init(&c);
    text = "http:\n"
           "  max_connections: 5\n"
           "  request_timeout: 0s\n"
           "  backlog: 3\n"
           "tls:\n"
           "  min_version: SSL3\n"
           "  cipher_suites: [TLS_RSA_WITH_3DES_EDE_CBC_SHA, NOPE]\n"
           "  curve_preferences: []\n";
    config_load_string(&c, text, "bad.yaml");
    assert_true(has_error(&c, "bad.yaml:2:20: http.max_connections"));
    assert_true(has_error(&c, "bad.yaml:3:20: http.request_timeout: must be between 1s and 10m"));
    assert_true(has_error(&c, "bad.yaml:4:3: unknown key 'backlog' in http"));
    assert_true(has_error(&c, "bad.yaml:6:16: tls.min_version: 'SSL3' is not one of TLS10, TLS11, TLS12, TLS13"));
    assert_true(has_error(&c, "bad.yaml:7:19: tls.cipher_suites: 'TLS_RSA_WITH_3DES_EDE_CBC_SHA' is broken"));
    assert_true(has_error(&c, "bad.yaml:7:50: tls.cipher_suites: unknown name 'NOPE'"));
    assert_true(has_error(&c, "bad.yaml:8:22: tls.curve_preferences: an empty list offers nothing"));
    config_free(&c);
}

static void test_syntax_error(void **st)
{
    (void)st;
    gw_config c;
    config_init(&c);
    assert_int_equal(config_load_string(&c, "listen: :9400\nexporter:\n  series: [dcgm\n", "syn.yaml"), 1);
    assert_true(has_error(&c, "syn.yaml:4:"));
    config_free(&c);
    config_init(&c);
    assert_int_equal(config_load_string(&c, "- a\n- b\n", "list.yaml"), 1);
    assert_true(has_error(&c, "list.yaml:1:1: the top level: expected a mapping"));
    config_free(&c);
    config_init(&c);
    assert_int_equal(config_load_string(&c, "", "empty.yaml"), 0);
    assert_string_equal(c.listen, ":9400");
    config_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),     cmocka_unit_test(test_good),         cmocka_unit_test(test_errors),
        cmocka_unit_test(test_http_and_tls), cmocka_unit_test(test_syntax_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
