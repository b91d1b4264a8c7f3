/* test_sampler_pool.c - the GPUs' reader threads (src/core/sampler_pool.c) on gpusim: healthy GPUs
 * share one reader, a call that hangs on one GPU holds up that GPU only (the others move to a new
 * reader), its late result is handed over by a later round, and a pool whose reader never comes
 * back still stops at its deadline. The scenario's clock is set by the test. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "skip.h"
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include "nvml_backend.h"
#include "sampler.h"
#include "sampler_pool.h"
#include "util.h"

#define MS 1000ull

static sampler s;
static gpu_proc procs[8];

static void open_scenario(const char *name)
{
    const char *lib = getenv("GPUSIM_LIB");
    void *h = lib ? dlopen(lib, RTLD_NOW | RTLD_LOCAL) : NULL;
    int ok = h && dlsym(h, "gpusimVersion");
    if (h)
        dlclose(h);
    if (!ok)
        skip_case("GPUSIM_LIB is not a built gpusim (ctest sets it)");
    char path[4096], err[512];
    snprintf(path, sizeof path, "%s/tests/scenarios/%s.yaml", GW_SOURCE_DIR, name);
    setenv("GPUWATCH_NVML_LIB", lib, 1);
    setenv("GPUSIM_SCENARIO", path, 1);
    assert_int_equal(sampler_open_deferred(&s, err, sizeof err), BK_OK);
    assert_int_equal(s.count, 3);
    for (int i = 0; i < s.count; i++)
        assert_false(s.gpus[i].have_info); /* read by each GPU's first read, on its thread */
}

static pool_state take(sampler_pool *p, int gpu, pool_result *r)
{
    return sampler_pool_take(p, gpu, r, procs);
}

/* GPUs 1 and 2's answer: GPU 1's whole sample and its process. */
static void check_healthy(const pool_result *r)
{
    assert_int_equal(r->sample.status, GPU_OK);
    assert_true(r->have_info);
    assert_string_equal(r->info.str[M_NAME], "NVIDIA H100 80GB HBM3");
    assert_true(sample_has(&r->sample, M_TEMP_GPU));
    assert_int_equal(r->nprocs, 1);
    assert_int_equal(procs[0].pid, 4190001);
}

/* Waits (60 s at most) for gpu's result, taking it; rounds of 200 ms go on meanwhile when rounds
 * is set (a round moves the GPUs queued behind a slow read to a reader of their own). */
static pool_state wait_result(sampler_pool *p, int gpu, pool_result *r, int rounds)
{
    uint64_t end = gw_mono_us() + 60000 * MS;
    pool_state st;
    while ((st = take(p, gpu, r)) != POOL_DONE && gw_mono_us() < end) {
        if (rounds)
            sampler_pool_round(p, gw_mono_us() + 200 * MS);
        else
            gw_sleep_us(20 * MS);
    }
    return st;
}

/* The scenario's clock is the test's (sampler_set_time): GPU 0's power read hangs until it is moved
 * to 2 s, GPU 2's hangs from 1 s on for good; so what must still be hanging is, however slow the
 * machine, and no check depends on how fast anything answers. */
static void hung_gpu_holds_up_only_itself(void **state)
{
    (void)state;
    open_scenario("pool-hang");
    assert_int_equal(sampler_set_time(&s, 0), 0);
    sampler_pool *p = sampler_pool_start(&s, 8);
    assert_non_null(p);
    assert_int_equal(sampler_pool_threads(p), 1);
    pool_result r;
    /* round 1: GPU 0 hangs in its power read; the round waits for it until its deadline */
    uint64_t t0 = gw_mono_us();
    assert_int_equal(sampler_pool_round(p, t0 + 400 * MS), 3);
    assert_true(gw_mono_us() - t0 >= 400 * MS);
    assert_int_equal(take(p, 0, &r), POOL_BUSY);
    uint64_t hung_since = r.busy_since;
    assert_true(hung_since >= t0);
    /* 1 and 2 answer while GPU 0 still hangs (its call cannot end before the clock moves) */
    int answered[3] = {0};
    for (uint64_t end = gw_mono_us() + 60000 * MS; !(answered[1] && answered[2]) && gw_mono_us() < end;) {
        for (int gpu = 1; gpu < 3; gpu++) {
            if (!answered[gpu] && take(p, gpu, &r) == POOL_DONE) {
                check_healthy(&r);
                assert_int_equal(take(p, gpu, &r), POOL_IDLE); /* handed over once */
                answered[gpu] = 1;
            }
        }
        assert_int_equal(take(p, 0, &r), POOL_BUSY);
        if (!(answered[1] && answered[2]))
            sampler_pool_round(p, gw_mono_us() + 200 * MS);
    }
    assert_true(answered[1] && answered[2]);
    assert_int_equal(sampler_pool_threads(p), 2); /* GPU 0 kept the first; 1 and 2 moved */
    /* a later round may have asked 1 and 2 again: let those reads end */
    for (int gpu = 1; gpu < 3; gpu++)
        if (take(p, gpu, &r) == POOL_BUSY)
            assert_int_equal(wait_result(p, gpu, &r, 0), POOL_DONE);
    /* round 2: GPU 0 is not asked again (the round waits for it until its deadline all the same) */
    t0 = gw_mono_us();
    assert_int_equal(sampler_pool_round(p, t0 + 300 * MS), 2);
    assert_true(gw_mono_us() - t0 >= 300 * MS);
    assert_int_equal(take(p, 0, &r), POOL_BUSY);
    for (int gpu = 1; gpu < 3; gpu++) {
        assert_int_equal(wait_result(p, gpu, &r, 0), POOL_DONE);
        check_healthy(&r);
    }
    /* the clock moves past 2 s: GPU 0's call returns, and its late result is handed over */
    uint64_t moved = gw_mono_us();
    assert_int_equal(sampler_set_time(&s, 2.5), 0);
    assert_int_equal(wait_result(p, 0, &r, 0), POOL_DONE);
    assert_int_equal(r.sample.status, GPU_OK);
    assert_true(r.took_us >= moved - hung_since); /* it hung until the clock moved */
    assert_true(sample_has(&r.sample, M_POWER_DRAW));
    /* GPU 2 (from t = 1 s) now hangs for good: GPU 1, read before it, still answers; the pool
     * stops all the same at its deadline, abandoning GPU 2's reader */
    sampler_pool_round(p, gw_mono_us() + 300 * MS);
    assert_int_equal(wait_result(p, 1, &r, 0), POOL_DONE);
    check_healthy(&r);
    assert_int_equal(take(p, 2, &r), POOL_BUSY);
    t0 = gw_mono_us();
    assert_int_equal(sampler_pool_stop(p, t0 + 300 * MS), 1); /* returns although GPU 2 never will */
    assert_true(gw_mono_us() - t0 >= 300 * MS);
    /* a reader is still inside the backend: the sampler stays open (the process would exit) */
}

static void interrupt_ends_a_round(void **state)
{
    (void)state;
    setenv("GPUSIM_T0", "0", 1);
    open_scenario("pool-hang");
    assert_int_equal(sampler_set_time(&s, 0), 0); /* GPU 0 hangs until the test moves the clock */
    sampler_pool *p = sampler_pool_start(&s, 0);
    assert_non_null(p);
    sampler_pool_interrupt(p); /* as the agent stopping would */
    uint64_t t0 = gw_mono_us();
    sampler_pool_round(p, t0 + 60000 * MS);
    assert_true(gw_mono_us() - t0 < 60000 * MS); /* it did not wait for its deadline */
    pool_result r;
    assert_int_equal(take(p, 0, &r), POOL_BUSY); /* still inside its hung read */
    /* the clock moves past GPU 0's hang: with a deadline past that, nothing is abandoned */
    assert_int_equal(sampler_set_time(&s, 2.5), 0);
    assert_int_equal(sampler_pool_stop(p, gw_mono_us() + 60000 * MS), 0);
    sampler_close(&s);
}

int main(void)
{
    backend_register(&nvml_backend_ops);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(interrupt_ends_a_round),
        cmocka_unit_test(hung_gpu_holds_up_only_itself),
    };
    return skip_result(cmocka_run_group_tests(tests, NULL, NULL));
}
