/* numtext.c - numbers as text for query answers (see numtext.h).
 *
 * A double v = m * 2^e (m the 53-bit significand) with 1e-4 <= |v| < 1e15 is what /api/v1/query_range
 * sends; its p-digit decimal D * 10^-k (k = p - 1 - exponent) is found in exact integer arithmetic:
 * v * 10^k = m * 5^k * 2^(k + e), at most 2^116 for these magnitudes, rounded half to even as printf
 * rounds. D reads back as v when it lies within half a gap of v (a quarter below a power of two),
 * which is again an exact comparison of integers: |D * 2^s - m * 5^k| against 5^k / 2, s = -(k + e).
 * Whole numbers are written as integers; anything else (other magnitudes, infinities) goes through
 * snprintf and strtod as before. */
#include "numtext.h"
#include "numcode.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__extension__ typedef unsigned __int128 u128;

#define MAX_K 27 /* 5^27 * 2^53 < 2^117 */

static const uint64_t pow10_u64[20] = {1ull,
                                       10ull,
                                       100ull,
                                       1000ull,
                                       10000ull,
                                       100000ull,
                                       1000000ull,
                                       10000000ull,
                                       100000000ull,
                                       1000000000ull,
                                       10000000000ull,
                                       100000000000ull,
                                       1000000000000ull,
                                       10000000000000ull,
                                       100000000000000ull,
                                       1000000000000000ull,
                                       10000000000000000ull,
                                       100000000000000000ull,
                                       1000000000000000000ull,
                                       10000000000000000000ull};

static const uint64_t pow5_u64[MAX_K + 1] = {
    1ull,
    5ull,
    25ull,
    125ull,
    625ull,
    3125ull,
    15625ull,
    78125ull,
    390625ull,
    1953125ull,
    9765625ull,
    48828125ull,
    244140625ull,
    1220703125ull,
    6103515625ull,
    30517578125ull,
    152587890625ull,
    762939453125ull,
    3814697265625ull,
    19073486328125ull,
    95367431640625ull,
    476837158203125ull,
    2384185791015625ull,
    11920928955078125ull,
    59604644775390625ull,
    298023223876953125ull,
    1490116119384765625ull,
    7450580596923828125ull,
};

static const char digit_pairs[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                     "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                     "8081828384858687888990919293949596979899";

/* The n decimal digits of u (leading zeros kept) at p. */
static void put_digits(char *p, uint64_t u, int n)
{
    while (n > 9) { /* 64-bit divisions only while u may not fit 32 bits */
        int r = (int)(u % 100);
        u /= 100;
        n -= 2;
        p[n] = digit_pairs[2 * r];
        p[n + 1] = digit_pairs[2 * r + 1];
    }
    uint32_t w = (uint32_t)u;
    while (n >= 2) {
        int r = (int)(w % 100);
        w /= 100;
        n -= 2;
        p[n] = digit_pairs[2 * r];
        p[n + 1] = digit_pairs[2 * r + 1];
    }
    if (n)
        p[0] = (char)('0' + w % 10);
}

static int digit_count(uint64_t u)
{
    int t = ((64 - __builtin_clzll(u | 1)) * 1233) >> 12; /* bits * log10(2): the digits, or one more */
    return u ? t + 1 - (u < pow10_u64[t]) : 1;
}

/* Decimal digits of u (at least one) at p; returns how many. */
static size_t put_u64(char *p, uint64_t u)
{
    int n = digit_count(u);
    put_digits(p, u, n);
    return (size_t)n;
}

/* floor(log10(a)) for 1e-5 <= a < 1e16, from the binary exponent and a table of powers of ten
 * (off by one at worst next to a power of ten, which the caller's check corrects). */
static int decimal_exponent(double a, int binary_exp)
{
    static const double p10[] = {1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1e0,  1e1,  1e2,  1e3,  1e4,  1e5,
                                 1e6,  1e7,  1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16};
    int x = (binary_exp * 1233) >> 12; /* binary_exp * log10(2), rounded down */
    if (x < -5)
        x = -5;
    if (x > 15)
        x = 15;
    while (x < 15 && a >= p10[x + 1 + 5])
        x++;
    while (x > -5 && a < p10[x + 5])
        x--;
    return x;
}

static size_t slow(double v, char *out)
{
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(out, NT_MAX, "%.*g", prec, v);
        if (strtod(out, NULL) == v)
            break;
    }
    return strlen(out);
}

/* v * 10^k rounded half to even, v = m * 2^e; -1 when it does not fit. */
static int scaled(uint64_t m, int e, int k, uint64_t *d)
{
    if (k < 0 || k > MAX_K)
        return -1;
    u128 n = (u128)m * pow5_u64[k];
    int s = -(k + e);
    if (s <= 0) {
        if (-s > 10 || n > ((u128)1 << 63) >> -s)
            return -1;
        *d = (uint64_t)(n << -s);
        return 0;
    }
    if (s >= 120)
        return -1;
    u128 q = n >> s, rem = n - (q << s), half = (u128)1 << (s - 1);
    if (rem > half || (rem == half && (q & 1)))
        q++;
    if (q >> 63)
        return -1;
    *d = (uint64_t)q;
    return 0;
}

/* 1 when D * 10^-k reads back as v = m * 2^e (m normalized, the upper half-gap 2^(e-1)). */
static int reads_back(uint64_t m, int e, uint64_t d, int k)
{
    int s = -(k + e);
    if (s <= 0)
        return 1; /* v * 10^k is the integer d itself */
    u128 five = pow5_u64[k], n = (u128)m * five, x = (u128)d << s;
    int even = (m & 1) == 0;
    if (x >= n) {
        u128 diff = x - n;
        return 2 * diff < five || (2 * diff == five && even);
    }
    u128 diff = n - x;
    if (m == (1ull << 52)) /* the gap below a power of two is half the gap above */
        return 4 * diff <= five;
    return 2 * diff < five || (2 * diff == five && even);
}

/* The fixed notation %g uses for exponent x (-4 <= x < prec) of the prec digits d, trailing zeros
 * dropped (and the point when no fraction is left). */
static size_t put_fixed(char *p, uint64_t d, int prec, int x)
{
    int keep = x >= 0 ? x + 1 : 1; /* the integer part's digits are never dropped (one, below 1) */
    int nd = prec;
    while (nd - 4 >= keep && d % 10000 == 0) {
        d /= 10000;
        nd -= 4;
    }
    while (nd - 1 >= keep && d % 10 == 0) {
        d /= 10;
        nd--;
    }
    size_t n = 0;
    if (x < 0) {
        p[n++] = '0';
        p[n++] = '.';
        for (int i = -1; i > x; i--)
            p[n++] = '0';
        put_digits(p + n, d, nd);
        return n + (size_t)nd;
    }
    put_digits(p, d, nd);
    if (nd == x + 1)
        return (size_t)nd;
    for (int i = nd; i > x + 1; i--) /* the point after the integer part (a few bytes: no call) */
        p[i] = p[i - 1];
    p[x + 1] = '.';
    return (size_t)nd + 1;
}

/* a = k / 10^6 exactly (whole numbers, tenths... watts from milliwatts, rates kept to 0.001): the
 * digits of k with a point, trailing zeros dropped; 0 when a is not such a number. printf's %.15g
 * gives this text for such an a: the decimal has at most 15 digits and reads back as a. */
static size_t put_scaled(char *p, double a)
{
    double s = a * 1e6;
    if (s >= 1e15)
        return 0;
    uint64_t k = (uint64_t)(s + 0.5);
    if ((double)k / 1e6 != a)
        return 0;
    int nd = digit_count(k), x = nd - 7; /* exponent of the leading digit */
    if (x < -4)
        return 0;
    return put_fixed(p, k, nd, x);
}

size_t nt_double(double v, char *out)
{
    double a = fabs(v);
    if (v == 0) {
        size_t n = 0;
        if (signbit(v))
            out[n++] = '-';
        out[n++] = '0';
        out[n] = 0;
        return n;
    }
    if (!(a >= 1e-4 && a < 1e15))
        return slow(v, out);
    size_t n = 0;
    if (v < 0)
        out[n++] = '-';
    size_t fast = put_scaled(out + n, a);
    if (fast) {
        out[n + fast] = 0;
        return n + fast;
    }
    uint64_t bits = num_bits(a);
    uint64_t m = (bits & ((1ull << 52) - 1)) | (1ull << 52);
    int e = (int)(bits >> 52) - 1075;
    int x0 = decimal_exponent(a, (int)(bits >> 52) - 1023);
    for (int prec = 15; prec <= 17; prec++) {
        int x = x0;
        uint64_t d = 0;
        int tries = 0;
        for (; tries < 3; tries++) { /* the exponent of the rounded value, as %g takes it */
            if (scaled(m, e, prec - 1 - x, &d) != 0)
                return slow(v, out);
            if (d >= pow10_u64[prec])
                x++;
            else if (d < pow10_u64[prec - 1])
                x--;
            else
                break;
        }
        if (tries == 3 || x < -4 || x >= prec)
            return slow(v, out);
        if (prec == 17 || reads_back(m, e, d, prec - 1 - x)) {
            n += put_fixed(out + n, d, prec, x);
            out[n] = 0;
            return n;
        }
    }
    return slow(v, out);
}

size_t nt_seconds(int64_t t_us, char *out)
{
    size_t n = 0;
    uint64_t u = (uint64_t)t_us;
    if (t_us < 0) {
        out[n++] = '-';
        u = 0 - u;
    }
    n += put_u64(out + n, u / 1000000u);
    uint32_t frac = (uint32_t)(u % 1000000u);
    if (frac) {
        out[n++] = '.';
        int digits = 6;
        while (frac % 10 == 0) {
            frac /= 10;
            digits--;
        }
        put_digits(out + n, frac, digits);
        n += (size_t)digits;
    }
    out[n] = 0;
    return n;
}

size_t nt_seconds_next(nt_clock *c, int64_t t_us, char *out)
{
    if (t_us < 0)
        return nt_seconds(t_us, out);
    int64_t sec = t_us / 1000000;
    if (!c->len || sec < c->sec || sec > c->sec + 1) {
        c->len = put_u64(c->text, (uint64_t)sec);
    } else if (sec == c->sec + 1) { /* count up in text */
        size_t i = c->len;
        while (i > 0 && c->text[i - 1] == '9')
            c->text[--i] = '0';
        if (i == 0) {
            memmove(c->text + 1, c->text, c->len++);
            c->text[0] = '1';
        } else {
            c->text[i - 1]++;
        }
    }
    c->sec = sec;
    memcpy(out, c->text, sizeof c->text); /* a fixed size: no call (out has NT_MAX bytes) */
    size_t n = c->len;
    uint32_t frac = (uint32_t)(t_us % 1000000);
    if (frac) {
        out[n++] = '.';
        int digits = 6;
        while (frac % 10 == 0) {
            frac /= 10;
            digits--;
        }
        put_digits(out + n, frac, digits);
        n += (size_t)digits;
    }
    out[n] = 0;
    return n;
}
