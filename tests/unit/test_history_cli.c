/* test_history_cli.c - chart rendering of the history commands. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "chart.h"
#include "timeparse.h"

#define NOW 1764680000000000ll

static int count_lines(const char *s, int *max_cols)
{
    int lines = 0, cols = 0;
    *max_cols = 0;
    for (const char *p = s; *p; p++) {
        if (*p == '\n') {
            lines++;
            if (cols > *max_cols)
                *max_cols = cols;
            cols = 0;
        } else if ((*p & 0xC0) != 0x80)
            cols++; /* count characters, not UTF-8 bytes */
    }
    return lines;
}

static void test_chart(void **state)
{
    (void)state;
    int64_t t[100];
    double a[100], b[100];
    for (int i = 0; i < 100; i++) {
        t[i] = NOW + (int64_t)i * 1000000;
        a[i] = 40 + i * 0.5; /* 40 .. 89.5 */
        b[i] = 60;
    }
    chart_series s[2] = {{"gpu0", t, a, 100}, {"gpu1", t, b, 100}};
    for (int utf8 = 0; utf8 <= 1; utf8++) {
        chart_opts o = {.width = 70,
                        .height = 15,
                        .utf8 = utf8,
                        .title = "temperature.gpu",
                        .unit = "C",
                        .from_us = t[0],
                        .to_us = t[99]};
        char *text = chart_render(s, 2, &o);
        assert_non_null(text);
        int cols;
        assert_int_equal(count_lines(text, &cols), 15);
        assert_true(cols <= 70);
        assert_non_null(strstr(text, "temperature.gpu (C)"));
        assert_non_null(strstr(text, "89.5")); /* top label: the maximum */
        assert_non_null(strstr(text, "40"));   /* bottom label: the minimum */
        /* without colour, each series its own character, named in the legend, in both */
        assert_non_null(strstr(text, " * gpu0 + gpu1\n"));
        assert_null(strstr(text, "\xe2\xa3")); /* braille dots would all look alike */
        if (utf8)
            assert_non_null(strstr(text, "\xe2\x94\xa4")); /* the axis still in box drawing */
        else
            for (const char *p = text; *p; p++)
                assert_true((unsigned char)*p < 0x80);
        free(text);
        /* braille for one series, or several told apart by colour */
        for (int color = 0; utf8 && color <= 1; color++) {
            o.color = color;
            text = chart_render(s, 2 - !color, &o);
            assert_non_null(text);
            assert_non_null(strstr(text, "\xe2\xa3"));
            assert_non_null(strstr(text, color ? "\xe2\xa3\xbf \033[0mgpu1" : "\xe2\xa3\xbf gpu0\n"));
            free(text);
        }
    }
    /* no data: still a frame, no crash */
    chart_opts o = {.width = 40, .height = 8, .from_us = NOW, .to_us = NOW + 1000};
    char *text = chart_render(NULL, 0, &o);
    assert_non_null(text);
    free(text);
}

/* Any size asked for, from the command line or a terminal, is brought within the limits: the
 * canvas' cell count cannot overflow (65547 x 65540 overflowed an int: a heap overflow, SIGSEGV). */
static void test_chart_sizes(void **state)
{
    (void)state;
    int64_t t[3] = {NOW, NOW + 1000000, NOW + 2000000};
    double v[3] = {1, 5, 2};
    chart_series s[1] = {{"gpu0", t, v, 3}};
    const int sizes[] = {INT32_MIN, -1,   0,    1,     4,     19,    20,      21,       80,
                         999,       1000, 1001, 65535, 65540, 65547, 1 << 20, INT32_MAX};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k += 3) {
            chart_opts o = {.width = sizes[i], .height = sizes[k], .utf8 = 1, .from_us = t[0], .to_us = t[2]};
            char *text = chart_render(s, 1, &o);
            assert_non_null(text);
            int cols, lines = count_lines(text, &cols);
            int want_w = sizes[i] <= 0 ? 80 : sizes[i] < CHART_MIN_WIDTH ? CHART_MIN_WIDTH : sizes[i];
            int want_h = sizes[k] <= 0 ? 20 : sizes[k] < CHART_MIN_HEIGHT ? CHART_MIN_HEIGHT : sizes[k];
            assert_int_equal(cols, want_w > CHART_MAX_WIDTH ? CHART_MAX_WIDTH : want_w);
            assert_int_equal(lines, want_h > CHART_MAX_HEIGHT ? CHART_MAX_HEIGHT : want_h);
            free(text);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_chart), cmocka_unit_test(test_chart_sizes)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
