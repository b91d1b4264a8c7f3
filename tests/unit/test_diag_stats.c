/* test_diag_stats.c - the diagnosis statistics: percentiles, mean and deviation, least squares
 * with R^2, median step, resampling, autocorrelation and its period peak, runs of a condition,
 * histograms and the Jensen-Shannon distance. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>
#include "diag_stats.h"

static void test_percentiles(void **st)
{
    (void)st;
    float v[100];
    for (int i = 0; i < 100; i++)
        v[99 - i] = (float)(i + 1);
    assert_float_equal(dstat_percentile(v, 100, 50), 50.5, 1e-9);
    assert_float_equal(dstat_percentile(v, 100, 5), 5.95, 1e-6);
    assert_float_equal(dstat_percentile(v, 100, 0), 1, 0);
    assert_float_equal(dstat_percentile(v, 100, 100), 100, 0);
    assert_true(isnan(dstat_percentile(v, 0, 50)));
    float one[1] = {7};
    assert_float_equal(dstat_percentile(one, 1, 95), 7, 0);
    const double ps[3] = {10, 50, 90};
    double q[3];
    dstat_percentiles(v, 100, ps, q, 3);
    assert_float_equal(q[0], 10.9, 1e-6);
    assert_float_equal(q[2], 90.1, 1e-6);
    double mean, sd;
    float w[4] = {2, 4, 4, 6};
    dstat_mean_sd(w, 4, &mean, &sd);
    assert_float_equal(mean, 4, 1e-12);
    assert_float_equal(sd, sqrt(8.0 / 3), 1e-9);
}

static void test_linfit(void **st)
{
    (void)st;
    double x[50];
    float y[50];
    for (int i = 0; i < 50; i++) {
        x[i] = i;
        y[i] = (float)(3 + 2 * i);
    }
    dstat_fit f;
    assert_int_equal(dstat_linfit(x, y, 50, &f), 0);
    assert_float_equal(f.slope, 2, 1e-6);
    assert_float_equal(f.intercept, 3, 1e-4);
    assert_float_equal(f.r2, 1, 1e-9);
    for (int i = 0; i < 50; i++)
        y[i] = (float)(i % 2 ? 10 : -10); /* no trend */
    assert_int_equal(dstat_linfit(x, y, 50, &f), 0);
    assert_true(f.r2 < 0.05);
    for (int i = 0; i < 50; i++)
        y[i] = 5;
    assert_int_equal(dstat_linfit(x, y, 50, &f), 0);
    assert_float_equal(f.slope, 0, 1e-12);
    assert_float_equal(f.r2, 0, 0);
    assert_int_equal(dstat_linfit(x, y, 2, &f), -1);
    for (int i = 0; i < 50; i++)
        x[i] = 1;
    assert_int_equal(dstat_linfit(x, y, 50, &f), -1);
}

static void test_step_and_resample(void **st)
{
    (void)st;
    uint64_t t[6] = {0, 1000, 2000, 3100, 4000, 9000};
    float scratch[6];
    assert_int_equal(dstat_median_step(t, 6, scratch), 1000);
    assert_int_equal(dstat_median_step(t, 1, scratch), 0);
    float v[6] = {1, 2, 3, 4, 5, 6}, out[10];
    assert_int_equal(dstat_resample(t, v, 6, 0, 1000, out, 10), 10);
    const float want[10] = {1, 2, 3, 3, 5, 5, 5, 5, 5, 6};
    for (int i = 0; i < 10; i++)
        assert_float_equal(out[i], want[i], 0);
}

static void square(float *x, int n, double period, double duty)
{
    for (int i = 0; i < n; i++)
        x[i] = fmod(i, period) < duty * period ? 95.0f : 5.0f;
}

static void test_autocorr_period(void **st)
{
    (void)st;
    enum { N = 600, LAG = 120 };
    float x[N];
    double acf[LAG + 1], lag, h;
    for (int i = 0; i < N; i++)
        x[i] = (float)sin(2 * M_PI * i / 20.0);
    dstat_autocorr(x, N, LAG, acf);
    assert_float_equal(acf[0], 1, 1e-9);
    assert_int_equal(dstat_acf_peak(acf, LAG, &lag, &h), 0);
    assert_float_equal(lag, 20, 0.3);
    assert_true(h > 0.9);
    const double periods[4] = {7.5, 15, 33, 50};
    for (int k = 0; k < 4; k++) {
        square(x, N, periods[k], 0.3);
        dstat_autocorr(x, N, LAG, acf);
        assert_int_equal(dstat_acf_peak(acf, LAG, &lag, &h), 0);
        assert_float_equal(lag, periods[k], 0.15 * periods[k]);
    }
    /* noise has no period worth the name */
    uint64_t s = 12345;
    for (int i = 0; i < N; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        x[i] = (float)(s >> 40) / (float)(1 << 24);
    }
    dstat_autocorr(x, N, LAG, acf);
    assert_true(dstat_acf_peak(acf, LAG, &lag, &h) != 0 || h < 0.3);
    /* a constant has none at all */
    for (int i = 0; i < N; i++)
        x[i] = 3;
    dstat_autocorr(x, N, LAG, acf);
    assert_float_equal(acf[5], 0, 0);
    assert_int_equal(dstat_acf_peak(acf, LAG, &lag, &h), -1);
}

static void test_runs(void **st)
{
    (void)st;
    uint64_t t[12];
    for (int i = 0; i < 12; i++)
        t[i] = (uint64_t)i * 1000000;
    t[11] = 30000000; /* a gap in the readings */
    const unsigned char mask[12] = {0, 1, 1, 1, 0, 1, 1, 0, 0, 0, 1, 1};
    dstat_run r[8];
    int n = dstat_runs(t, mask, 12, 1000000, 0, r, 8);
    assert_int_equal(n, 4);
    assert_int_equal(r[0].from_us, 1000000);
    assert_int_equal(r[0].to_us, 4000000);
    assert_int_equal(r[0].n, 3);
    assert_int_equal(r[2].from_us, 10000000);
    assert_int_equal(r[2].to_us, 11000000); /* the next reading is far: one step */
    assert_int_equal(r[3].from_us, 30000000);
    /* runs less than 1.5 s apart are joined */
    n = dstat_runs(t, mask, 12, 1000000, 1500000, r, 8);
    assert_int_equal(n, 3);
    assert_int_equal(r[0].to_us, 7000000);
    assert_int_equal(r[0].n, 5);
    assert_int_equal(dstat_runs(t, mask, 12, 1000000, 0, r, 1), 4); /* counts beyond max */
}

static void test_hist_js(void **st)
{
    (void)st;
    float a[4] = {95, 95, 95, 95}, b[4] = {5, 5, 5, 5}, c[4] = {15, 15, 15, 15};
    double ha[10], hb[10], hc[10];
    dstat_hist(a, 4, 0, 100, 10, ha);
    dstat_hist(b, 4, 0, 100, 10, hb);
    dstat_hist(c, 4, 0, 100, 10, hc);
    assert_float_equal(ha[9], 1, 1e-12);
    assert_float_equal(hc[1], 1, 1e-12);
    assert_float_equal(dstat_js_distance(ha, ha, 10), 0, 1e-9);
    assert_float_equal(dstat_js_distance(ha, hb, 10), 1, 1e-9);
    assert_float_equal(dstat_js_distance(hb, ha, 10), dstat_js_distance(ha, hb, 10), 1e-12);
    float d[2] = {10, 10}; /* between the first two bin centres: half in each */
    double hd[10];
    dstat_hist(d, 2, 0, 100, 10, hd);
    assert_float_equal(hd[0], 0.5, 1e-9);
    assert_float_equal(hd[1], 0.5, 1e-9);
    double js = dstat_js_distance(hb, hd, 10);
    assert_true(js > 0.3 && js < 0.8);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_percentiles),     cmocka_unit_test(test_linfit), cmocka_unit_test(test_step_and_resample),
        cmocka_unit_test(test_autocorr_period), cmocka_unit_test(test_runs),   cmocka_unit_test(test_hist_js),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
