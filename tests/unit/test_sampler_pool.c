/* test_sampler_pool.c - the GPUs' reader threads (src/core/sampler_pool.c) on gpusim: healthy GPUs
 * share one reader, a call that hangs on one GPU holds up that GPU only (the others move to a new
 * reader within the round), its late result is handed over by a later round, and a pool whose
 * reader never comes back still stops within its deadline. */
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

static void hung_gpu_holds_up_only_itself(void **state)
{
    (void)state;
    open_scenario("pool-hang");
    sampler_pool *p = sampler_pool_start(&s, 8);
    assert_non_null(p);
    assert_int_equal(sampler_pool_threads(p), 1);
    pool_result r;
    /* round 1: GPU 0 hangs in its power read; 1 and 2 answer well before the deadline */
    uint64_t t0 = gw_mono_us();
    assert_int_equal(sampler_pool_round(p, t0 + 400 * MS), 3);
    assert_true(gw_mono_us() - t0 >= 400 * MS);
    assert_int_equal(take(p, 0, &r), POOL_BUSY);
    assert_true(r.busy_since >= t0);
    for (int gpu = 1; gpu < 3; gpu++) {
        assert_int_equal(take(p, gpu, &r), POOL_DONE);
        assert_int_equal(r.sample.status, GPU_OK);
        assert_true(r.have_info);
        assert_string_equal(r.info.str[M_NAME], "NVIDIA H100 80GB HBM3");
        assert_true(sample_has(&r.sample, M_TEMP_GPU));
        assert_int_equal(r.nprocs, 1);
        assert_int_equal(procs[0].pid, 4190001);
        assert_int_equal(take(p, gpu, &r), POOL_IDLE); /* handed over once */
    }
    assert_int_equal(sampler_pool_threads(p), 2); /* GPU 0 kept the first; 1 and 2 moved */
    /* round 2: GPU 0 is not asked again (the round waits for it until its deadline all the same) */
    t0 = gw_mono_us();
    assert_int_equal(sampler_pool_round(p, t0 + 300 * MS), 2);
    assert_true(gw_mono_us() - t0 >= 300 * MS);
    assert_int_equal(take(p, 0, &r), POOL_BUSY);
    assert_int_equal(take(p, 1, &r), POOL_DONE);
    assert_int_equal(take(p, 2, &r), POOL_DONE);
    /* t >= 2 s: GPU 0's call returns; its late result comes with the next round */
    uint64_t end = gw_mono_us() + 5000 * MS;
    pool_state st = POOL_BUSY;
    while (st == POOL_BUSY && gw_mono_us() < end) {
        gw_sleep_us(50 * MS);
        st = take(p, 0, &r);
    }
    assert_int_equal(st, POOL_DONE);
    assert_int_equal(r.sample.status, GPU_OK);
    assert_true(r.took_us >= 1500 * MS);
    assert_true(sample_has(&r.sample, M_POWER_DRAW));
    /* GPU 2 (from t = 1 s) now hangs for good: GPU 1, read before it, still answers; the pool
     * still stops by its deadline */
    sampler_pool_round(p, gw_mono_us() + 300 * MS);
    assert_int_equal(take(p, 1, &r), POOL_DONE);
    assert_int_equal(take(p, 2, &r), POOL_BUSY);
    t0 = gw_mono_us();
    assert_int_equal(sampler_pool_stop(p, t0 + 300 * MS), 1);
    assert_true(gw_mono_us() - t0 < 1000 * MS);
    /* a reader is still inside the backend: the sampler stays open (the process would exit) */
}

static void interrupt_ends_a_round(void **state)
{
    (void)state;
    setenv("GPUSIM_T0", "0", 1);
    open_scenario("pool-hang");
    sampler_pool *p = sampler_pool_start(&s, 0);
    assert_non_null(p);
    sampler_pool_interrupt(p); /* as the agent stopping would */
    uint64_t t0 = gw_mono_us();
    sampler_pool_round(p, t0 + 3000 * MS);
    assert_true(gw_mono_us() - t0 < 1000 * MS);
    pool_result r;
    assert_int_equal(take(p, 0, &r), POOL_BUSY); /* still inside its hung read */
    /* GPU 0's hang ends at t = 2 s: with a deadline past that, nothing is abandoned */
    assert_int_equal(sampler_pool_stop(p, gw_mono_us() + 4000 * MS), 0);
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
