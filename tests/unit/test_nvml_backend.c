/* test_nvml_backend.c - the NVML backend against gpusim (GPUSIM_LIB) with the scenarios in
 * tests/scenarios/nvml-*.yaml: values read back exactly, absent vs supported, lost GPUs, injected
 * errors, slow calls, missing symbols, open failures. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "skip.h"
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "nvml_priv.h"
#include "nvml_backend.h"
#include "sampler.h"
#include "util.h"

static const backend_ops *ops = &nvml_backend_ops;
static backend *cur; /* the test's open backend, closed by teardown even when the test fails */
static sampler cur_sampler;
static int sampler_is_open;

/* GPUSIM_LIB when it is a built gpusim (it exports gpusimVersion); skips the test otherwise. */
static const char *gpusim_lib(void)
{
    const char *lib = getenv("GPUSIM_LIB");
    void *h = lib ? dlopen(lib, RTLD_NOW | RTLD_LOCAL) : NULL;
    int ok = h && dlsym(h, "gpusimVersion");
    if (h)
        dlclose(h);
    if (!ok)
        skip_case("GPUSIM_LIB is not a built gpusim (ctest sets it)");
    return lib;
}

/* Opens the backend on gpusim with a scenario of tests/scenarios. */
static backend *open_sim(const char *scenario)
{
    const char *lib = gpusim_lib();
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/scenarios/%s.yaml", GW_SOURCE_DIR, scenario);
    setenv("GPUWATCH_NVML_LIB", lib, 1);
    setenv("GPUSIM_SCENARIO", path, 1);
    char err[512] = "";
    backend_status st = ops->open(&cur, err, sizeof err);
    if (st != BK_OK)
        fail_msg("open on %s: %d %s", scenario, st, err);
    return cur;
}

/* Closes what the test opened: gpusim's init is reference counted, and a scenario is loaded
 * only by the first nvmlInit, so a backend left open would leak its scenario into the next test. */
static int teardown(void **state)
{
    (void)state;
    if (cur)
        ops->close(cur);
    cur = NULL;
    if (sampler_is_open)
        sampler_close(&cur_sampler);
    sampler_is_open = 0;
    unsetenv("GPUSIM_SPEED");
    unsetenv("GPUSIM_T0");
    return 0;
}

static double get(const gpu_sample *s, metric_id id)
{
    double v;
    if (!sample_get(s, id, &v))
        fail_msg("%s absent", catalog_get(id)->field);
    return v;
}

static void assert_absent(const gpu_sample *s, metric_id id)
{
    double v;
    if (sample_get(s, id, &v))
        fail_msg("%s present (%g), expected absent", catalog_get(id)->field, v);
}

static gpu_status read_all(backend *b, int gpu, gpu_sample *s)
{
    metric_set all;
    mset_all(&all);
    memset(s, 0, sizeof *s);
    return ops->read_sample(b, gpu, &all, s);
}

static gpu_status read_one(backend *b, int gpu, metric_id id, gpu_sample *s)
{
    metric_set want = {{0}};
    mset_add(&want, id);
    memset(s, 0, sizeof *s);
    return ops->read_sample(b, gpu, &want, s);
}

/* ---- open failures ---- */

static void test_no_library(void **state)
{
    (void)state;
    setenv("GPUWATCH_NVML_LIB", "/nonexistent/libnvidia-ml.so.1", 1);
    char err[512] = "";
    assert_int_equal(ops->open(&cur, err, sizeof err), BK_ERR_NO_LIBRARY);
    assert_null(cur);
    assert_non_null(strstr(err, "/nonexistent/libnvidia-ml.so.1"));
    assert_non_null(strstr(err, "not found"));
    assert_non_null(strstr(err, "NVIDIA driver installed"));
    assert_null(strchr(err, '\n'));
}

static void test_not_nvml(void **state)
{
    (void)state;
    setenv("GPUWATCH_NVML_LIB", "libm.so.6", 1); /* loads, but has no nvmlInit */
    char err[512] = "";
    assert_int_equal(ops->open(&cur, err, sizeof err), BK_ERR_NO_LIBRARY);
    assert_non_null(strstr(err, "nvmlInit_v2"));
}

static void expect_open_failure(const char *scenario, backend_status want, const char *words)
{
    const char *lib = gpusim_lib();
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/scenarios/%s.yaml", GW_SOURCE_DIR, scenario);
    setenv("GPUWATCH_NVML_LIB", lib, 1);
    setenv("GPUSIM_SCENARIO", path, 1);
    char err[512] = "";
    assert_int_equal(ops->open(&cur, err, sizeof err), want);
    assert_null(cur);
    if (!strstr(err, words))
        fail_msg("message \"%s\" lacks \"%s\"", err, words);
}

static void test_no_driver(void **state)
{
    (void)state;
    expect_open_failure("nvml-nodriver", BK_ERR_NO_DRIVER, "driver is not loaded");
}

static void test_no_permission(void **state)
{
    (void)state;
    expect_open_failure("nvml-noperm", BK_ERR_PERMISSION, "no permission");
}

/* ---- values ---- */

static void test_identity_and_statics(void **state)
{
    (void)state;
    backend *b = open_sim("nvml-values");
    assert_int_equal(ops->gpu_count(b), 3);
    backend_versions v;
    ops->versions(b, &v);
    assert_string_equal(v.driver, "590.48.01");
    assert_string_equal(v.library, "13.590.48.01");
    assert_string_equal(v.cuda, "13.1");
    assert_string_equal(v.backend, "nvml");
    assert_int_equal(v.simulated, 1);

    gpu_info info;
    gpu_sample st;
    assert_int_equal(ops->read_info(b, 0, &info, &st), GPU_OK);
    assert_string_equal(info.str[M_NAME], "NVIDIA H100 80GB HBM3");
    assert_true(mset_has(&info.str_present, M_UUID));
    assert_memory_equal(info.str[M_UUID], "GPU-", 4);
    assert_true(mset_has(&info.str_present, M_SERIAL));
    assert_string_equal(info.str[M_DRIVER_VERSION], "590.48.01");
    assert_string_equal(info.str[M_VBIOS_VERSION], "96.00.A5.00.01");
    assert_string_equal(info.str[M_PCI_DEVICE_ID], "0x233010DE");
    assert_string_equal(info.str[M_PCI_SUB_DEVICE_ID], "0x16C110DE");
    unsigned dom, bus, dev, fn;
    assert_int_equal(strlen(info.str[M_PCI_BUS_ID]), 16);
    assert_int_equal(sscanf(info.str[M_PCI_BUS_ID], "%8x:%2x:%2x.%1x", &dom, &bus, &dev, &fn), 4);
    assert_int_equal(get(&st, M_INDEX), 0);
    assert_int_equal(get(&st, M_MEM_TOTAL), 81559);
    assert_int_equal(get(&st, M_POWER_MAX_LIMIT), 700);
    assert_int_equal(get(&st, M_POWER_MIN_LIMIT), 200);
    assert_int_equal(get(&st, M_POWER_DEFAULT_LIMIT), 700);
    assert_int_equal(get(&st, M_CLOCK_MAX_SM), 1980);
    assert_int_equal(get(&st, M_CLOCK_MAX_MEM), 2619);
    assert_int_equal(get(&st, M_TEMP_SLOWDOWN), 89);
    assert_int_equal(get(&st, M_TEMP_SHUTDOWN), 95);
    assert_int_equal(get(&st, M_ARCHITECTURE), 9);
    assert_true(fabs(get(&st, M_COMPUTE_CAP) - 9.0) < 1e-9);
    assert_int_equal(get(&st, M_PCIE_GEN_MAX), 5);
    assert_int_equal(get(&st, M_PCIE_WIDTH_MAX), 16);
    assert_int_equal(get(&st, M_ECC_MODE), 1);
    assert_int_equal(get(&st, M_NUMA_NODE), 0); /* NumaNodeId NOT_SUPPORTED: from the memory affinity */

    /* The GeForce: no serial, no ECC, no HBM limit. */
    assert_int_equal(ops->read_info(b, 2, &info, &st), GPU_OK);
    assert_string_equal(info.str[M_NAME], "NVIDIA GeForce RTX 4080 SUPER");
    assert_false(mset_has(&info.str_present, M_SERIAL));
    assert_int_equal(get(&st, M_MEM_TOTAL), 16376);
    assert_int_equal(get(&st, M_COMPUTE_CAP) * 10 + 0.5, 89);
}

static void test_dynamic_values(void **state)
{
    (void)state;
    backend *b = open_sim("nvml-values");
    gpu_sample s;
    for (int gpu = 0; gpu < 2; gpu++) {
        assert_int_equal(read_all(b, gpu, &s), GPU_OK);
        assert_int_equal(get(&s, M_TEMP_GPU), 61);
        assert_int_equal(get(&s, M_TEMP_MEMORY), 52);
        assert_int_equal(get(&s, M_UTIL_GPU), 77);
        assert_int_equal(get(&s, M_UTIL_MEMORY), 33);
        assert_int_equal(get(&s, M_UTIL_ENCODER), 5);
        assert_int_equal(get(&s, M_UTIL_DECODER), 6);
        assert_true(fabs(get(&s, M_MEM_USED) - 12345) < 0.01);
        assert_true(fabs(get(&s, M_MEM_RESERVED) - 479) < 0.01);
        assert_true(fabs(get(&s, M_MEM_FREE) - (81559 - 12345 - 479)) < 0.01);
        assert_true(fabs(get(&s, M_POWER_DRAW) - 432.25) < 1e-9);
        assert_int_equal(get(&s, M_CLOCK_SM), 1755);
        assert_int_equal(get(&s, M_CLOCK_MEM), 2619);
        assert_int_equal(get(&s, M_PCIE_GEN_CUR), 5);
        assert_int_equal(get(&s, M_PCIE_WIDTH_CUR), 16);
        assert_int_equal(get(&s, M_PCIE_REPLAY), 4);
        assert_int_equal(get(&s, M_ECC_SBE_VOL), 3);
        assert_int_equal(get(&s, M_REMAP_COR), 2);
        assert_true(get(&s, M_ENERGY) >= 0);
        assert_true(get(&s, M_POWER_ENFORCED_LIMIT) > 0);
        assert_int_equal(get(&s, M_MIG_MODE), 0);
        double pstate = get(&s, M_PSTATE);
        assert_true(pstate >= 0 && pstate <= 15);
        get(&s, M_CER_ACTIVE);
        get(&s, M_CER_SW_POWER_CAP);    /* derived from the mask */
        assert_absent(&s, M_FAN_SPEED); /* H100: no fan */
    }
    assert_int_equal(read_all(b, 2, &s), GPU_OK);
    assert_int_equal(get(&s, M_FAN_SPEED), 45);
    assert_int_equal(get(&s, M_TEMP_GPU), 50);
    assert_absent(&s, M_TEMP_MEMORY);
    assert_absent(&s, M_ECC_SBE_VOL);
    assert_absent(&s, M_REMAP_COR);
    assert_absent(&s, M_GPM_SM_ACTIVE);
    /* Absent stays absent (remembered), and a second read is as good as the first. */
    assert_int_equal(read_all(b, 2, &s), GPU_OK);
    assert_absent(&s, M_TEMP_MEMORY);
    assert_int_equal(get(&s, M_FAN_SPEED), 45);
    backend_error_count ec[16];
    int n = ops->error_counts(b, ec, 16);
    for (int i = 0; i < n; i++)
        fprintf(stderr, "note: error count %s %s %llu\n", ec[i].function, ec[i].error, (unsigned long long)ec[i].count);
}

static void test_want_subset(void **state)
{
    (void)state;
    backend *b = open_sim("nvml-values");
    metric_set want = {{0}};
    mset_add(&want, M_TEMP_GPU);
    mset_add(&want, M_CER_SW_POWER_CAP);
    gpu_sample s;
    memset(&s, 0, sizeof s);
    assert_int_equal(ops->read_sample(b, 0, &want, &s), GPU_OK);
    assert_int_equal(get(&s, M_TEMP_GPU), 61);
    get(&s, M_CER_ACTIVE); /* the parent of a wanted bit is read */
    assert_absent(&s, M_POWER_DRAW);
    assert_absent(&s, M_UTIL_GPU);
    assert_absent(&s, M_MEM_USED);
    assert_absent(&s, M_ECC_SBE_VOL);
    assert_absent(&s, M_XID_COUNT);
}

static void test_processes(void **state)
{
    (void)state;
    backend *b = open_sim("nvml-values");
    gpu_proc p[8];
    int n = ops->read_processes(b, 0, p, 8);
    assert_int_equal(n, 2);
    gpu_proc *self = p[0].pid == (unsigned)getpid() ? &p[0] : &p[1];
    gpu_proc *other = self == &p[0] ? &p[1] : &p[0];
    assert_int_equal(self->pid, getpid());
    assert_int_equal(self->type, PROC_COMPUTE);
    assert_true(self->has_mem && fabs(self->mem_mib - 2000) < 0.01);
    assert_int_equal(other->pid, 4194000);
    assert_int_equal(other->type, PROC_COMPUTE | PROC_GRAPHICS);
    assert_true(other->has_mem && fabs(other->mem_mib - 1000) < 0.01);
    assert_string_equal(other->name, "python3");
    if (self->has_sm)
        assert_int_equal(self->sm_util, 40);
    if (other->has_sm)
        assert_int_equal(other->sm_util, 95);
    /* max truncates, without overflowing */
    assert_int_equal(ops->read_processes(b, 0, p, 1), 1);
    /* a GPU without processes */
    assert_int_equal(ops->read_processes(b, 2, p, 8), 0);
}

/* 40 processes: the scratch buffers grow; lists merge per pid; max truncates. */
static void test_many_processes(void **state)
{
    (void)state;
    backend *b = open_sim("nvml-procs");
    gpu_proc p[64];
    for (int rep = 0; rep < 2; rep++) {
        int n = ops->read_processes(b, 0, p, 64);
        assert_int_equal(n, 40);
        for (int i = 0; i < n; i++) {
            unsigned k = p[i].pid - 4000001;
            assert_true(k < 40);
            static const unsigned types[] = {PROC_COMPUTE, PROC_GRAPHICS, PROC_COMPUTE | PROC_GRAPHICS};
            assert_int_equal(p[i].type, types[k % 3]);
            assert_true(fabs(p[i].mem_mib - (100 + k)) < 0.01);
            char name[16];
            snprintf(name, sizeof name, "worker%u", k);
            assert_string_equal(p[i].name, name);
        }
    }
    assert_int_equal(ops->read_processes(b, 0, p, 10), 10);
    assert_int_equal(ops->read_processes(b, 0, p, 0), 0);
}

static void test_processes_enriched(void **state)
{
    (void)state;
    const char *lib = gpusim_lib();
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/scenarios/nvml-values.yaml", GW_SOURCE_DIR);
    setenv("GPUWATCH_NVML_LIB", lib, 1);
    setenv("GPUSIM_SCENARIO", path, 1);
    sampler *sp = &cur_sampler;
    char err[512];
    assert_int_equal(sampler_open(sp, err, sizeof err), BK_OK);
    sampler_is_open = 1;
    gpu_proc p[8];
    int n = sampler_read_processes(sp, 1, p, 8);
    assert_int_equal(n, 2);
    for (int i = 0; i < n; i++) {
        if (p[i].pid == (unsigned)getpid()) {
            assert_string_equal(p[i].name, "test_nvml_backe"); /* comm: 15 characters */
            assert_non_null(strstr(p[i].cmdline, "test_nvml_backend"));
            assert_true(p[i].has_rss);
        } else {
            assert_string_equal(p[i].name, "python3"); /* not in /proc here: NVML's view stays */
            assert_string_equal(p[i].user, "alice");
            assert_string_equal(p[i].cmdline, "");
            assert_false(p[i].has_rss);
        }
    }
}

static void test_xid(void **state)
{
    (void)state;
    backend *b = open_sim("nvml-values");
    gpu_sample s;
    /* the scenario's clock is the test's: before the event at 0.3 s, then after it */
    assert_int_equal(ops->set_time(b, 0.1), 0);
    assert_int_equal(read_one(b, 1, M_XID_COUNT, &s), GPU_OK);
    assert_int_equal(get(&s, M_XID_COUNT), 0);
    assert_int_equal(ops->set_time(b, 0.5), 0);
    assert_int_equal(read_one(b, 1, M_XID_COUNT, &s), GPU_OK);
    assert_int_equal(get(&s, M_XID_COUNT), 1);
    assert_int_equal(get(&s, M_XID_LAST), 79);
    assert_int_equal(read_one(b, 0, M_XID_LAST, &s), GPU_OK);
    assert_int_equal(get(&s, M_XID_LAST), 0);
    assert_int_equal(get(&s, M_XID_COUNT), 0);
    assert_int_equal(read_one(b, 1, M_XID_COUNT, &s), GPU_OK);
    assert_int_equal(get(&s, M_XID_COUNT), 1); /* counted once */
}

static void test_gpm(void **state)
{
    (void)state;
    backend *b = open_sim("nvml-values");
    metric_set want = {{0}};
    for (int id = M_GPM_GR_ACTIVE; id <= M_GPM_NVLINK_RX; id++)
        mset_add(&want, (metric_id)id);
    gpu_sample s;
    assert_int_equal(b->gpus[1].gpm_prev_us, 0);
    uint64_t t0 = gw_mono_us();
    assert_int_equal(ops->read_sample(b, 0, &want, &s), GPU_OK);
    assert_true(gw_mono_us() - t0 >= 100000); /* one-shot: two samples 100 ms apart */
    double sm = get(&s, M_GPM_SM_ACTIVE);
    assert_true(sm >= 0 && sm <= 100);
    assert_true(get(&s, M_GPM_GR_ACTIVE) >= 0);
    assert_true(get(&s, M_GPM_DRAM_ACTIVE) >= 0);
    /* GPU 1 was primed by that read (its first GPM sample taken then), so its own read has its
     * 100 ms behind it and does not wait again */
    uint64_t primed = b->gpus[1].gpm_prev_us;
    assert_true(primed > 0 && primed < b->gpus[0].gpm_prev_us);
    assert_int_equal(ops->read_sample(b, 1, &want, &s), GPU_OK);
    get(&s, M_GPM_SM_ACTIVE);
    /* the GeForce has no GPM */
    assert_int_equal(ops->read_sample(b, 2, &want, &s), GPU_OK);
    assert_absent(&s, M_GPM_SM_ACTIVE);
}

/* Reads from several threads at once (the agent samples while its HTTP thread asks for processes
 * and error counters): every op takes the backend's lock. */
static void *reader(void *arg)
{
    intptr_t gpu = (intptr_t)arg;
    metric_set all;
    mset_all(&all);
    for (int i = 0; i < 40; i++) {
        gpu_sample s;
        gpu_proc p[8];
        backend_error_count ec[8];
        double temp = 0; /* no cmocka asserts off the main thread */
        if (ops->read_sample(cur, (int)gpu, &all, &s) != GPU_OK || !sample_get(&s, M_TEMP_GPU, &temp) || temp <= 0)
            return (void *)1;
        if (ops->read_processes(cur, (int)gpu, p, 8) < 0)
            return (void *)1;
        ops->error_counts(cur, ec, 8);
    }
    return NULL;
}

static void test_threads(void **state)
{
    (void)state;
    open_sim("nvml-values");
    pthread_t t[6];
    for (intptr_t i = 0; i < 6; i++)
        assert_int_equal(pthread_create(&t[i], NULL, reader, (void *)(i % 3)), 0);
    for (int i = 0; i < 6; i++) {
        void *ret = NULL;
        pthread_join(t[i], &ret);
        assert_null(ret);
    }
}

/* ---- faults ---- */

static void test_lost_and_back(void **state)
{
    (void)state;
    backend *b = open_sim("nvml-lost"); /* GPU 1 lost from 2 s to 4 s scenario time */
    gpu_sample s;
    /* the scenario's clock is the test's: before, inside and after the window, twice each */
    static const double at[] = {0.5, 1.9, 2.0, 3.5, 4.0, 6.0};
    for (int k = 0; k < 6; k++) {
        assert_int_equal(ops->set_time(b, at[k]), 0);
        assert_int_equal(read_all(b, 0, &s), GPU_OK); /* the other GPU goes on */
        assert_int_equal(get(&s, M_TEMP_GPU), 40);
        gpu_status st = read_all(b, 1, &s);
        if (at[k] >= 2 && at[k] < 4) {
            assert_int_equal(st, GPU_LOST);
            for (int id = M_STR_END; id < M_COUNT; id++)
                assert_false(mset_has(&s.present, (metric_id)id));
        } else {
            assert_int_equal(st, GPU_OK);
            assert_int_equal(get(&s, M_TEMP_GPU), 40);
        }
    }
    backend_error_count ec[16];
    int n = ops->error_counts(b, ec, 16), lost = 0;
    for (int i = 0; i < n; i++)
        lost |= strcmp(ec[i].error, "NVML_ERROR_GPU_IS_LOST") == 0;
    assert_true(lost);
}

/* Lost from the start: the sampler has no identity for it until it comes back, then reads it. */
static void test_lost_at_start(void **state)
{
    (void)state;
    const char *lib = gpusim_lib();
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/scenarios/nvml-lost.yaml", GW_SOURCE_DIR);
    setenv("GPUWATCH_NVML_LIB", lib, 1);
    setenv("GPUSIM_SCENARIO", path, 1);
    setenv("GPUSIM_SPEED", "0", 1);
    setenv("GPUSIM_T0", "3", 1); /* 1 s into the 2 s window, the clock stopped there */
    char err[512];
    assert_int_equal(sampler_open(&cur_sampler, err, sizeof err), BK_OK);
    sampler_is_open = 1;
    sampler *sp = &cur_sampler;
    assert_int_equal(sp->count, 2);
    assert_true(sp->gpus[0].have_info);
    assert_false(sp->gpus[1].have_info);
    gpu_sample s;
    assert_int_equal(sampler_read(sp, 1, NULL, &s), GPU_LOST);
    gpu_proc p[4];
    assert_true(sampler_read_processes(sp, 1, p, 4) < 0);
    assert_int_equal(sampler_read(sp, 1, NULL, &s), GPU_LOST); /* still lost while the clock stands */
    assert_int_equal(sampler_set_time(sp, 4.5), 0);            /* past the window */
    assert_int_equal(sampler_read(sp, 1, NULL, &s), GPU_OK);
    assert_true(sp->gpus[1].have_info);
    assert_string_equal(sp->gpus[1].info.str[M_NAME], "NVIDIA H100 80GB HBM3");
    assert_int_equal(get(&s, M_TEMP_GPU), 40);
    assert_int_equal(get(&s, M_MEM_TOTAL), 81559); /* statics merged in once read */
}

static void test_error_counted(void **state)
{
    (void)state;
    backend *b = open_sim("nvml-faults");
    gpu_sample s;
    assert_int_equal(read_one(b, 0, M_UTIL_GPU, &s), GPU_OK);
    assert_absent(&s, M_UTIL_GPU); /* this sample only: asked again next time */
    assert_int_equal(read_one(b, 0, M_UTIL_GPU, &s), GPU_OK);
    assert_absent(&s, M_UTIL_GPU);
    assert_int_equal(read_one(b, 1, M_UTIL_GPU, &s), GPU_OK);
    get(&s, M_UTIL_GPU);
    backend_error_count ec[16];
    int n = ops->error_counts(b, ec, 16);
    uint64_t count = 0;
    for (int i = 0; i < n; i++)
        if (strcmp(ec[i].function, "nvmlDeviceGetUtilizationRates") == 0 &&
            strcmp(ec[i].error, "NVML_ERROR_UNKNOWN") == 0)
            count = ec[i].count;
    assert_int_equal(count, 2);
}

/* Errors of function counted by the backend, by name. */
static uint64_t errors_of(backend *b, const char *function, const char *error)
{
    backend_error_count ec[16];
    int n = ops->error_counts(b, ec, 16);
    for (int i = 0; i < n; i++)
        if (strcmp(ec[i].function, function) == 0 && strcmp(ec[i].error, error) == 0)
            return ec[i].count;
    return 0;
}

static void test_not_supported_not_asked_again(void **state)
{
    (void)state;
    backend *b = open_sim("nvml-faults");
    gpu_sample s;
    /* The getter sleeps 300 ms (a delay fault) before answering NOT_SUPPORTED. */
    uint64_t t0 = gw_mono_us();
    assert_int_equal(read_one(b, 0, M_PCIE_GEN_CUR, &s), GPU_OK);
    assert_true(gw_mono_us() - t0 >= 250000);
    assert_absent(&s, M_PCIE_GEN_CUR);
    /* Not called again: the scenario's second call about GPU 0 would answer UNKNOWN, counted. */
    for (int i = 0; i < 3; i++) {
        assert_int_equal(read_one(b, 0, M_PCIE_GEN_CUR, &s), GPU_OK);
        assert_absent(&s, M_PCIE_GEN_CUR);
    }
    assert_int_equal(errors_of(b, "nvmlDeviceGetCurrPcieLinkGeneration", "NVML_ERROR_UNKNOWN"), 0);
}

static void test_slow_call(void **state)
{
    (void)state;
    backend *b = open_sim("nvml-faults");
    gpu_sample s;
    uint64_t t0 = gw_mono_us();
    assert_int_equal(read_one(b, 1, M_CLOCK_SM, &s), GPU_OK);
    assert_true(gw_mono_us() - t0 >= 200000);
    get(&s, M_CLOCK_SM);
}

/* Size games: however the driver answers INSUFFICIENT_SIZE (the count it was given, ever more, the
 * largest count, 0) or SUCCESS with a count beyond the buffer, the scratch buffers stay within
 * NV_MAX_LIST entries and each read ends. */
static void test_size_games(void **state)
{
    (void)state;
    backend *b = open_sim("nvml-sizes");
    gpu_proc p[16];
    for (int rep = 0; rep < 20; rep++) {
        for (int gpu = 0; gpu < 6; gpu++) {
            int n = ops->read_processes(b, gpu, p, 16);
            assert_true(n >= 0 && n <= 3);
            for (int i = 0; i < n; i++)
                assert_true(p[i].pid >= 4100001 && p[i].pid <= 4100003);
            if (gpu == 5) {
                assert_int_equal(n, 3);
                for (int i = 0; i < n; i++)
                    assert_false(p[i].has_sm); /* the utilization call never answered */
            }
            nv_gpu *g = &b->gpus[gpu];
            assert_true(g->pbuf_cap <= (size_t)NV_MAX_LIST * sizeof(nvmlProcessInfo_t));
            assert_true(g->ubuf_cap <= NV_MAX_LIST);
        }
    }
    backend_error_count ec[16];
    int n = ops->error_counts(b, ec, 16);
    uint64_t count = 0;
    for (int i = 0; i < n; i++)
        if (strcmp(ec[i].error, "NVML_ERROR_INSUFFICIENT_SIZE") == 0)
            count += ec[i].count;
    assert_true(count >= 20 * 5); /* gave up and said so, on every read of GPUs 0-3 and 5 */
}

typedef struct {
    backend *b;
    gpu_status st;
    double temp;
    atomic_int done;
} hung_read;

static void *read_temp(void *arg)
{
    hung_read *h = arg;
    gpu_sample s;
    h->st = read_one(h->b, 0, M_TEMP_GPU, &s);
    if (!sample_get(&s, M_TEMP_GPU, &h->temp))
        h->temp = -1;
    atomic_store(&h->done, 1);
    return NULL;
}

/* A call that hangs on one GPU (until scenario time 2 s) holds up that GPU only: each GPU has its
 * own lock. The scenario's clock is the test's (set_time): the call cannot end before the test
 * moves it, however slow the machine. */
static void test_hang_one_gpu(void **state)
{
    (void)state;
    hung_read h = {.b = open_sim("nvml-hang")};
    assert_int_equal(ops->set_time(h.b, 0), 0);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, read_temp, &h), 0);
    /* inside the call: the read holds GPU 0's lock */
    uint64_t end = gw_mono_us() + 60000000;
    while (pthread_mutex_trylock(&h.b->gpus[0].lock) == 0 && gw_mono_us() < end) {
        pthread_mutex_unlock(&h.b->gpus[0].lock);
        gw_sleep_us(5000);
    }
    assert_false(atomic_load(&h.done));
    gpu_sample s;
    gpu_proc p[4];
    for (int i = 0; i < 10; i++) {
        assert_int_equal(read_all(h.b, 1, &s), GPU_OK);
        assert_int_equal(get(&s, M_TEMP_GPU), 44);
        assert_true(ops->read_processes(h.b, 1, p, 4) >= 0);
    }
    assert_false(atomic_load(&h.done)); /* GPU 1 answered while GPU 0's call still hung */
    assert_int_equal(ops->set_time(h.b, 2.5), 0);
    pthread_join(t, NULL);
    assert_int_equal(h.st, GPU_OK);
    assert_true(h.temp > 0);
}

/* The driver unloaded for a while: reads fail as a whole (GPU_ERROR, nothing present), counted as
 * UNINITIALIZED; then they answer again. */
static void test_driver_unloaded(void **state)
{
    (void)state;
    backend *b = open_sim("nvml-driver-gone"); /* gone from 1 s to 2 s scenario time */
    gpu_sample s;
    /* the scenario's clock is the test's: before, inside and after the window */
    static const double at[] = {0.5, 1.0, 1.5, 2.0, 3.0};
    for (int k = 0; k < 5; k++) {
        assert_int_equal(ops->set_time(b, at[k]), 0);
        gpu_status st = read_all(b, 1, &s);
        if (at[k] >= 1 && at[k] < 2) {
            assert_int_equal(st, GPU_ERROR);
            for (int id = M_STR_END; id < M_COUNT; id++)
                assert_false(mset_has(&s.present, (metric_id)id));
        } else {
            assert_int_equal(st, GPU_OK);
            assert_int_equal(get(&s, M_TEMP_GPU), 45);
        }
    }
    backend_error_count ec[16];
    int n = ops->error_counts(b, ec, 16), uninit = 0;
    for (int i = 0; i < n; i++)
        uninit |= strcmp(ec[i].error, "NVML_ERROR_UNINITIALIZED") == 0;
    assert_true(uninit);
}

static void test_missing_symbols(void **state)
{
    (void)state;
    backend *b = open_sim("nvml-faults");
    gpu_sample s;
    for (int rep = 0; rep < 2; rep++) {
        assert_int_equal(read_all(b, 1, &s), GPU_OK);
        assert_int_equal(get(&s, M_TEMP_GPU), 66); /* TemperatureV missing: GetTemperature */
        assert_true(fabs(get(&s, M_MEM_USED) - (5000 + 479)) <
                    0.01);                 /* MemoryInfo_v2 missing: v1 counts reserved as used */
        assert_absent(&s, M_MEM_RESERVED); /* only v2 knows it */
    }
}

/* MIG devices (read_mig): each slot asked, empty ones skipped; ids, profile from the name, UUID and
 * memory as the scenario gives them; a GPU with MIG mode off has none. */
static void test_mig_devices(void **state)
{
    (void)state;
    backend *b = open_sim("mig-h100");
    gpu_mig m[GW_MIG_MAX];
    assert_int_equal(ops->read_mig(b, 0, m, GW_MIG_MAX), 4);
    static const unsigned gi[] = {2, 3, 9, 10};
    static const double total[] = {40448, 20096, 9984, 9984}, used[] = {39 + 2296 + 1272 + 7484, 17, 9, 9};
    static const char *const profile[] = {"3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"};
    for (int k = 0; k < 4; k++) {
        assert_int_equal(m[k].index, k);
        assert_int_equal(m[k].gi, gi[k]);
        assert_int_equal(m[k].ci, 0);
        assert_string_equal(m[k].profile, profile[k]);
        assert_true(m[k].has_mem && m[k].mem_total_mib == total[k] && m[k].mem_used_mib == used[k]);
        char want[64];
        snprintf(want, sizeof want, "MIG-%08d-0000-0000-0000-%012d", k, k);
        assert_string_equal(m[k].uuid, want);
    }
    assert_int_equal(ops->read_mig(b, 0, m, 2), 2); /* no more than asked */
    ops->close(b);
    cur = NULL;
    b = open_sim("nvml-values"); /* H100s with MIG mode off */
    assert_int_equal(ops->read_mig(b, 0, m, GW_MIG_MAX), 0);
}

/* NVLink per link: state and the three error counters, with their totals, through one field-value
 * call; the same through the per-link getters of a library without GetFieldValues (the minimal
 * gpusim); absent on a board without NVLink and beyond a board's last link. */
static void check_nvlink(backend *b)
{
    gpu_sample s;
    assert_int_equal(read_all(b, 0, &s), GPU_OK);
    assert_int_equal(get(&s, M_NVLINK_ACTIVE), 17);
    assert_int_equal(get(&s, nvlink_id(5, NVL_STATE)), 0);
    assert_int_equal(get(&s, nvlink_id(4, NVL_STATE)), 1);
    assert_int_equal(get(&s, nvlink_id(3, NVL_CRC)), 5000);
    assert_int_equal(get(&s, nvlink_id(2, NVL_REPLAY)), 7);
    assert_int_equal(get(&s, nvlink_id(9, NVL_RECOVERY)), 1);
    assert_int_equal(get(&s, nvlink_id(17, NVL_CRC)), 0);
    assert_int_equal(get(&s, M_NVLINK_CRC_TOTAL), 5000);
    assert_int_equal(get(&s, M_NVLINK_REPLAY_TOTAL), 7);
    assert_int_equal(get(&s, M_NVLINK_RECOVERY_TOTAL), 1);
    for (int k = 0; k < 2; k++) { /* the L4: none, the second time without asking */
        assert_int_equal(read_all(b, 1, &s), GPU_OK);
        assert_absent(&s, M_NVLINK_ACTIVE);
        assert_absent(&s, M_NVLINK_CRC_TOTAL);
        assert_absent(&s, nvlink_id(0, NVL_STATE));
    }
    assert_int_equal(read_all(b, 2, &s), GPU_OK);
    assert_int_equal(get(&s, M_NVLINK_ACTIVE), 12);
    assert_int_equal(get(&s, nvlink_id(11, NVL_STATE)), 1);
    assert_absent(&s, nvlink_id(12, NVL_STATE));
    assert_absent(&s, nvlink_id(17, NVL_CRC));
    /* only the total wanted: the links are read for it */
    assert_int_equal(read_one(b, 0, M_NVLINK_CRC_TOTAL, &s), GPU_OK);
    assert_int_equal(get(&s, M_NVLINK_CRC_TOTAL), 5000);
}

static void test_nvlink(void **state)
{
    (void)state;
    check_nvlink(open_sim("nvml-nvlink"));
}

/* The backend on gpusim's minimal variant (no optional functions: dlsym really fails for them),
 * playing tests/scenarios/NAME.yaml; skips where the variant was not built. */
static backend *open_minimal(const char *name)
{
    char lib[4096];
    snprintf(lib, sizeof lib, "%s", gpusim_lib());
    char *slash = strrchr(lib, '/');
    snprintf(slash, sizeof lib - (size_t)(slash - lib), "/minimal/libnvidia-ml.so.1");
    if (access(lib, R_OK) != 0)
        skip_case("gpusim's minimal variant is not built");
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/scenarios/%s.yaml", GW_SOURCE_DIR, name);
    setenv("GPUWATCH_NVML_LIB", lib, 1);
    setenv("GPUSIM_SCENARIO", path, 1);
    char err[512] = "";
    assert_int_equal(ops->open(&cur, err, sizeof err), BK_OK);
    return cur;
}

static void test_nvlink_getters(void **state)
{
    (void)state;
    check_nvlink(open_minimal("nvml-nvlink"));
}

/* gpusim's minimal variant does not export the optional functions: dlsym really fails for them. */
static void test_minimal_variant(void **state)
{
    (void)state;
    backend *b = open_minimal("nvml-values");
    gpu_info info;
    gpu_sample s;
    assert_int_equal(ops->read_info(b, 0, &info, &s), GPU_OK);
    assert_string_equal(info.str[M_NAME], "NVIDIA H100 80GB HBM3");
    assert_int_equal(read_all(b, 0, &s), GPU_OK);
    assert_int_equal(get(&s, M_TEMP_GPU), 61);
    assert_int_equal(get(&s, M_UTIL_GPU), 77);
    assert_true(fabs(get(&s, M_MEM_USED) - 12345) < 0.01);
    /* fallbacks: ThrottleReasons, GetTemperature, and the single getters for field values */
    get(&s, M_CER_ACTIVE);
    assert_int_equal(get(&s, M_ECC_SBE_VOL), 3);
    assert_int_equal(get(&s, M_REMAP_COR), 2);
    assert_int_equal(get(&s, M_PCIE_REPLAY), 4);
    assert_true(get(&s, M_ENERGY) >= 0);
    get(&s, M_VIOL_POWER);
    /* no other source: absent */
    assert_absent(&s, M_TEMP_MEMORY);
    assert_absent(&s, M_POWER_DRAW_INSTANT);
    assert_absent(&s, M_UTIL_JPEG);
    assert_absent(&s, M_UTIL_OFA);
    assert_absent(&s, M_GPM_SM_ACTIVE);
    gpu_proc p[8];
    assert_int_equal(ops->read_processes(b, 0, p, 8), 2);
    assert_false(p[0].has_sm || p[1].has_sm); /* no GetProcessUtilization */
    assert_true(p[0].has_mem && p[1].has_mem);
}

static void test_numa_from_sysfs(void **state)
{
    (void)state;
    char root[] = "/tmp/gw-sysfs-XXXXXX";
    assert_non_null(mkdtemp(root));
    char path[256];
    snprintf(path, sizeof path, "%s/bus", root);
    mkdir(path, 0700);
    snprintf(path, sizeof path, "%s/bus/pci", root);
    mkdir(path, 0700);
    snprintf(path, sizeof path, "%s/bus/pci/devices", root);
    mkdir(path, 0700);
    snprintf(path, sizeof path, "%s/bus/pci/devices/0000:1a:00.0", root);
    mkdir(path, 0700);
    snprintf(path, sizeof path, "%s/bus/pci/devices/0000:1a:00.0/numa_node", root);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("1\n", f);
    fclose(f);
    assert_int_equal(nv_numa_from_sysfs(root, 0, 0x1a, 0), 1);
    assert_int_equal(nv_numa_from_sysfs(root, 0, 0x1b, 0), -1);
    unlink(path);
    for (int i = 0; i < 4; i++) {
        char *slash = strrchr(path, '/');
        *slash = 0;
        rmdir(path);
    }
    rmdir(root);
}

int main(void)
{
    backend_register(&nvml_backend_ops);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_no_library, teardown),
        cmocka_unit_test_teardown(test_not_nvml, teardown),
        cmocka_unit_test_teardown(test_no_driver, teardown),
        cmocka_unit_test_teardown(test_no_permission, teardown),
        cmocka_unit_test_teardown(test_identity_and_statics, teardown),
        cmocka_unit_test_teardown(test_dynamic_values, teardown),
        cmocka_unit_test_teardown(test_want_subset, teardown),
        cmocka_unit_test_teardown(test_processes, teardown),
        cmocka_unit_test_teardown(test_many_processes, teardown),
        cmocka_unit_test_teardown(test_processes_enriched, teardown),
        cmocka_unit_test_teardown(test_xid, teardown),
        cmocka_unit_test_teardown(test_gpm, teardown),
        cmocka_unit_test_teardown(test_threads, teardown),
        cmocka_unit_test_teardown(test_lost_and_back, teardown),
        cmocka_unit_test_teardown(test_lost_at_start, teardown),
        cmocka_unit_test_teardown(test_error_counted, teardown),
        cmocka_unit_test_teardown(test_not_supported_not_asked_again, teardown),
        cmocka_unit_test_teardown(test_slow_call, teardown),
        cmocka_unit_test_teardown(test_size_games, teardown),
        cmocka_unit_test_teardown(test_hang_one_gpu, teardown),
        cmocka_unit_test_teardown(test_driver_unloaded, teardown),
        cmocka_unit_test_teardown(test_missing_symbols, teardown),
        cmocka_unit_test_teardown(test_mig_devices, teardown),
        cmocka_unit_test_teardown(test_minimal_variant, teardown),
        cmocka_unit_test_teardown(test_nvlink, teardown),
        cmocka_unit_test_teardown(test_nvlink_getters, teardown),
        cmocka_unit_test_teardown(test_numa_from_sysfs, teardown),
    };
    return skip_result(cmocka_run_group_tests(tests, NULL, NULL));
}
