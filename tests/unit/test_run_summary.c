/* test_run_summary.c - a finished job's numbers (src/run/summary.c) from known readings: energy from the
 * counter and from integrated power, utilization average and p95, throttle time, XIDs, cost and CO2, and
 * how the GPU's idle gaps line up with the job's steps (between steps: the input pipeline; inside them). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "summary.h"

#define T0 1700000000000000ll
#define SECONDS 120

/* One GPU read every second: busy at 95 % except one idle second in every ten (t % 10 == 0), 500 W
 * busy / 100 W idle, with an energy counter when counter is set, power-capped from 60 s on, an XID at 30 s. */
static void readings(run_data *d, int counter)
{
    assert_int_equal(run_data_init(d), 0);
    run_gpu *g = run_data_gpu(d, 0, NULL);
    gpu_sample *s = calloc(1, sizeof *s);
    double energy_mj = 1e6;
    for (int t = 0; t <= SECONDS; t++) {
        memset(s, 0, sizeof *s);
        s->t_us = (uint64_t)(T0 + (int64_t)t * 1000000);
        int idle = t % 10 == 0;
        sample_set(s, M_UTIL_GPU, idle ? 0 : 95);
        sample_set(s, M_POWER_DRAW, idle ? 100 : 500);
        sample_set(s, M_POWER_ENFORCED_LIMIT, 700);
        sample_set(s, M_MEM_USED, 1000 + t);
        sample_set(s, M_MEM_TOTAL, 81559);
        sample_set(s, M_CER_ACTIVE, t >= 60 ? 0x4 : 0);
        sample_set(s, M_XID_COUNT, t >= 30 ? 1 : 0);
        sample_set(s, M_XID_LAST, t >= 30 ? 79 : 0);
        if (counter)
            sample_set(s, M_ENERGY, energy_mj);
        energy_mj += 1000 * 300; /* 300 J per second, whatever the power says: the counter wins */
        run_data_add_sample(d, g, NULL, s, -1);
    }
    free(s);
}

static run_meta meta(void)
{
    run_meta m;
    memset(&m, 0, sizeof m);
    snprintf(m.id, sizeof m.id, "test");
    m.t_start_us = T0;
    m.t_end_us = T0 + SECONDS * 1000000ll;
    m.interval_s = 1;
    m.price_per_kwh = 0.3;
    m.carbon_g_per_kwh = NAN;
    return m;
}

static void test_energy_and_figures(void **state)
{
    (void)state;
    run_data d;
    run_summary *s = malloc(sizeof *s);
    run_meta m = meta();
    readings(&d, 1);
    assert_int_equal(summary_compute(s, &m, &d, NULL), 0);
    assert_true(fabs(s->g[0].energy_j - 300.0 * SECONDS) < 1e-6);
    assert_int_equal(s->g[0].energy_from_counter, 1);
    assert_true(fabs(s->cost - 300.0 * SECONDS / 3.6e6 * 0.3) < 1e-12);
    assert_true(isnan(s->co2_g));
    /* 13 idle readings of 121 */
    assert_true(fabs(s->g[0].util_avg - 95.0 * 108 / 121) < 1e-9);
    assert_true(fabs(s->g[0].util_p95 - 95) < 1e-9);
    assert_true(fabs(s->g[0].power_capped_s - 60) < 1e-9);
    assert_true(fabs(s->g[0].thermal_s) < 1e-9);
    assert_int_equal(s->g[0].nxids, 1);
    assert_int_equal(s->g[0].xid_code[0], 79);
    assert_true(fabs(s->g[0].mem_peak_mib - (1000 + SECONDS)) < 1e-3);
    summary_free(s);
    run_data_free(&d);
    /* without a counter: the power readings integrated (trapezoids) */
    readings(&d, 0);
    assert_int_equal(summary_compute(s, &m, &d, NULL), 0);
    double want = 0;
    for (int t = 0; t < SECONDS; t++)
        want += ((t % 10 == 0 ? 100 : 500) + ((t + 1) % 10 == 0 ? 100 : 500)) / 2.0;
    assert_true(fabs(s->g[0].energy_j - want) < 1e-6);
    assert_int_equal(s->g[0].energy_from_counter, 0);
    gw_buf b;
    buf_init(&b);
    summary_text(s, &d, &b);
    assert_non_null(strstr(b.data, "power integrated"));
    assert_non_null(strstr(b.data, "XIDs: 79"));
    buf_release(&b);
    summary_free(s);
    run_data_free(&d);
    free(s);
}

/* Steps of 10 s whose lines arrive at offset within each 10 s period. */
static step_parser *steps_at(double offset)
{
    char err[128];
    step_parser *p = steps_new(NULL, err, sizeof err);
    for (int k = 1; k * 10 + offset < SECONDS; k++) {
        char line[64];
        snprintf(line, sizeof line, "step %d | loss 1.0\n", k);
        steps_feed(p, 0, T0 + (int64_t)((k * 10 + offset) * 1e6), line, strlen(line));
    }
    return p;
}

static void test_gaps_and_steps(void **state)
{
    (void)state;
    run_data d;
    run_summary *s = malloc(sizeof *s);
    run_meta m = meta();
    readings(&d, 1);
    step_parser *between = steps_at(0.2); /* a step ends as the GPU idles: the next batch is awaited */
    assert_int_equal(summary_compute(s, &m, &d, between), 0);
    assert_int_equal(s->steps.nsteps, 10);
    assert_true(fabs(s->steps.p50_s - 10) < 1e-9);
    assert_int_equal(s->gaps.valid, 1);
    assert_true(s->gaps.ngaps >= 8); /* those while steps were timed */
    assert_true(s->gaps.share > 0.9);
    assert_true(s->gaps.chance < 0.3);
    assert_non_null(strstr(s->gaps.verdict, "input pipeline"));
    summary_free(s);
    steps_free(between);
    step_parser *inside = steps_at(5.0); /* steps end mid-way through busy time */
    assert_int_equal(summary_compute(s, &m, &d, inside), 0);
    assert_int_equal(s->gaps.valid, 1);
    assert_true(s->gaps.share < 0.1);
    assert_non_null(strstr(s->gaps.verdict, "inside the steps"));
    summary_free(s);
    steps_free(inside);
    run_data_free(&d);
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_energy_and_figures),
        cmocka_unit_test(test_gaps_and_steps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
