/* test_top_fmt.c - top's pure text helpers: bars, sparklines, throttle words, levels, units, widths,
 * UTF-8 decoding. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "top_fmt.h"
#include "text.h"

static void test_bar_unicode(void **st)
{
    (void)st;
    char b[256];
    assert_string_equal(fmt_bar(b, sizeof b, 0.5, 4, 0), "██  ");
    assert_string_equal(fmt_bar(b, sizeof b, 0.0, 3, 0), "   ");
    assert_string_equal(fmt_bar(b, sizeof b, 1.7, 3, 0), "███"); /* clamped */
    assert_string_equal(fmt_bar(b, sizeof b, NAN, 2, 0), "  ");
    assert_string_equal(fmt_bar(b, sizeof b, 0.5625, 2, 0), "█▏"); /* 9 eighths */
    assert_int_equal(fmt_cols(fmt_bar(b, sizeof b, 0.33, 17, 0)), 17);
}

static void test_bar_ascii(void **st)
{
    (void)st;
    char b[64];
    assert_string_equal(fmt_bar(b, sizeof b, 0.5, 10, 1), "|||||     ");
    assert_string_equal(fmt_bar(b, sizeof b, -1, 4, 1), "    ");
    /* A buffer too small is never overrun and stays terminated. */
    char tiny[4];
    fmt_bar(tiny, sizeof tiny, 1, 10, 1);
    assert_string_equal(tiny, "|||");
}

static void test_sparkline(void **st)
{
    (void)st;
    char b[128];
    double v[] = {0, 50, 100, NAN, 150, -5};
    assert_string_equal(fmt_sparkline(b, sizeof b, v, 6, 0, 100, 0), "▁▅█ █▁");
    assert_string_equal(fmt_sparkline(b, sizeof b, v, 6, 0, 100, 1), "_=# #_");
    assert_string_equal(fmt_sparkline(b, sizeof b, v, 0, 0, 100, 0), "");
}

static void test_throttle_words(void **st)
{
    (void)st;
    char b[256];
    assert_int_equal(fmt_throttle_words(0x4 | 0x20, 0, b, sizeof b), 2);
    assert_string_equal(b, "sw power cap, sw thermal slowdown");
    assert_int_equal(fmt_throttle_words(0x1, 0, b, sizeof b), 0); /* idle left out */
    assert_string_equal(b, "");
    assert_int_equal(fmt_throttle_words(0x1 | 0x40, 1, b, sizeof b), 2);
    assert_string_equal(b, "gpu idle, hw thermal slowdown");
    assert_int_equal(fmt_throttle_words(0x80, 0, b, sizeof b), 1);
    assert_string_equal(b, "hw power brake slowdown");
    assert_int_equal(fmt_throttle_words(0, 1, b, sizeof b), 0);
    /* cut to a width: whole reasons only, the rest counted */
    const char *two = "sw power cap, sw thermal slowdown", *three = "sw power cap, hw slowdown, sync boost";
    assert_string_equal(fmt_fit_list(b, sizeof b, two, 80, "throttled"), two);
    assert_string_equal(fmt_fit_list(b, sizeof b, two, 33, "throttled"), two);
    assert_string_equal(fmt_fit_list(b, sizeof b, two, 32, "throttled"), "sw power cap +1");
    assert_string_equal(fmt_fit_list(b, sizeof b, two, 15, "throttled"), "sw power cap +1");
    assert_string_equal(fmt_fit_list(b, sizeof b, two, 14, "throttled"), "throttled (2)");
    assert_string_equal(fmt_fit_list(b, sizeof b, two, 12, "throttled"), "");
    assert_string_equal(fmt_fit_list(b, sizeof b, three, 30, "throttled"), "sw power cap, hw slowdown +1");
    assert_string_equal(fmt_fit_list(b, sizeof b, three, 27, "throttled"), "sw power cap +2");
    assert_string_equal(fmt_fit_list(b, sizeof b, "hw power brake slowdown", 10, "throttled"), "");
    for (int w = 0; w < 40; w++) /* never wider than asked, never a cut word */
        assert_true(fmt_cols(fmt_fit_list(b, sizeof b, three, w, "throttled")) <= w);
}

static void test_levels(void **st)
{
    (void)st;
    assert_int_equal(fmt_level(79.9, 80, 90), LVL_OK);
    assert_int_equal(fmt_level(80, 80, 90), LVL_WARN);
    assert_int_equal(fmt_level(90, 80, 90), LVL_CRIT);
    assert_int_equal(fmt_level(104, 95, 105), LVL_WARN);
    assert_int_equal(fmt_level(105, 95, 105), LVL_CRIT);
}

static void test_units(void **st)
{
    (void)st;
    char b[32];
    assert_string_equal(fmt_mib(b, sizeof b, 812), "812 MiB");
    assert_string_equal(fmt_mib(b, sizeof b, 81559), "79.6 GiB");
    assert_string_equal(fmt_mib(b, sizeof b, 2 * 1048576.0), "2.00 TiB");
    assert_string_equal(fmt_kbs(b, sizeof b, 12), "12 KB/s");
    assert_string_equal(fmt_kbs(b, sizeof b, 350000), "350 MB/s");
    assert_string_equal(fmt_kbs(b, sizeof b, 1200000), "1.2 GB/s");
    assert_string_equal(fmt_duration(b, sizeof b, 45), "45s");
    assert_string_equal(fmt_duration(b, sizeof b, 754), "12:34");
    assert_string_equal(fmt_duration(b, sizeof b, 3 * 3600 + 245), "3:04:05");
    assert_string_equal(fmt_duration(b, sizeof b, 2 * 86400 + 3 * 3600 + 7), "2d03h");
}

static void test_widths(void **st)
{
    (void)st;
    char b[64];
    assert_int_equal(fmt_cols("abc"), 3);
    assert_int_equal(fmt_cols("65°C"), 4);
    assert_int_equal(fmt_cols("日本"), 4);
    assert_string_equal(fmt_ascii(b, sizeof b, "core at 92 °C, ok"), "core at 92 C, ok");
    assert_string_equal(fmt_ascii(b, sizeof b, "日x"), "?x");
    assert_string_equal(fmt_pad(b, sizeof b, "65°C", 6, 0), "65°C  "); /* by columns, not bytes */
    assert_string_equal(fmt_pad(b, sizeof b, "7", 3, 1), "  7");
    assert_string_equal(fmt_pad(b, sizeof b, "toolong", 3, 0), "toolong");
}

static void test_fixed_and_join(void **st)
{
    (void)st;
    char b[64], ref[64];
    /* The same digits as printf, ties and odd values included. */
    const double vals[] = {0, 0.4, 0.5, 1.5, 2.5, 0.15, 0.25, 72.5, 79.647, 99.95, 1234567.891, 1e14, -3.5, 4e15};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++)
        for (int d = 0; d <= 3; d++) {
            snprintf(ref, sizeof ref, "%.*f W", d, vals[i]);
            assert_string_equal(fmt_fixed(b, sizeof b, vals[i], d, " W"), ref);
        }
    assert_string_equal(fmt_fixed(b, 4, 12345, 0, ""), "123"); /* cut to the buffer */
    assert_string_equal(fmt_join(b, sizeof b, "rx ", "1 MB/s", " tx ", "2 MB/s", NULL), "rx 1 MB/s tx 2 MB/s");
    assert_string_equal(fmt_join(b, 6, "abc", "defgh", NULL), "abcde");
    assert_string_equal(fmt_join(b, sizeof b, NULL), "");
}

static void test_utf8(void **st)
{
    (void)st;
    uint32_t cp;
    assert_int_equal(gw_utf8_next("a", &cp), 1);
    assert_int_equal(cp, 'a');
    assert_int_equal(gw_utf8_next("°C", &cp), 2);
    assert_int_equal(cp, 0xB0);
    assert_int_equal(gw_utf8_next("█", &cp), 3);
    assert_int_equal(cp, 0x2588);
    assert_int_equal(gw_utf8_next("\xF0\x9F\x98\x80", &cp), 4);
    assert_int_equal(cp, 0x1F600);
    assert_int_equal(gw_utf8_next("\xE2\x96", &cp), 1); /* cut short: one byte, U+FFFD */
    assert_int_equal(cp, 0xFFFD);
    assert_int_equal(gw_utf8_next("\xC0\xAF", &cp), 1); /* overlong */
    assert_int_equal(cp, 0xFFFD);
    assert_int_equal(gw_utf8_next("\xE0\x80\xAF", &cp), 1);
    assert_int_equal(cp, 0xFFFD);
    assert_int_equal(fmt_cp_cols('x'), 1);
    assert_int_equal(fmt_cp_cols(0x65E5), 2); /* 日 */
    assert_int_equal(fmt_cp_cols(0x2801), 1); /* braille */
    assert_int_equal(fmt_cols("bad\xFF"
                              "byte"),
                     8);
}

int main(void)
{
    setlocale(LC_ALL, "C.UTF-8");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bar_unicode),    cmocka_unit_test(test_bar_ascii), cmocka_unit_test(test_sparkline),
        cmocka_unit_test(test_throttle_words), cmocka_unit_test(test_levels),    cmocka_unit_test(test_units),
        cmocka_unit_test(test_widths),         cmocka_unit_test(test_utf8),      cmocka_unit_test(test_fixed_and_join),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
