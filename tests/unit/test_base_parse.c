/* test_base_parse.c - the one grammar for durations, sizes and times that flags, config, rules,
 * rule tests, scenarios and query parameters share (src/base/util.c, src/base/timeparse.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "timeparse.h"
#include "util.h"

#define NOW 1764680000000000ll

static void test_durations(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int64_t us;
    } good[] = {
        {"0", 0},
        {"5", 5000000},
        {"1.5", 1500000},
        {"250ms", 250000},
        {"10s", 10000000},
        {"1.5m", 90000000},
        {"5min", 300000000},
        {"2h", 7200000000LL},
        {"1h30m", 5400000000LL},
        {"13m20s", 800000000},
        {"1h0m0s500ms", 3600500000LL},
        {"2d", 172800000000LL},
        {"1w", 604800000000LL},
        {"1y", 31536000000000LL},
        {".5s", 500000},
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        int64_t us = -1;
        double s = -1;
        assert_int_equal(gw_parse_duration_us(good[i].text, &us), 0);
        assert_int_equal(us, good[i].us);
        assert_int_equal(gw_parse_duration(good[i].text, &s), 0);
        assert_true(fabs(s - (double)good[i].us / 1e6) < 1e-9);
    }
    const char *bad[] = {"",      "x",   "-5m", "5mm",  "1m30",  "30m1h",  "1h1h", "5 s", "s",
                         "1e400", "nan", "inf", "infs", "1e12y", "1.2.3s", "5sec", "+5s", "0x10s"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int64_t us;
        if (gw_parse_duration_us(bad[i], &us) != -1)
            fail_msg("'%s' was taken as a duration", bad[i]);
    }
    /* Every whole number of each unit up to 1000 reads back exactly. */
    static const struct {
        const char *unit;
        int64_t us;
    } units[] = {{"ms", 1000},      {"s", 1000000},      {"m", 60000000},
                 {"min", 60000000}, {"h", 3600000000LL}, {"d", 86400000000LL}};
    for (size_t u = 0; u < sizeof units / sizeof units[0]; u++)
        for (int n = 0; n <= 1000; n += 7) {
            char text[32];
            int64_t us;
            snprintf(text, sizeof text, "%d%s", n, units[u].unit);
            assert_int_equal(gw_parse_duration_us(text, &us), 0);
            assert_int_equal(us, n * units[u].us);
        }
}

static void test_sizes(void **state)
{
    (void)state;
    uint64_t b;
    assert_int_equal(gw_parse_size("1048576", &b), 0);
    assert_int_equal(b, 1048576);
    assert_int_equal(gw_parse_size("500MB", &b), 0);
    assert_int_equal(b, 500000000);
    assert_int_equal(gw_parse_size("2GiB", &b), 0);
    assert_int_equal(b, 2147483648ULL);
    assert_int_equal(gw_parse_size("1.5 kib", &b), 0);
    assert_int_equal(b, 1536);
    const char *bad[] = {"", "MB", "-1MB", "1XB", "nan", "inf", "1e30TB"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(gw_parse_size(bad[i], &b), -1);
}

static void test_times(void **state)
{
    (void)state;
    int64_t t;
    assert_int_equal(tp_parse_time("2025-12-02T11:00:00Z", NOW, &t), 0);
    assert_int_equal(t, 1764673200000000ll);
    assert_int_equal(tp_parse_time("2025-12-02 12:30:00+01:30", NOW, &t), 0);
    assert_int_equal(t, 1764673200000000ll);
    assert_int_equal(tp_parse_time("2025-12-02T11:00:00.250Z", NOW, &t), 0);
    assert_int_equal(t, 1764673200250000ll);
    assert_int_equal(tp_parse_time("2025-12-02", NOW, &t), 0);
    assert_int_equal(t, 1764633600000000ll);
    assert_int_equal(tp_parse_time("1764673200", NOW, &t), 0);
    assert_int_equal(t, 1764673200000000ll);
    assert_int_equal(tp_parse_time("1764673200.5", NOW, &t), 0);
    assert_int_equal(t, 1764673200500000ll);
    assert_int_equal(tp_parse_time("2h", NOW, &t), 0);
    assert_int_equal(t, NOW - 7200000000ll);
    assert_int_equal(tp_parse_time("-30m", NOW, &t), 0);
    assert_int_equal(t, NOW - 1800000000ll);
    assert_int_equal(tp_parse_time("now", NOW, &t), 0);
    assert_int_equal(t, NOW);
    const char *bad[] = {"",
                         "yesterday",
                         "2025-13-01T00:00:00Z",
                         "2025-12-02T25:00:00Z",
                         "-",
                         "2h30",
                         "--1h",
                         "2025-12-02T11:00:00Zjunk",
                         "1e20",
                         "nan",
                         "inf",
                         "-inf",
                         "1e300",
                         "0x10",
                         "99999999999999",
                         "1969-12-31T23:59:59Z",
                         "2025-12-02T11:00:00.5.5Z"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(tp_parse_time(bad[i], NOW, &t), -1);
    assert_int_equal(tp_parse_time("100y", NOW, &t), 0); /* further back than 1970: from the start */
    assert_int_equal(t, 0);
    char buf[40];
    tp_format_rfc3339(1764673200250000ll, buf, sizeof buf);
    assert_string_equal(buf, "2025-12-02T11:00:00.250Z");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_durations),
        cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_times),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
