/* test_fuzz_regress.c - what the fuzzers of fuzz/ found, each fed again to the code it broke
 * (docs/reliability.md, "Fuzzing"), and the defects they were pointed at that others had fixed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "doc.h"
#include "errlist.h"
#include "rules.h"
#include "scenario.h"
#include "series_notation.h"
#include "steps.h"
#include "timeparse.h"
#include "util.h"

/* fuzz_parsers, timeout: "1x57576" grew its arrays one value at a time (11 s under ASan; a rule test
 * with a few "1x1000000" took minutes). Every count up to the limit now expands at once, and past
 * SERIES_MAX_VALUES in all the series is refused. */
static void series_notation_large_counts(void **state)
{
    (void)state;
    static const char *const ok[] = {"1x57576", "1x1000000", "_x1000000", "5+1x999999", "1x1000000 1x999998"};
    static const int want_n[] = {57577, 1000001, 1000000, 1000000, SERIES_MAX_VALUES};
    static const double want_last[] = {1, 1, 0, 5 + 999999, 1};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        series_values s;
        char err[200];
        assert_int_equal(series_expand(ok[i], &s, err, sizeof err), 0);
        assert_int_equal(s.n, want_n[i]);
        assert_true(s.v[s.n - 1] == want_last[i]);
        series_values_free(&s);
    }
    static const char *const too_many[] = {"1x1000000 1x1000000", "_x1000000 _x1000000 1", "1x1000000 1x999999 2",
                                           "1x1000001"};
    for (size_t i = 0; i < sizeof too_many / sizeof too_many[0]; i++) {
        series_values s;
        char err[200] = "";
        assert_int_equal(series_expand(too_many[i], &s, err, sizeof err), -1);
        assert_non_null(strstr(err, "values)"));
        assert_null(s.v);
    }
}

/* fuzz_scenario, leak: a scenario with an error (here the typo of tests/scenarios/gpusim-bad-key.yaml)
 * left its error list allocated (found by LeakSanitizer on the seed corpus; the ASan build of this
 * test fails if it comes back). */
static void scenario_error_frees_its_messages(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "seed: 1\ngpus:\n  - preset: h100-sxm\n    metrcs:\n      utilization.gpu: 50\n",
        "gpus: 3\n",
        "",
        "gpus:\n  - {preset: nope}\n  - {preset: nope2}\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char err[300] = "";
        scenario *sc = scenario_parse("bad.yaml", NULL, bad[i], strlen(bad[i]), err, sizeof err);
        assert_null(sc);
        assert_true(strncmp(err, "bad.yaml", 8) == 0);
    }
}

/* Fixed before the fuzzers ran, checked by them and kept here: a rule file whose groups are a list
 * of scalars, deeply nested YAML, and non-finite or out-of-range times. */
static void earlier_fixes_hold(void **state)
{
    (void)state;
    static const char *const rule_files[] = {"groups: [a, b]\n", "groups: [1, [2], {}]\n", "groups: a\n",
                                             "groups:\n- name: g\n  rules: [x, 3]\n"};
    for (size_t i = 0; i < sizeof rule_files / sizeof rule_files[0]; i++) {
        ruleset rs = {0};
        errlist errs = {0};
        assert_true(rules_load_string(&rs, "r.yaml", rule_files[i], &errs) > 0);
        ruleset_free(&rs);
        errlist_free(&errs);
    }
    size_t depth = 100000;
    char *deep = malloc(2 * depth + 1);
    assert_non_null(deep);
    memset(deep, '[', depth);
    memset(deep + depth, ']', depth);
    deep[2 * depth] = 0;
    gw_doc d;
    errlist errs = {0};
    uint64_t t0 = gw_mono_us();
    assert_int_equal(doc_load_text(&d, "deep.yaml", deep, strlen(deep), &errs), -1);
    assert_true(gw_mono_us() - t0 < 5000000); /* refused at the depth limit, not after minutes */
    assert_true(errs.n > 0);
    errlist_free(&errs);
    free(deep);
    static const char *const times[] = {"nan",         "inf", "-inf",     "1e400",   "-1e400",
                                        "1e300",       "NaN", "infinity", "1e11000", "99999999999999999999",
                                        "-99999999999"};
    for (size_t i = 0; i < sizeof times / sizeof times[0]; i++) {
        int64_t t;
        assert_int_equal(tp_parse_time(times[i], 1764673200000000ll, &t), -1);
        double s;
        assert_int_equal(gw_parse_duration(times[i], &s), -1);
    }
}

/* fuzz_parsers: "9721-12-02" was taken as a time of year 9721, past the range every time has
 * (TP_MAX_UNIX_S); dates out of that range, each form, are refused, and the edges are kept. */
static void rfc3339_dates_in_range(void **state)
{
    (void)state;
    static const char *const out[] = {"9721-12-02", "5200-01-01T00:00:00Z", "9999-12-31T23:59:59.999Z",
                                      "1970-01-01T00:30:00+01:00", "1970-01-01T00:00:00.5-00:01Z"};
    for (size_t i = 0; i < sizeof out / sizeof out[0]; i++) {
        int64_t t = -7;
        assert_int_equal(tp_parse_time(out[i], 1764673200000000ll, &t), -1);
        assert_int_equal(t, -7);
    }
    int64_t t;
    assert_int_equal(tp_parse_time("1970-01-01T00:00:00Z", 0, &t), 0);
    assert_int_equal(t, 0);
    assert_int_equal(tp_parse_time("2026-12-02", 0, &t), 0);
    assert_true(t > 0 && (double)t <= TP_MAX_UNIX_S * 1e6);
    assert_int_equal(tp_parse_time("5000-01-01T00:00:00Z", 0, &t), 0);
    assert_true((double)t <= TP_MAX_UNIX_S * 1e6);
}

/* fuzz_parsers: "_x0 _x0" reserved room for no value twice; realloc to 0 bytes freed the array,
 * which was then freed again (a double free, and a false "out of memory"). */
static void series_notation_zero_counts(void **state)
{
    (void)state;
    static const char *const texts[] = {"_x0 _x0", "_x0", "_x0 _x0 5", "1 _x0 _x0 2", "_x0\n\n_x0\n-3"};
    static const int want_n[] = {0, 0, 1, 2, 1};
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        series_values s;
        char err[200] = "";
        assert_int_equal(series_expand(texts[i], &s, err, sizeof err), 0);
        assert_int_equal(s.n, want_n[i]);
        series_values_free(&s);
    }
}

/* fuzz_steps: a line of one stream that ends (at steps_finish) with an earlier time than a line of
 * the other stream matched before it made a mark that went back in time. Families: the late line on
 * either stream, with and without a reported step time. */
static void steps_marks_in_time_order(void **state)
{
    (void)state;
    const char *rx[] = {"it (\\d+) took ([\\d.]+)", "it (\\d+)", NULL};
    for (int r = 0; r < 3; r++)
        for (int first = 0; first < 2; first++) {
            char err[200];
            step_parser *p = steps_new(rx[r], err, sizeof err);
            assert_non_null(p);
            int64_t t = 1764680000000000ll;
            const char *late = r < 2 ? "it 2 took 102 " : "step 2 | loss 1.0";
            const char *early =
                r < 2 ? "it 0 took 100 ms\nit 1 took 101 ms\n" : "step 0 | loss 1.2\nstep 1 | loss 1.1\n";
            steps_feed(p, first, t, late, strlen(late));
            steps_feed(p, !first, t + 500000, early, strlen(early));
            steps_finish(p); /* the late line ends now, with its time of t */
            const step_mark *m;
            size_t n = steps_marks(p, &m);
            for (size_t i = 1; i < n; i++)
                assert_true(m[i].t_us >= m[i - 1].t_us);
            steps_free(p);
        }
}

/* fuzz_steps: step numbers a job prints near LONG_MAX overflowed the step count (UBSan: signed
 * overflow). Families: numbers past the bound, a jump from -1 to LONG_MAX, huge reported times. */
static void steps_counts_bounded(void **state)
{
    (void)state;
    const char *lines[] = {"step 9223372036854775807 | loss 1\nstep 0 | loss 1\nstep 9223372036854775807 | loss 1\n",
                           "it 9223372036854775807 took 1\nit 1 took 1\nit 9223372036854775807 took 1\n",
                           "it 999999999999999 took 1e300\nit 5 took 1e308\nit 6 took 0.5\n",
                           "step 99999999999999999999999999 | loss 1\nstep 1 | loss 1\nstep 2 | loss 1\n"};
    for (int k = 0; k < 4; k++)
        for (int repeat = 1; repeat <= 20000; repeat *= 100) {
            char err[200];
            step_parser *p = steps_new(k == 1 || k == 2 ? "it (\\d+) took ([\\d.e+]+)" : NULL, err, sizeof err);
            assert_non_null(p);
            for (int r = 0; r < repeat; r++)
                steps_feed(p, 0, 1764680000000000ll + r * 1000000ll, lines[k], strlen(lines[k]));
            step_stats st;
            steps_stats(p, &st);
            assert_true(st.nsteps >= 0 && st.nsteps <= LONG_MAX);
            assert_true(isnan(st.mean_s) || (st.mean_s >= 0 && st.mean_s <= STEPS_MAX_SECONDS));
            steps_free(p);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(series_notation_large_counts), cmocka_unit_test(scenario_error_frees_its_messages),
        cmocka_unit_test(earlier_fixes_hold),           cmocka_unit_test(rfc3339_dates_in_range),
        cmocka_unit_test(series_notation_zero_counts),  cmocka_unit_test(steps_marks_in_time_order),
        cmocka_unit_test(steps_counts_bounded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
