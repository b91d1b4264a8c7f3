/* test_ring.c - the sample ring: order, wrap-around, since filter, absent values, exact round trips
 * of the delta-coded blocks (random values, NaN, absent metrics, block edges) and its memory. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include <math.h>
#include <stdlib.h>
#include "ring.h"
#include "sample_codec.h"

static gpu_sample make(uint64_t t, double temp)
{
    gpu_sample s;
    memset(&s, 0, sizeof s);
    s.t_us = t;
    sample_set(&s, M_TEMP_GPU, temp);
    sample_set(&s, M_MEM_TOTAL, 81559);       /* static */
    sample_set(&s, M_ENERGY, 123456789012.0); /* counter: kept as a double */
    return s;
}

static void test_empty(void **st)
{
    (void)st;
    ring *r = ring_new(2, 4);
    gpu_sample s;
    assert_int_equal(ring_latest(r, 0, &s), 0);
    assert_int_equal(ring_range(r, 1, 0, &s, 1), 0);
    assert_int_equal(ring_latest(r, 5, &s), 0);
    assert_int_equal(ring_latest(r, -1, &s), 0);
    assert_int_equal(ring_latest(NULL, 0, &s), 0);
    assert_int_equal(ring_capacity(r), 4);
    assert_int_equal(ring_gpus(r), 2);
    ring_free(r);
}

static void test_wrap_and_since(void **st)
{
    (void)st;
    ring *r = ring_new(2, 4);
    for (int i = 1; i <= 6; i++) {
        gpu_sample s = make((uint64_t)i * 1000, 30 + i);
        ring_push(r, 0, &s);
    }
    gpu_sample out[8];
    int n = ring_range(r, 0, 0, out, 8);
    assert_int_equal(n, 4);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(out[i].t_us, (uint64_t)(i + 3) * 1000);
        assert_true(out[i].v[M_TEMP_GPU] == 33 + i);
        assert_true(sample_has(&out[i], M_MEM_TOTAL));
        assert_true(out[i].v[M_MEM_TOTAL] == 81559);
        assert_true(out[i].v[M_ENERGY] == 123456789012.0);
        assert_false(sample_has(&out[i], M_POWER_DRAW));
    }
    assert_int_equal(ring_range(r, 0, 5000, out, 8), 2);
    assert_int_equal(out[0].t_us, 5000);
    assert_int_equal(ring_range(r, 0, 4500, out, 1), 1);
    assert_int_equal(out[0].t_us, 5000);
    assert_int_equal(ring_range(r, 0, 7000, out, 8), 0);
    assert_int_equal(ring_range(r, 1, 0, out, 8), 0);
    gpu_sample last;
    assert_int_equal(ring_latest(r, 0, &last), 1);
    assert_int_equal(last.t_us, 6000);
    assert_true(last.v[M_TEMP_GPU] == 36);
    assert_int_equal(last.status, GPU_OK);
    gpu_sample lost = make(7000, 0);
    lost.status = GPU_LOST;
    ring_push(r, 0, &lost);
    assert_int_equal(ring_latest(r, 0, &last), 1);
    assert_int_equal(last.t_us, 7000);
    assert_int_equal(last.status, GPU_LOST);
    ring_free(r);
}

static void count_fn(const gpu_sample *s, void *ctx)
{
    (void)s;
    (*(int *)ctx)++;
}

static void test_each_and_lost(void **st)
{
    (void)st;
    ring *r = ring_new(1, 3);
    gpu_sample s = make(1000, 40);
    ring_push(r, 0, &s);
    gpu_sample lost;
    memset(&lost, 0, sizeof lost);
    lost.t_us = 2000;
    lost.status = GPU_LOST;
    ring_push(r, 0, &lost);
    int n = 0;
    ring_each(r, 0, 0, count_fn, &n);
    assert_int_equal(n, 2);
    gpu_sample out[2];
    assert_int_equal(ring_range(r, 0, 0, out, 2), 2);
    assert_int_equal(out[1].status, GPU_LOST);
    assert_false(sample_has(&out[1], M_TEMP_GPU));
    assert_false(sample_has(&out[1], M_MEM_TOTAL));
    ring_free(r);
}

/* A sample with a mix of constant, slowly moving, random, NaN and absent values, and values that
 * are integers at a scale (thousandths as W from mW, 2^-20ths as MiB from bytes, large and negative). */
static gpu_sample random_sample(uint64_t t, unsigned *seed)
{
    gpu_sample s;
    memset(&s, 0, sizeof s);
    s.t_us = t;
    s.status = rand_r(seed) % 50 == 0 ? GPU_ERROR : GPU_OK;
    for (int id = 0; id < M_COUNT; id++) {
        int kind = (id * 7 + (int)(t / 1000000) / 97) % 9;
        if (rand_r(seed) % 20 == 0 || kind == 5)
            continue;                                        /* absent */
        double v = kind == 0   ? 81559.0                     /* constant */
                   : kind == 1 ? (double)(t / 1000000 % 100) /* integer that moves */
                   : kind == 2 ? rand_r(seed) / (double)RAND_MAX * 700.0
                   : kind == 3 ? 1e12 + (double)(t / 1000) * 0.001 /* large counter */
                   : kind == 4 ? (rand_r(seed) % 3 == 0 ? NAN : -0.0)
                   : kind == 6 ? (double)(rand_r(seed) % 700000) / 1000.0 /* W from mW */
                   : kind == 7
                       ? (double)(rand_r(seed) % 100000000) / 1048576.0 /* MiB from bytes */
                       : (rand_r(seed) % 2 ? -(double)(rand_r(seed) % 1000) : 4503599627370495.0 - rand_r(seed) % 3);
        sample_set(&s, (metric_id)id, v);
    }
    return s;
}

static void assert_same(const gpu_sample *a, const gpu_sample *b)
{
    assert_int_equal(a->t_us, b->t_us);
    assert_int_equal(a->status, b->status);
    assert_memory_equal(&a->present, &b->present, sizeof a->present);
    for (int id = 0; id < M_COUNT; id++)
        if (sample_has(a, (metric_id)id))
            assert_memory_equal(&a->v[id], &b->v[id], sizeof(double)); /* bit-exact, NaN and -0 too */
        else
            assert_true(b->v[id] == 0);
}

static void test_codec_round_trip(void **st)
{
    (void)st;
    unsigned seed = 7;
    gpu_sample enc, dec, out;
    scodec_reset(&enc);
    scodec_reset(&dec);
    unsigned char buf[SCODEC_MAX];
    for (int i = 0; i < 2000; i++) {
        gpu_sample s = random_sample(1700000000000000ull + (uint64_t)i * 1000003u, &seed);
        if (i == 500)
            s.t_us -= 5000000; /* the clock stepped back */
        size_t n = scodec_put(buf, &enc, &s);
        assert_true(n > 0 && n <= (size_t)SCODEC_MAX);
        assert_int_equal(scodec_get(buf, n, &dec, &out), n);
        assert_same(&s, &out);
        assert_int_equal(scodec_get(buf, n - 1, &dec, &out), 0); /* cut short: refused */
        dec = enc;
    }
}

/* A reading in thousandths (W from mW) that changes is coded as the change of its integer: a few
 * bytes, not the 8 that the XOR of two such doubles leaves. */
static void test_codec_scaled_is_small(void **st)
{
    (void)st;
    gpu_sample enc, dec, a, b, out;
    scodec_reset(&enc);
    scodec_reset(&dec);
    memset(&a, 0, sizeof a);
    a.t_us = 1000000;
    sample_set(&a, M_POWER_DRAW, 286.082);
    sample_set(&a, M_MEM_USED, 50795.0);
    b = a;
    b.t_us += 1000000;
    sample_set(&b, M_POWER_DRAW, 290.517);
    sample_set(&b, M_MEM_USED, 50796.0);
    unsigned char buf[SCODEC_MAX];
    size_t n = scodec_put(buf, &enc, &a);
    assert_int_equal(scodec_get(buf, n, &dec, &out), n);
    n = scodec_put(buf, &enc, &b);
    assert_int_equal(scodec_get(buf, n, &dec, &out), n);
    assert_same(&b, &out);
    /* flags, time delta (3), count, then per value a head byte and the change (2 and 1 bytes) */
    assert_true(n <= 10);
}

static void test_round_trip_wrap(void **st)
{
    (void)st;
    enum { CAP = 200, TOTAL = 1000 }; /* not a multiple of the block */
    static gpu_sample pushed[TOTAL], out[CAP + 10];
    unsigned seed = 42;
    ring *r = ring_new(2, CAP);
    for (int i = 0; i < TOTAL; i++) {
        pushed[i] = random_sample(1000000ull * (uint64_t)(i + 1), &seed);
        ring_push(r, 1, &pushed[i]);
        int want = i + 1 < CAP ? i + 1 : CAP;
        if (i % 37 == 0 || i > TOTAL - 70) {
            int n = ring_range(r, 1, 0, out, CAP + 10);
            assert_int_equal(n, want);
            for (int k = 0; k < n; k++)
                assert_same(&pushed[i + 1 - want + k], &out[k]);
        }
    }
    /* since at every point of the last window, block edges included */
    for (int from = TOTAL - CAP; from < TOTAL; from += 13) {
        int n = ring_range(r, 1, pushed[from].t_us, out, CAP + 10);
        assert_int_equal(n, TOTAL - from);
        assert_same(&pushed[from], &out[0]);
        assert_same(&pushed[TOTAL - 1], &out[n - 1]);
    }
    assert_int_equal(ring_range(r, 1, pushed[TOTAL - CAP].t_us - 1, out, CAP + 10), CAP);
    gpu_sample last;
    assert_int_equal(ring_latest(r, 1, &last), 1);
    assert_memory_equal(&last, &pushed[TOTAL - 1], sizeof last);
    assert_int_equal(ring_range(r, 0, 0, out, 1), 0);
    ring_free(r);
}

static void test_bytes_grow_and_bound(void **st)
{
    (void)st;
    unsigned seed = 3;
    ring *r = ring_new(8, 900);
    size_t empty = ring_bytes(r);
    for (int i = 0; i < 900; i++)
        for (int g = 0; g < 8; g++) {
            gpu_sample s = random_sample(1000000ull * (uint64_t)(i + 1), &seed);
            ring_push(r, g, &s);
        }
    size_t full = ring_bytes(r);
    print_message("ring_bytes empty %zu full %zu\n", empty, full);
    assert_true(full > empty);
    assert_true(full < (size_t)8 * 900 * sizeof(gpu_sample) / 2); /* below whole samples, even for noise */
    for (int i = 900; i < 3000; i++)
        for (int g = 0; g < 8; g++) {
            gpu_sample s = random_sample(1000000ull * (uint64_t)(i + 1), &seed);
            ring_push(r, g, &s);
        }
    assert_true(ring_bytes(r) < full + full / 4); /* bounded once full */
    ring_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_wrap_and_since),
        cmocka_unit_test(test_each_and_lost),
        cmocka_unit_test(test_codec_round_trip),
        cmocka_unit_test(test_codec_scaled_is_small),
        cmocka_unit_test(test_round_trip_wrap),
        cmocka_unit_test(test_bytes_grow_and_bound),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
