/* test_run_steps.c - step times from a job's output (src/run/steps.c): every built-in pattern (tqdm,
 * Hugging Face Trainer, Lightning's bars, Megatron-LM, "step N ... loss") and --step-regex, fed
 * as a job writes (chunks split anywhere, \r progress updates), with known arrival times. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "steps.h"

#define T0 1700000000000000ll

/* Feeds text in chunks of chunk bytes, all at time t. */
static void feed(step_parser *p, int stream, int64_t t, const char *text, size_t chunk)
{
    size_t n = strlen(text);
    for (size_t i = 0; i < n; i += chunk)
        steps_feed(p, stream, t, text + i, i + chunk < n ? chunk : n - i);
}

static step_parser *parser(const char *rx)
{
    char err[256];
    step_parser *p = steps_new(rx, err, sizeof err);
    assert_non_null(p);
    return p;
}

/* A tqdm bar updated once per step; step k takes dt[k % 4] seconds. */
static void test_tqdm(void **state)
{
    (void)state;
    static const double dt[4] = {0.2, 0.3, 0.25, 0.25};
    for (size_t chunk = 1; chunk <= 64; chunk *= 4) {
        step_parser *p = parser(NULL);
        int64_t t = T0;
        char line[160];
        feed(p, 1, t, "  0%|          | 0/40 [00:00<?, ?it/s]", chunk);
        for (int k = 1; k <= 40; k++) {
            t += (int64_t)(dt[k % 4] * 1e6);
            snprintf(line, sizeof line, "\r %3d%%|##        | %d/40 [00:%02d<00:10,  %.2fit/s, loss=0.5]", k * 100 / 40,
                     k, k / 4, 1 / dt[k % 4]);
            feed(p, 1, t, line, chunk);
        }
        feed(p, 1, t, "\n", chunk);
        step_stats st;
        steps_stats(p, &st);
        assert_string_equal(st.source, "tqdm");
        assert_int_equal(st.nsteps, 40);
        assert_true(fabs(st.p50_s - 0.25) < 1e-6);
        assert_true(fabs(st.p95_s - 0.3) < 1e-6);
        if (fabs(st.steps_per_s - 4.0) >= 1e-3)
            fprintf(stderr, "chunk %zu: %ld steps, mean %g, sps %g\n", chunk, st.nsteps, st.mean_s, st.steps_per_s);
        assert_true(fabs(st.steps_per_s - 4.0) < 1e-3);
        const step_mark *m;
        assert_int_equal(steps_marks(p, &m), 40);
        assert_int_equal(m[39].t_us, t);
        steps_free(p);
    }
}

/* An evaluation bar between training updates is a series of its own; a refresh without progress and
 * updates of several steps at once are weighted right. */
static void test_tqdm_eval_and_batches(void **state)
{
    (void)state;
    step_parser *p = parser(NULL);
    int64_t t = T0;
    feed(p, 0, t, "0/100 [00:00<?, ?it/s]\r", 7);
    for (int k = 10; k <= 100; k += 10) {
        t += 1000000; /* 10 steps per second: 0.1 s each */
        char line[96];
        snprintf(line, sizeof line, "%d/100 [00:%02d<00:09, 10.00it/s]\r", k, k / 10);
        feed(p, 0, t, line, 5);
        feed(p, 0, t + 1000, line, 5); /* a refresh: no new step */
        if (k == 50)
            for (int e = 1; e <= 5; e++)
                feed(p, 0, t + e * 10000, "Evaluating: 1/5 [00:00<00:00, 99.00it/s]\r", 9);
    }
    step_stats st;
    steps_stats(p, &st);
    assert_string_equal(st.source, "tqdm");
    assert_int_equal(st.nsteps, 100);
    assert_true(fabs(st.p50_s - 0.1) < 1e-6);
    assert_true(fabs(st.steps_per_s - 10) < 1e-6);
    steps_free(p);
}

static void test_huggingface(void **state)
{
    (void)state;
    step_parser *p = parser(NULL);
    int64_t t = T0;
    for (int k = 0; k <= 20; k++) {
        char line[128];
        snprintf(line, sizeof line, " %d%%|#         | %d/20 [00:%02d<00:10,  2.00it/s]\r", k * 5, k, k / 2);
        feed(p, 2, t, line, 11);
        if (k && k % 10 == 0) {
            snprintf(line, sizeof line, "{'loss': %.4f, 'grad_norm': 1.5, 'learning_rate': 4e-05, 'epoch': %.1f}\n",
                     2.0 / k, k / 20.0);
            feed(p, 2, t, line, 13);
        }
        t += 500000;
    }
    feed(p, 2, t,
         "{'train_runtime': 10.1, 'train_samples_per_second': 15.8, 'train_steps_per_second': 1.98, "
         "'train_loss': 0.15, 'epoch': 1.0}\n",
         64);
    step_stats st;
    steps_stats(p, &st);
    assert_string_equal(st.source, "Hugging Face Trainer");
    assert_int_equal(st.nsteps, 20);
    assert_true(fabs(st.p50_s - 0.5) < 1e-6);
    assert_true(fabs(st.reported_steps_per_s - 1.98) < 1e-9);
    assert_true(fabs(st.first_loss - 0.2) < 1e-9);
    assert_true(fabs(st.last_loss - 0.1) < 1e-9);
    steps_free(p);
}

/* Lightning's tqdm bar (counter reset each epoch: no step across the validation pause) and its rich bar. */
static void test_lightning(void **state)
{
    (void)state;
    for (int rich = 0; rich < 2; rich++) {
        step_parser *p = parser(NULL);
        int64_t t = T0;
        for (int epoch = 0; epoch < 3; epoch++) {
            for (int k = 0; k <= 8; k++) {
                char line[200];
                if (rich)
                    snprintf(line, sizeof line,
                             "Epoch %d/2  \xe2\x94\x81\xe2\x94\x81\xe2\x94\x81 %d/8 0:00:%02d \xe2\x80\xa2 0:00:03 "
                             "2.50it/s v_num: 0 loss: 0.5\r",
                             epoch, k, k);
                else
                    snprintf(line, sizeof line,
                             "Epoch %d:  %d%%|###       | %d/8 [00:%02d<00:03,  2.50it/s, v_num=0, train_loss=0.5]\r",
                             epoch, k * 100 / 8, k, k);
                feed(p, 0, t, line, 17);
                t += 400000;
            }
            t += 5000000; /* validation */
        }
        step_stats st;
        steps_stats(p, &st);
        assert_string_equal(st.source, "Lightning");
        assert_int_equal(st.nsteps, 24);
        assert_true(fabs(st.p95_s - 0.4) < 1e-6);
        assert_true(fabs(st.steps_per_s - 2.5) < 1e-6);
        steps_free(p);
    }
}

static void test_megatron(void **state)
{
    (void)state;
    step_parser *p = parser(NULL);
    int64_t t = T0;
    for (int it = 10; it <= 100; it += 10) {
        char line[400];
        snprintf(line, sizeof line,
                 " [2024-05-01 12:00:%02d] iteration      %d/  500000 | consumed samples:        %d | elapsed time "
                 "per iteration (ms): %.1f | learning rate: 1.000E-04 | global batch size:    32 | lm loss: "
                 "%.6E | loss scale: 1.0 | grad norm: 1.234 |\n",
                 it / 10, it, it * 32, it == 50 ? 2400.0 : 1200.0, 10.0 - it / 20.0);
        feed(p, 0, t, line, 100);
        t += 12000000;
    }
    step_stats st;
    steps_stats(p, &st);
    assert_string_equal(st.source, "Megatron-LM");
    assert_int_equal(st.nsteps, 100); /* the first line stands for iterations 1..10 */
    assert_true(fabs(st.p50_s - 1.2) < 1e-9);
    assert_true(fabs(st.p95_s - 2.4) < 1e-9); /* 10 of 100 iterations took 2.4 s */
    assert_true(fabs(st.mean_s - 1.32) < 1e-9);
    assert_true(fabs(st.first_loss - 9.5) < 1e-9);
    assert_true(fabs(st.last_loss - 5.0) < 1e-9);
    steps_free(p);
}

static void test_step_loss(void **state)
{
    (void)state;
    static const char *const forms[] = {"step %d | loss %.3f\n", "Step: %d, Loss: %.3f\n",
                                        "[step=%d] train loss=%.3f\n",
                                        "step %d/1000 lr 1e-4 loss %.3f tokens/s 12000\n"};
    for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
        step_parser *p = parser(NULL);
        int64_t t = T0;
        for (int s = 5; s <= 50; s += 5) {
            char line[128];
            snprintf(line, sizeof line, forms[f], s, 3.0 - s / 50.0);
            feed(p, 1, t, line, 3);
            t += 1500000; /* 5 steps in 1.5 s */
        }
        step_stats st;
        steps_stats(p, &st);
        assert_string_equal(st.source, "step/loss");
        assert_int_equal(st.nsteps, 45);
        assert_true(fabs(st.p50_s - 0.3) < 1e-9);
        assert_true(fabs(st.first_loss - 2.9) < 1e-9);
        assert_true(fabs(st.last_loss - 2.0) < 1e-9);
        steps_free(p);
    }
}

static void test_user_regex(void **state)
{
    (void)state;
    /* group 1 the step, group 2 its time in ms */
    step_parser *p = parser("it ([0-9]+) took ([0-9.]+) ?ms");
    int64_t t = T0;
    for (int i = 1; i <= 10; i++) {
        char line[64];
        snprintf(line, sizeof line, "it %d took %d ms\n", i, i <= 5 ? 100 : 300);
        feed(p, 0, t, line, 64);
        t += 1000;
    }
    feed(p, 0, t, "step 99 loss 0.1\n", 64); /* built-in patterns are off */
    step_stats st;
    steps_stats(p, &st);
    assert_string_equal(st.source, "--step-regex");
    assert_int_equal(st.nsteps, 10);
    assert_true(fabs(st.p50_s - 0.1) < 1e-9);
    assert_true(fabs(st.p95_s - 0.3) < 1e-9);
    steps_free(p);
    /* no group: each match is one step, timed by arrival */
    p = parser("^batch done");
    t = T0;
    for (int i = 0; i < 5; i++) {
        feed(p, 0, t, "batch done\nnoise\n", 4);
        t += 700000;
    }
    steps_stats(p, &st);
    assert_int_equal(st.nsteps, 4);
    assert_true(fabs(st.p50_s - 0.7) < 1e-9);
    steps_free(p);
    char err[200];
    assert_null(steps_new("(unclosed", err, sizeof err));
    assert_non_null(strstr(err, "--step-regex"));
}

static void test_nothing(void **state)
{
    (void)state;
    step_parser *p = parser(NULL);
    feed(p, 0, T0, "hello\nworld 3/4 apples\n", 5);
    steps_finish(p);
    step_stats st;
    steps_stats(p, &st);
    assert_int_equal(st.nsteps, 0);
    assert_string_equal(st.source, "");
    const step_mark *m;
    assert_int_equal(steps_marks(p, &m), 0);
    steps_free(p);
}

/* Whatever the volume of step lines, the marks stay bounded: a series reduced (neighbours merged),
 * the quantiles from a histogram within 1 %, the mean and counts exact. Families of step-time
 * distributions, and line counts around and far past the cap. */
static void test_bounded_marks(void **state)
{
    (void)state;
    const long counts[] = {STEPS_MAX_MARKS / 2, STEPS_MAX_MARKS + 1, 3L * STEPS_MAX_MARKS + 7, 1000000};
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        for (int dist = 0; dist < 3; dist++) {
            step_parser *p = parser(NULL);
            int64_t t = T0;
            double sum = 0;
            char line[96];
            long n = counts[c];
            for (long k = 0; k <= n; k++) {
                /* 0: constant 0.2 s; 1: 90 % at 0.1 s, 10 % at 1 s; 2: 0.05 to 0.5 s in a ramp */
                double dt = dist == 0   ? 0.2
                            : dist == 1 ? (k % 10 == 9 ? 1.0 : 0.1)
                                        : 0.05 + 0.45 * (double)(k % 1000) / 1000;
                if (k) {
                    t += (int64_t)(dt * 1e6);
                    sum += (double)(int64_t)(dt * 1e6) / 1e6;
                }
                int len = snprintf(line, sizeof line, "step %ld | loss 2.5\n", k);
                steps_feed(p, 0, t, line, (size_t)len);
            }
            step_stats st;
            steps_stats(p, &st);
            assert_int_equal(st.nsteps, n);
            const step_mark *m;
            size_t nm = steps_marks(p, &m);
            assert_true(nm <= STEPS_MAX_MARKS);
            assert_true(nm >= STEPS_MAX_MARKS / 4 || nm == (size_t)n);
            assert_int_equal(st.marks_merged > 1, n > STEPS_MAX_MARKS);
            long steps = 0;
            for (size_t i = 0; i < nm; i++) {
                steps += m[i].steps;
                assert_true(i == 0 || m[i].t_us > m[i - 1].t_us);
            }
            assert_int_equal(steps, n);
            assert_true(fabs(st.mean_s - sum / (double)n) < 1e-9 * (double)n);
            double p50 = dist == 0 ? 0.2 : dist == 1 ? 0.1 : 0.275, p95 = dist == 0 ? 0.2 : dist == 1 ? 1.0 : 0.4775;
            assert_true(fabs(st.p50_s - p50) <= 0.01 * p50);
            assert_true(fabs(st.p95_s - p95) <= 0.01 * p95);
            steps_free(p);
        }
    }
}

/* Patterns whose matching is super-polynomial in a backtracking engine (nested quantifiers,
 * back-references) against long lines: each match gives up at the limit, lines past the feed's
 * budget are counted, not searched, and a line that matches still counts. */
static void test_pathological_regex(void **state)
{
    (void)state;
    const char *patterns[] = {"(a+)+$", "(a|aa)+$", "(a*)*$", "((a+)+)+$", "(a+)+\\1$", "^(\\w+\\s?)*$"};
    char line[520];
    memset(line, 'a', 500);
    line[499] = '!'; /* no match: every way to split the a's is tried */
    line[500] = '\n';
    for (size_t i = 0; i < sizeof patterns / sizeof patterns[0]; i++) {
        step_parser *p = parser(patterns[i]);
        /* 200 such lines in one feed: the budget stops the matching */
        size_t len = 501 * 200;
        char *many = malloc(len);
        assert_non_null(many);
        for (int k = 0; k < 200; k++)
            memcpy(many + 501 * k, line, 501);
        steps_feed(p, 0, T0, many, len);
        free(many);
        step_stats st;
        steps_stats(p, &st);
        assert_int_equal(st.nsteps, 0);
        assert_true(st.lines_skipped > 0);
        steps_free(p);
    }
    /* the limit does not get in the way of a line that matches */
    step_parser *p = parser("^(\\d+) (a+)+\\1 done");
    for (int k = 0; k <= 10; k++) {
        char ok[80];
        int n = snprintf(ok, sizeof ok, "%d aaaaa%d done\n", k, k);
        steps_feed(p, 0, T0 + k * 250000, ok, (size_t)n);
    }
    step_stats st;
    steps_stats(p, &st);
    assert_int_equal(st.nsteps, 10);
    assert_true(fabs(st.p50_s - 0.25) < 1e-9);
    steps_free(p);
    char err[200];
    char longrx[2000];
    memset(longrx, 'a', sizeof longrx - 1);
    longrx[sizeof longrx - 1] = 0;
    assert_null(steps_new(longrx, err, sizeof err));
    assert_non_null(strstr(err, "longer than"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tqdm),          cmocka_unit_test(test_tqdm_eval_and_batches),
        cmocka_unit_test(test_huggingface),   cmocka_unit_test(test_lightning),
        cmocka_unit_test(test_megatron),      cmocka_unit_test(test_step_loss),
        cmocka_unit_test(test_user_regex),    cmocka_unit_test(test_nothing),
        cmocka_unit_test(test_bounded_marks), cmocka_unit_test(test_pathological_regex),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
