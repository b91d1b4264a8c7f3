/* test_history_numtext.c - numbers in query answers (src/history/numtext.c): every double gets the
 * text printf's %.15g / %.16g / %.17g gives (the first that reads back), and that text reads back as
 * the same double; times read back as t_us / 1e6. Whole, scaled, noisy, tiny, huge, tied and
 * power-of-two values, and random bit patterns. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "numtext.h"
#include "numcode.h"

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* The text the previous code gave (and printf gives). */
static void reference(double v, char *out, size_t n)
{
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(out, n, "%.*g", prec, v);
        if (strtod(out, NULL) == v)
            return;
    }
}

static int checked;

static void check(double v)
{
    char want[64], got[NT_MAX + 8];
    reference(v, want, sizeof want);
    memset(got, 'x', sizeof got);
    size_t n = nt_double(v, got);
    if (n != strlen(got) || strcmp(got, want) != 0)
        fail_msg("%.17g (%016llx): got '%s', want '%s'", v, (unsigned long long)num_bits(v), got, want);
    if (isfinite(v) && num_bits(strtod(got, NULL)) != num_bits(v) && v != 0)
        fail_msg("%s does not read back as %.17g", got, v);
    checked++;
}

static void test_values(void **st)
{
    (void)st;
    const double fixed[] = {0.0,
                            -0.0,
                            1,
                            -1,
                            0.1,
                            0.2,
                            0.1 + 0.2,
                            671.584,
                            1e-4,
                            9.9999e-5,
                            1e15,
                            1e15 - 1,
                            999999999999999.9,
                            123456789012345.6,
                            0.5,
                            1.5,
                            2.5,
                            1.0000152587890625,
                            1e-5,
                            1.25e-4,
                            3.0517578125e-05,
                            1282.539999961853,
                            98.22428121063979,
                            5.715805885923755,
                            2.8579029429618776,
                            21431.07646198973,
                            4503599627370496.0,
                            4503599627370497.0,
                            9007199254740993.0,
                            1e300,
                            -1e-300,
                            5e-324,
                            INFINITY,
                            -INFINITY,
                            0.30000000000000004,
                            100,
                            99.999999999999986,
                            9.9999999999999982};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        check(fixed[i]);
    for (int i = 0; i < 200000; i++) {
        uint64_t r = next();
        double k = (double)(r % 100000000000ull);
        check(k / 1000); /* watts from milliwatts */
        check(k / 100);
        check(k / 10);
        check(-k / 1000);
        check((double)(r % 1000000000) / 1048576);             /* MiB from bytes */
        check(num_double(r));                                  /* any bit pattern */
        check(ldexp((double)(r >> 11), -(int)(next() % 110))); /* noise at every magnitude */
        check(ldexp(1, (int)(next() % 120) - 60));             /* powers of two: the narrower gap below */
        check(nextafter(ldexp(1, (int)(next() % 120) - 60), 0));
        check(ldexp((double)(next() % 131072), -16)); /* short dyadic decimals: ties at 16-17 digits */
    }
    assert_true(checked > 2000000);
}

static void test_seconds(void **st)
{
    (void)st;
    char got[NT_MAX];
    const int64_t t[] = {0,
                         1,
                         999999,
                         1000000,
                         1764673200000000ll,
                         1764673200123456ll,
                         1764673200100000ll,
                         1764673200000001ll,
                         -1500000,
                         60000000,
                         500000};
    const char *want[] = {
        "0",    "0.000001", "0.999999", "1", "1764673200", "1764673200.123456", "1764673200.1", "1764673200.000001",
        "-1.5", "60",       "0.5"};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        nt_seconds(t[i], got);
        assert_string_equal(got, want[i]);
    }
    for (int i = 0; i < 1000000; i++) {
        int64_t us = (int64_t)(next() % 4000000000000000ull);
        nt_seconds(us, got);
        double back = strtod(got, NULL), want_d = (double)us / 1e6;
        if (num_bits(back) != num_bits(want_d))
            fail_msg("%lld us: '%s' reads back as %.17g, not %.17g", (long long)us, got, back, want_d);
    }
    /* a series of times: the kept text counts up (carries, a new digit), jumps and repeats */
    nt_clock c = {0};
    int64_t us = 9999990ll * 1000000 - 3;
    char again[NT_MAX];
    for (int i = 0; i < 300000; i++) {
        us += next() % 5 == 0 ? (int64_t)(next() % 5000000) - 1000000 : 1000000 + (int64_t)(next() % 3) - 1;
        if (us < 0)
            us = 0;
        nt_seconds_next(&c, us, got);
        nt_seconds(us, again);
        if (strcmp(got, again) != 0)
            fail_msg("%lld us: '%s' counted, '%s' written", (long long)us, got, again);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_seconds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
