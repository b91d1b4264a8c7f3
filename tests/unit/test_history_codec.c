/* test_history_codec.c - the chunk codec round-trips values and timestamps bit for bit. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "codec.h"

static uint64_t rng = 88172645463325252ull;
static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
static double uniform(void)
{
    return (double)(next_rand() >> 11) / 9007199254740992.0;
}

/* Encodes then decodes a column and checks every present value bit for bit. Returns the size. */
static size_t roundtrip(const double *v, const uint8_t *pres, size_t n)
{
    gw_buf b = {0};
    codec_put_column(&b, v, pres, n);
    assert_false(b.oom);
    double *out = calloc(n + 1, sizeof *out);
    uint8_t *op = calloc(n + 1, 1);
    byte_cursor rd = {(const uint8_t *)b.data, b.len, 0, 0};
    assert_int_equal(codec_get_column(&rd, out, op, n), 0);
    assert_int_equal(rd.pos, b.len);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(op[i] != 0, pres ? pres[i] != 0 : 1);
        if (op[i])
            assert_memory_equal(&out[i], &v[i], sizeof(double));
    }
    size_t len = b.len;
    free(out);
    free(op);
    buf_release(&b);
    return len;
}

static void test_constant(void **state)
{
    (void)state;
    double v[3600];
    for (int i = 0; i < 3600; i++)
        v[i] = 81559.0;
    size_t len = roundtrip(v, NULL, 3600);
    assert_true(len <= 12); /* mode, presence, 8-byte value */
}

static void test_integers_noisy(void **state)
{
    (void)state;
    double v[3600];
    for (int i = 0; i < 3600; i++)
        v[i] = 95 + (double)(next_rand() % 5);
    size_t len = roundtrip(v, NULL, 3600);
    assert_true(len < 3600); /* < 1 byte per value for a 0..4 spread */
}

static void test_counter(void **state)
{
    (void)state;
    double v[1000];
    double e = 123456789;
    for (int i = 0; i < 1000; i++) {
        e += 650000 + (double)(next_rand() % 2000);
        v[i] = e;
    }
    roundtrip(v, NULL, 1000);
}

static void test_decimals(void **state)
{
    (void)state;
    double v[1000];
    for (int i = 0; i < 1000; i++)
        v[i] = (double)(600000 + (int)(next_rand() % 50000)) / 1000.0;
    size_t len = roundtrip(v, NULL, 1000);
    assert_true(len < 1000 * 3);
}

static void test_random_doubles(void **state)
{
    (void)state;
    double v[1000];
    for (int i = 0; i < 1000; i++)
        v[i] = (uniform() - 0.5) * pow(10, (double)(next_rand() % 40) - 20);
    roundtrip(v, NULL, 1000);
    for (int i = 0; i < 1000; i++) {
        uint64_t b = next_rand();
        memcpy(&v[i], &b, 8);
        if (isnan(v[i]))
            v[i] = 1.5;
    }
    roundtrip(v, NULL, 1000);
}

static void test_special_values(void **state)
{
    (void)state;
    double v[] = {0.0, -0.0, 1e300, -1e-300, INFINITY, -INFINITY, 9007199254740993.0, 1.0, 0.1, 0.3};
    roundtrip(v, NULL, sizeof v / sizeof v[0]);
    double big[] = {1.8446744073709552e19, 0, 1.8446744073709552e19, 4.0};
    roundtrip(big, NULL, 4);
    double one[] = {42.0};
    roundtrip(one, NULL, 1);
}

/* Mode of the column codec_put_column writes for v. */
static int mode_of(const double *v, size_t n)
{
    gw_buf b = {0};
    codec_put_column(&b, v, NULL, n);
    int mode = codec_column_mode((const uint8_t *)b.data);
    buf_release(&b);
    return mode;
}

static void test_binary_scale_and_steps(void **state)
{
    (void)state;
    double v[600];
    for (int i = 0; i < 600; i++) /* MiB from bytes */
        v[i] = (double)(1344840663 + (int64_t)(next_rand() % 20000) - 10000) / 1048576;
    assert_int_equal(mode_of(v, 600), COL_SCALED);
    size_t bin = roundtrip(v, NULL, 600);
    assert_true(bin < 600 * 3);
    for (int i = 0; i < 600; i++) /* clocks in 15 MHz steps, some below the first */
        v[i] = 1755 - 15.0 * (double)(next_rand() % 40);
    assert_int_equal(mode_of(v, 600), COL_SCALED);
    size_t steps = roundtrip(v, NULL, 600);
    for (int i = 0; i < 600; i++)
        v[i] = 1755 - (double)(next_rand() % 600);
    assert_int_equal(mode_of(v, 600), COL_INT);
    assert_true(steps < roundtrip(v, NULL, 600));
    for (int i = 0; i < 600; i++) /* thousandths in steps of 0.005, negative too */
        v[i] = (double)(5 * ((int64_t)(next_rand() % 2000) - 1000)) / 1000;
    assert_int_equal(mode_of(v, 600), COL_SCALED);
    roundtrip(v, NULL, 600);
}

static void test_noisy_doubles_bits(void **state)
{
    (void)state;
    double v[600];
    for (int i = 0; i < 600; i++) /* a rate with full-precision noise around 62 */
        v[i] = 62 + 4 * (uniform() - 0.5);
    int mode = mode_of(v, 600);
    assert_true(mode == COL_BITS || mode == COL_XOR);
    size_t len = roundtrip(v, NULL, 600);
    assert_true(len < 600 * 6.5); /* Gorilla alone: ~6.7 bytes a value */
    for (int i = 0; i < 600; i++) /* signs and magnitudes all over: the bit patterns' deltas wrap */
        v[i] = (uniform() - 0.5) * pow(10, (double)(next_rand() % 40) - 20);
    roundtrip(v, NULL, 600);
}

static void test_absent_gaps(void **state)
{
    (void)state;
    double v[500];
    uint8_t p[500];
    for (int i = 0; i < 500; i++) {
        p[i] = (i / 37) % 3 != 1;
        v[i] = p[i] ? 40 + i % 7 : 0;
    }
    roundtrip(v, p, 500);
    memset(p, 0, sizeof p);
    assert_true(roundtrip(v, p, 500) <= 1); /* all absent: one byte */
    p[499] = 1;
    roundtrip(v, p, 500);
}

static void test_times(void **state)
{
    (void)state;
    int64_t t[3600], out[3600];
    int64_t base = 1764680000000000ll;
    for (int i = 0; i < 3600; i++)
        t[i] = base + (int64_t)i * 1000000;
    gw_buf b = {0};
    codec_put_times(&b, t, 3600);
    assert_true(b.len < 32); /* regular 1 Hz: runs of zero delta-of-deltas */
    byte_cursor rd = {(const uint8_t *)b.data, b.len, 0, 0};
    size_t n = 0;
    assert_int_equal(codec_peek_count(&rd), 3600);
    assert_int_equal(codec_get_times(&rd, out, 3600, &n), 0);
    assert_int_equal(n, 3600);
    assert_memory_equal(t, out, sizeof t);
    /* jittered, with a gap and a step backwards */
    for (int i = 0; i < 3600; i++)
        t[i] = base + (int64_t)i * 1000000 + (int64_t)(next_rand() % 3000);
    t[100] += 3600000000ll;
    t[200] = t[199] - 5;
    buf_clear(&b);
    codec_put_times(&b, t, 3600);
    rd = (byte_cursor){(const uint8_t *)b.data, b.len, 0, 0};
    assert_int_equal(codec_get_times(&rd, out, 3600, &n), 0);
    assert_memory_equal(t, out, sizeof t);
    /* too many for the caller's array: refused */
    rd = (byte_cursor){(const uint8_t *)b.data, b.len, 0, 0};
    assert_int_equal(codec_get_times(&rd, out, 10, &n), -1);
    buf_release(&b);
}

static void test_corrupt(void **state)
{
    (void)state;
    double v[200];
    for (int i = 0; i < 200; i++)
        v[i] = uniform();
    gw_buf b = {0};
    codec_put_column(&b, v, NULL, 200);
    double out[200];
    for (size_t cut = 0; cut < b.len; cut += 7) {
        byte_cursor rd = {(const uint8_t *)b.data, cut, 0, 0};
        assert_int_equal(codec_get_column(&rd, out, NULL, 200), -1);
    }
    for (int i = 0; i < 200; i++) { /* random bytes never crash */
        uint8_t junk[64];
        for (int j = 0; j < 64; j++)
            junk[j] = (uint8_t)next_rand();
        byte_cursor rd = {junk, sizeof junk, 0, 0};
        codec_get_column(&rd, out, NULL, 200);
    }
    buf_release(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_constant),
        cmocka_unit_test(test_integers_noisy),
        cmocka_unit_test(test_counter),
        cmocka_unit_test(test_decimals),
        cmocka_unit_test(test_random_doubles),
        cmocka_unit_test(test_special_values),
        cmocka_unit_test(test_absent_gaps),
        cmocka_unit_test(test_times),
        cmocka_unit_test(test_corrupt),
        cmocka_unit_test(test_binary_scale_and_steps),
        cmocka_unit_test(test_noisy_doubles_bits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
