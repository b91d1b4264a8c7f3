/* test_diag_sliding.c - the agent diagnoses a sliding window again and again (diag_run_from with the
 * previous report): a measure that sits near a severity threshold (an idle share near 50 %, a p95
 * near 40 %) must keep its severity from run to run instead of flapping with the noise of each
 * window, and must still change once it is clearly past the threshold. Windows are drawn afresh
 * for each run (independent noise and cycle jitter), which moves the estimates more than an agent's
 * overlapping windows do. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>
#include "test_diag_synth.h"

#define VARIANTS 6
#define RUNS 10

/* One run: spec sp drawn for 30 minutes + k minutes, the first k minutes trimmed; prev as given. */
static void run_window(const syn_spec *base, int k, const diag_report *prev, diag_report *out)
{
    syn_spec sp = *base;
    sp.seed = base->seed * 31 + (uint64_t)k;
    sp.duration_s = 1800 + 60.0 * k;
    diag_window *w = syn_build(&sp);
    diag_window_trim(w, SYN_T0 + (uint64_t)k * 60 * 1000000);
    assert_true(diag_run_from(w, NULL, prev, out) >= 0);
    diag_window_free(w);
}

/* Runs RUNS sliding windows with and without the previous report; returns the severity changes of
 * `detector` between consecutive runs with it (*flips_without: without it), and counts in *sides
 * the runs whose measure `key` fell on each side of `threshold` (sides[0] below, sides[1] at or above). */
static int slide(const syn_spec *base, const char *detector, const char *key, double threshold, int *flips_without,
                 int sides[2])
{
    diag_report prev, cur, alone;
    diag_report_init(&prev);
    diag_report_init(&cur);
    diag_report_init(&alone);
    int flips = 0;
    diag_severity last[SYN_MAX_GPUS], last_alone[SYN_MAX_GPUS];
    for (int k = 0; k < RUNS; k++) {
        run_window(base, k, k ? &prev : NULL, &cur);
        run_window(base, k, NULL, &alone);
        for (int g = 0; g < base->n_gpus; g++) {
            const diag_finding *f = syn_find(&cur, detector, g), *fa = syn_find(&alone, detector, g);
            if (!f || !fa) {
                syn_dump("sliding window without its finding", base, &cur);
                fail();
            }
            sides[syn_ev(f, key) >= threshold]++;
            if (k && f->severity != last[g])
                flips++;
            if (k && fa->severity != last_alone[g])
                (*flips_without)++;
            last[g] = f->severity;
            last_alone[g] = fa->severity;
        }
        diag_report tmp = prev;
        prev = cur;
        cur = tmp;
    }
    diag_report_free(&prev);
    diag_report_free(&cur);
    diag_report_free(&alone);
    return flips;
}

/* A data loader that keeps the GPU idle about half of each cycle. */
static void stall_half(uint64_t *rng, syn_spec *sp, double duty)
{
    syn_spec_init(sp, rng, syn_int(rng, 1, 4), 1800);
    double p = syn_range(rng, fmax(4.0, 4 * sp->dt_s), 40);
    for (int i = 0; i < sp->n_gpus; i++) {
        syn_gpu *g = &sp->gpu[i];
        g->noise = syn_range(rng, 0.5, 2.5);
        syn_seg *s = syn_add_seg(g, 0, 1e9, PAT_SQUARE, syn_range(rng, 85, 99), syn_range(rng, 0, 3));
        s->period_s = p;
        s->duty = duty;
        s->jitter = syn_range(rng, 0.02, 0.08);
        syn_add_proc(g, 15100 + (unsigned)i, 0, 1e9, "carol", floor(SYN_MODELS[g->model].mem_total * 0.4));
    }
}

static void test_input_stall_severity(void **st)
{
    (void)st;
    uint64_t rng = 71;
    int flips = 0, flips_without = 0, sides[2] = {0, 0};
    for (int v = 0; v < syn_variants(VARIANTS); v++) {
        syn_spec sp;
        stall_half(&rng, &sp, syn_range(&rng, 0.48, 0.52));
        flips += slide(&sp, "input_stall", "idle_share", 0.5, &flips_without, sides);
    }
    fprintf(stderr,
            "input_stall near 50 %% idle: %d runs below, %d at or above; severity changes %d with the "
            "previous report, %d without\n",
            sides[0], sides[1], flips, flips_without);
    assert_true(sides[0] > 0 && sides[1] > 0); /* the estimates did straddle the threshold */
    assert_int_equal(flips, 0);
}

/* Clear of the threshold by more than the margin, the severity follows the measure whatever the
 * previous report said. */
static void test_input_stall_clear(void **st)
{
    (void)st;
    uint64_t rng = 72;
    for (int v = 0; v < syn_variants(VARIANTS); v++) {
        syn_spec crit, warn;
        stall_half(&rng, &crit, 0.3); /* idle ~70 %: critical */
        stall_half(&rng, &warn, 0.7); /* idle ~30 %: warning */
        diag_report a, b, c;
        diag_report_init(&a);
        diag_report_init(&b);
        diag_report_init(&c);
        run_window(&warn, 0, NULL, &a);
        run_window(&crit, 1, &a, &b); /* previous: warning; now clearly critical */
        run_window(&warn, 2, &b, &c); /* previous: critical; now clearly a warning */
        for (int g = 0; g < crit.n_gpus && g < warn.n_gpus; g++) {
            assert_non_null(syn_find(&b, "input_stall", g));
            assert_int_equal(syn_find(&b, "input_stall", g)->severity, DIAG_CRITICAL);
            assert_non_null(syn_find(&c, "input_stall", g));
            assert_int_equal(syn_find(&c, "input_stall", g)->severity, DIAG_WARNING);
        }
        diag_report_free(&a);
        diag_report_free(&b);
        diag_report_free(&c);
    }
}

/* A job held steadily under-used with its p95 utilization near 40 % (warning below, info above). */
static void test_low_util_severity(void **st)
{
    (void)st;
    uint64_t rng = 73;
    int flips = 0, flips_without = 0, sides[2] = {0, 0};
    for (int v = 0; v < syn_variants(VARIANTS); v++) {
        syn_spec sp;
        syn_spec_init(&sp, &rng, syn_int(&rng, 1, 3), 1800);
        for (int i = 0; i < sp.n_gpus; i++) {
            syn_gpu *g = &sp.gpu[i];
            g->noise = syn_range(&rng, 2, 4);
            syn_add_seg(g, 0, 1e9, PAT_STEADY, 40 - 1.645 * g->noise + syn_range(&rng, -0.8, 0.8), 0);
            syn_add_proc(g, 16100 + (unsigned)i, 0, 1e9, "dave", floor(SYN_MODELS[g->model].mem_total * 0.3));
        }
        flips += slide(&sp, "low_util", "p95_util", 40, &flips_without, sides);
    }
    fprintf(stderr,
            "low_util near p95 40 %%: %d runs below, %d at or above; severity changes %d with the previous "
            "report, %d without\n",
            sides[0], sides[1], flips, flips_without);
    assert_true(sides[0] > 0 && sides[1] > 0);
    assert_int_equal(flips, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_input_stall_severity),
        cmocka_unit_test(test_input_stall_clear),
        cmocka_unit_test(test_low_util_severity),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
