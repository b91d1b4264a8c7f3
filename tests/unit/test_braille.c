/* test_braille.c - the one braille plotter (history's charts and top's): each of a cell's eight dots
 * gives its own bit of U+2800, dots and lines land in the cells their coordinates say for every
 * size, the cell keeps the last series and every series that touched it, ASCII has one dot a cell,
 * and a plot resized smaller or larger starts empty. Also the UTF-8 encoder the charts write with:
 * every code point decodes back to itself. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "braille.h"
#include "text.h"

static void dots_and_bits(void **state)
{
    (void)state;
    braille p = {0};
    /* the braille numbering: dot (x, y) of a cell is bit 1,2,4,64 down column 0 and 8,16,32,128 down column 1 */
    static const unsigned want[4][2] = {{0x01, 0x08}, {0x02, 0x10}, {0x04, 0x20}, {0x40, 0x80}};
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 2; x++) {
            assert_int_equal(braille_resize(&p, 3, 2, 0), 0);
            braille_dot(&p, 2 + x, 4 + y, 5); /* cell (1, 1) */
            assert_int_equal(braille_char(&p, 1, 1), 0x2800u + want[y][x]);
            assert_int_equal(braille_char(&p, 0, 0), 0);
            assert_int_equal(braille_owner(&p, 1, 1), 5);
            assert_int_equal(braille_owner(&p, 0, 1), -1);
        }
    braille_free(&p);
}

static void lines_sizes_and_series(void **state)
{
    (void)state;
    braille p = {0};
    for (int w = 1; w <= 40; w += 3)
        for (int h = 1; h <= 12; h += 2) {
            assert_int_equal(braille_resize(&p, w, h, 0), 0);
            assert_int_equal(p.dw, 2 * w);
            assert_int_equal(p.dh, 4 * h);
            braille_line(&p, 0, p.dh - 1, p.dw - 1, 0, 0); /* corner to corner: both corners' cells */
            braille_line(&p, 0, 0, p.dw - 1, 0, 1);        /* the top row of dots */
            assert_int_not_equal(braille_char(&p, 0, h - 1), 0);
            assert_int_not_equal(braille_char(&p, w - 1, 0), 0);
            assert_int_equal(braille_owner(&p, w - 1, 0), 1);
            assert_int_equal(braille_touched(&p, w - 1, 0), 3);
            if (h > 1)
                assert_int_equal(braille_touched(&p, 0, h - 1), 1);
            braille_dot(&p, -1, 0, 2); /* outside: nothing */
            braille_dot(&p, p.dw, p.dh, 2);
            for (int y = 0; y < h; y++)
                for (int x = 0; x < w; x++)
                    assert_false(braille_touched(&p, x, y) & 4);
        }
    /* ASCII: one dot a cell */
    assert_int_equal(braille_resize(&p, 10, 5, 1), 0);
    assert_int_equal(p.dw, 10);
    assert_int_equal(p.dh, 5);
    braille_dot(&p, 9, 4, 3);
    assert_int_equal(braille_owner(&p, 9, 4), 3);
    /* smaller again: empty */
    assert_int_equal(braille_resize(&p, 2, 2, 0), 0);
    for (int y = 0; y < 2; y++)
        for (int x = 0; x < 2; x++)
            assert_int_equal(braille_owner(&p, x, y), -1);
    braille_free(&p);
}

static void utf8_round_trip(void **state)
{
    (void)state;
    for (uint32_t cp = 1; cp <= 0x10FFFF; cp += cp < 0x3000 ? 1 : 97) {
        if (cp >= 0xD800 && cp < 0xE000)
            continue;
        char buf[5] = {0};
        size_t n = gw_utf8_put(cp, buf);
        uint32_t back;
        assert_int_equal(gw_utf8_next(buf, &back), n);
        assert_int_equal(back, cp);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(dots_and_bits), cmocka_unit_test(lines_sizes_and_series),
                                       cmocka_unit_test(utf8_round_trip)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
