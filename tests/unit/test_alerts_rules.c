/* test_alerts_rules.c - rule files (errors with line:col), templates, durations and the
 * promtool series notation. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rules.h"
#include "series_notation.h"
#include "template.h"
#include "util.h"

static int has_error(const errlist *e, const char *prefix, const char *text)
{
    for (int i = 0; i < e->n; i++)
        if (strncmp(e->msg[i], prefix, strlen(prefix)) == 0 && strstr(e->msg[i], text))
            return 1;
    return 0;
}

static void dump(const errlist *e)
{
    for (int i = 0; i < e->n; i++)
        fprintf(stderr, "  %s\n", e->msg[i]);
}

static void test_good_file(void **st)
{
    (void)st;
    ruleset rs = {0};
    errlist e = {0};
    int n = rules_load_string(
        &rs, "ok.yaml",
        "groups:\n"
        "- name: g\n"
        "  interval: 30s\n"
        "  rules:\n"
        "  - alert: A\n"
        "    condition: {metric: temperature.gpu, reduce: p95, window: 1h30m, op: \">=\", threshold: 85}\n"
        "    for: 90s\n"
        "    keep_firing_for: 2m\n"
        "    gpus: \"0,2-3\"\n"
        "    labels: {severity: critical}\n"
        "    annotations: {summary: \"{{ $labels.gpu }} {{ printf \\\"%.1f\\\" $value }}\"}\n",
        &e);
    dump(&e);
    assert_int_equal(n, 0);
    assert_int_equal(ruleset_count(&rs), 1);
    rule *r = &rs.groups[0].rules[0];
    assert_int_equal(rs.groups[0].interval_us, 30000000);
    assert_int_equal(r->cond.window_us, 5400LL * 1000000);
    assert_int_equal(r->cond.reduce, RED_P95);
    assert_int_equal(r->cond.op, CMP_GE);
    assert_int_equal(r->for_us, 90LL * 1000000);
    assert_int_equal(r->keep_firing_us, 120LL * 1000000);
    assert_true(r->has_gpus && r->gpus[0] && !r->gpus[1] && r->gpus[2] && r->gpus[3]);
    assert_string_equal(labels_get(&r->labels, "severity"), "critical");
    ruleset_free(&rs);
}

static void test_bad_file_every_error_located(void **st)
{
    (void)st;
    ruleset rs = {0};
    errlist e = {0};
    const char *text =
        "groups:\n"                                                                                      /* 1 */
        "  - name: g\n"                                                                                  /* 2 */
        "    rules:\n"                                                                                   /* 3 */
        "      - alert: A\n"                                                                             /* 4 */
        "        condition: {metric: temperature.gpuu, op: \">\", threshold: 1}\n"                       /* 5 */
        "        for: 5x\n"                                                                              /* 6 */
        "      - alert: B\n"                                                                             /* 7 */
        "        condition: {metric: temperature.gpu, reduce: avg, op: \"=>\", threshold: 1}\n"          /* 8 */
        "        annotations:\n"                                                                         /* 9 */
        "          summary: \"x {{ $foo }}\"\n"                                                          /* 10 */
        "      - alert: C\n"                                                                             /* 11 */
        "        condition: {metric: process.memory, op: \">\", threshold: memory.used / memory.totl}\n" /* 12 */
        "        colour: red\n";                                                                         /* 13 */
    int n = rules_load_string(&rs, "bad.yaml", text, &e);
    assert_int_equal(n, 8);
    assert_true(has_error(&e, "bad.yaml:5:29:", "unknown metric 'temperature.gpuu'"));
    assert_true(has_error(&e, "bad.yaml:6:14:", "bad duration '5x'"));
    assert_true(has_error(&e, "bad.yaml:8:54:", "needs a window"));
    assert_true(has_error(&e, "bad.yaml:8:63:", "op '=>'"));
    assert_true(has_error(&e, "bad.yaml:10:23:", "unsupported template action"));
    assert_true(has_error(&e, "bad.yaml:11:9:", "scope: process"));
    assert_true(has_error(&e, "bad.yaml:12:65:", "unknown metric 'memory.totl'"));
    assert_true(has_error(&e, "bad.yaml:13:9:", "unknown key 'colour'"));
    assert_int_equal(ruleset_count(&rs), 0); /* a file with errors adds nothing */
    errlist_free(&e);
    ruleset_free(&rs);
}

static void test_yaml_syntax_and_shape(void **st)
{
    (void)st;
    ruleset rs = {0};
    errlist e = {0};
    assert_int_equal(rules_load_string(&rs, "s.yaml", "groups:\n  - name: [\n", &e), 1);
    assert_true(has_error(&e, "s.yaml:3:1:", "YAML"));
    errlist_free(&e);
    assert_true(
        rules_load_string(&rs, "s.yaml", "groups:\n- name: g\n  rules:\n  - alert: X\n    expr: up == 0\n", &e) > 0);
    assert_true(has_error(&e, "s.yaml:4:5:", "PromQL"));
    assert_true(has_error(&e, "s.yaml:4:5:", "exactly one of 'condition'"));
    errlist_free(&e);
    assert_true(
        rules_load_string(
            &rs, "s.yaml",
            "groups:\n- name: g\n  rules:\n  - alert: X\n    condition: {metric: name, op: \">\", threshold: 1}\n",
            &e) > 0);
    assert_true(has_error(&e, "s.yaml:5:25:", "text field"));
    errlist_free(&e);
    assert_true(rules_load_string(&rs, "s.yaml",
                                  "groups:\n- name: g\n  rules:\n  - alert: X\n    condition: {metric: sample.age, "
                                  "reduce: max, window: 1m, op: \">\", threshold: 1}\n",
                                  &e) > 0);
    assert_true(has_error(&e, "s.yaml:5:25:", "reduce: last"));
    errlist_free(&e);
    ruleset_free(&rs);
}

static char *expand(const char *src, double value)
{
    tmpl t;
    char err[200];
    int off;
    if (tmpl_compile(&t, src, err, sizeof err, &off) != 0)
        return NULL;
    labels l = {0};
    labels_set(&l, "gpu", "3");
    labels_set(&l, "modelName", "NVIDIA H100 80GB HBM3");
    labels_set(&l, "alertname", "GPUHot");
    char *s = tmpl_expand(&t, &l, value);
    labels_free(&l);
    tmpl_free(&t);
    return s;
}

static void expect(const char *src, double value, const char *want)
{
    char *s = expand(src, value);
    assert_non_null(s);
    assert_string_equal(s, want);
    free(s);
}

static void test_templates(void **st)
{
    (void)st;
    expect("GPU {{ $labels.gpu }} ({{ $labels.modelName }}) is at {{ $value }} C", 91,
           "GPU 3 (NVIDIA H100 80GB HBM3) is at 91 C");
    expect("{{ $labels.alertname }}: {{ printf \"%.1f\" $value }}", 91.26, "GPUHot: 91.3");
    expect("{{printf \"%d\" $value}}%", 95.4, "95%");
    expect("{{ printf \"%5.2f%%\" $value }}", 0.5, " 0.50%");
    expect("[{{ $labels.nothere }}]", 1, "[]");
    expect("{{ .Labels.gpu }}={{ .Value }}", 0.25, "3=0.25");
    expect("{{ humanize $value }}", 1234567, "1.235M");
    expect("{{ humanize $value }}", 0.0125, "12.5m");
    expect("no actions", 1, "no actions");
    expect("{{ humanizePercentage $value }} full", 0.9625, "96.25% full");
    char v[40];
    gw_format_number(1e21, v, sizeof v);
    assert_string_equal(v, "1e+21");
    gw_format_number(123456789, v, sizeof v);
    assert_string_equal(v, "123456789");
    gw_format_number(0.1 + 0.2, v, sizeof v);
    assert_string_equal(v, "0.30000000000000004");
    gw_format_number(-2.5e-5, v, sizeof v);
    assert_string_equal(v, "-2.5e-05");
    tmpl t;
    char err[200];
    int off = -1;
    assert_int_equal(tmpl_compile(&t, "ok {{ $foo }}", err, sizeof err, &off), -1);
    assert_int_equal(off, 3);
    assert_int_equal(tmpl_compile(&t, "x {{ $value ", err, sizeof err, &off), -1);
    assert_non_null(strstr(err, "unclosed"));
    assert_int_equal(tmpl_compile(&t, "{{ printf \"%n\" $value }}", err, sizeof err, &off), -1);
    assert_int_equal(tmpl_compile(&t, "{{ printf \"%s %s\" $value }}", err, sizeof err, &off), -1);
    /* a width or precision past 64 would have printf build gigabytes: refused, the limit named */
    static const char *const huge[] = {"%999999999d", "%.999999999f", "%65s",
                                       "%-0100x",     "%1.65e",       "%99999999999999999999999g"};
    for (size_t i = 0; i < sizeof huge / sizeof *huge; i++) {
        char src[96];
        snprintf(src, sizeof src, "{{ printf \"%s\" $value }}", huge[i]);
        assert_int_equal(tmpl_compile(&t, src, err, sizeof err, &off), -1);
        assert_non_null(strstr(err, "at most 64"));
    }
    char *s = expand("[{{ printf \"%64.64f\" $value }}]", 1.5);
    assert_non_null(s);
    assert_int_equal(strlen(s), 68); /* "[1." and 64 decimals "]" */
    free(s);
}

static void test_series_notation(void **st)
{
    (void)st;
    series_values s;
    char err[200];
    assert_int_equal(series_expand("80+1x3 95x2 _ _x2 7 0x1 10-2x2 stale", &s, err, sizeof err), 0);
    double want[] = {80, 81, 82, 83, 95, 95, 95, -1, -1, -1, 7, 0, 0, 10, 8, 6, -1};
    assert_int_equal(s.n, 17);
    for (int i = 0; i < s.n; i++) {
        assert_int_equal(s.present[i], want[i] != -1);
        if (want[i] != -1)
            assert_float_equal(s.v[i], want[i], 1e-12);
    }
    series_values_free(&s);
    assert_int_equal(series_expand("1e3 -5 2.5+0.5x1", &s, err, sizeof err), 0);
    assert_int_equal(s.n, 4);
    assert_float_equal(s.v[0], 1000, 0);
    assert_float_equal(s.v[1], -5, 0);
    assert_float_equal(s.v[3], 3, 0);
    series_values_free(&s);
    assert_int_equal(series_expand("80 8o", &s, err, sizeof err), -1);
    assert_non_null(strstr(err, "'8o'"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_file),
        cmocka_unit_test(test_bad_file_every_error_located),
        cmocka_unit_test(test_yaml_syntax_and_shape),
        cmocka_unit_test(test_templates),
        cmocka_unit_test(test_series_notation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
