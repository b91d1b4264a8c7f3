/* test_ring.c - the sample ring: order, wrap-around, since filter, statics merge, absent values. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "ring.h"

static gpu_sample make(uint64_t t, double temp)
{
    gpu_sample s;
    memset(&s, 0, sizeof s);
    s.t_us = t;
    sample_set(&s, M_TEMP_GPU, temp);
    sample_set(&s, M_MEM_TOTAL, 81559);          /* static */
    sample_set(&s, M_ENERGY, 123456789012.0);    /* counter: kept as a double */
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_wrap_and_since),
        cmocka_unit_test(test_each_and_lost),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
