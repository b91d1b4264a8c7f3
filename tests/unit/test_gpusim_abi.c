/* test_gpusim_abi.c - gpusim's libnvidia-ml.so.1 as a client sees it: dlopen (GPUSIM_LIB),
 * dlsym by name, NVML return codes and struct layouts; values equal the scenario model's. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "../../sim/lib/nvml_exports.h"
#include "nvml_names.h"

static void *lib;
static char scenario_path[4096];

static void *sym(const char *name)
{
    void *p = dlsym(lib, name);
    if (!p)
        fail_msg("dlsym(%s): %s", name, dlerror());
    return p;
}

/* F(nvmlX) is the library's nvmlX, with the exact NVML prototype. */
#define F(name) ((__typeof__(&name))sym(#name))

/* (Re)starts the library at a fixed scenario time t (GPUSIM_SPEED=0). */
static void start_at(const char *t)
{
    setenv("GPUSIM_SCENARIO", scenario_path, 1);
    setenv("GPUSIM_SPEED", "0", 1);
    setenv("GPUSIM_T0", t, 1);
    assert_int_equal(F(nvmlInit_v2)(), NVML_SUCCESS);
}

static void stop(void)
{
    assert_int_equal(F(nvmlShutdown)(), NVML_SUCCESS);
}

static nvmlDevice_t dev(unsigned i)
{
    nvmlDevice_t d = NULL;
    assert_int_equal(F(nvmlDeviceGetHandleByIndex_v2)(i, &d), NVML_SUCCESS);
    return d;
}

static int setup(void **state)
{
    (void)state;
    const char *path = getenv("GPUSIM_LIB"), *src = getenv("GW_SOURCE_DIR");
    snprintf(scenario_path, sizeof scenario_path, "%s/tests/scenarios/gpusim-abi.yaml", src ? src : GW_SOURCE_DIR);
    lib = dlopen(path ? path : GW_BUILD_DIR "/gpusim/libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        fprintf(stderr, "dlopen: %s\n", dlerror());
    return lib ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    dlclose(lib);
    return 0;
}

static void every_listed_function_resolves(void **state)
{
    (void)state;
    for (int i = 0; sim_nvml_functions[i]; i++)
        if (!dlsym(lib, sim_nvml_functions[i]))
            fail_msg("%s is not exported", sim_nvml_functions[i]);
    assert_non_null(dlsym(lib, "gpusimVersion"));
    assert_null(dlsym(lib, "scenario_load")); /* internals stay hidden */
    assert_null(dlsym(lib, "sim_nvml_error_code"));
    assert_null(dlsym(lib, "gs"));
    assert_string_equal(F(gpusimVersion)(), "gpusim 1.0");
}

static void init_is_reference_counted(void **state)
{
    (void)state;
    unsigned n = 0;
    assert_int_equal(F(nvmlDeviceGetCount_v2)(&n), NVML_ERROR_UNINITIALIZED);
    assert_int_equal(F(nvmlShutdown)(), NVML_ERROR_UNINITIALIZED);
    start_at("1");
    assert_int_equal(F(nvmlInitWithFlags)(0), NVML_SUCCESS);
    assert_int_equal(F(nvmlInit)(), NVML_SUCCESS);
    stop();
    stop();
    assert_int_equal(F(nvmlDeviceGetCount_v2)(&n), NVML_SUCCESS);
    assert_int_equal(n, 3);
    stop();
    assert_int_equal(F(nvmlDeviceGetCount_v2)(&n), NVML_ERROR_UNINITIALIZED);
    assert_int_equal(F(nvmlShutdown)(), NVML_ERROR_UNINITIALIZED);
}

static void arguments_are_checked(void **state)
{
    (void)state;
    start_at("1");
    nvmlDevice_t d = NULL;
    char name[96];
    unsigned v;
    assert_int_equal(F(nvmlDeviceGetHandleByIndex_v2)(3, &d), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(F(nvmlDeviceGetHandleByIndex_v2)(0, NULL), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(F(nvmlDeviceGetCount_v2)(NULL), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(F(nvmlDeviceGetPowerUsage)(dev(0), NULL), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(F(nvmlDeviceGetPowerUsage)((nvmlDevice_t)name, &v), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(F(nvmlDeviceGetName)(dev(0), name, 5), NVML_ERROR_INSUFFICIENT_SIZE);
    assert_int_equal(F(nvmlDeviceGetName)(dev(0), name, sizeof name), NVML_SUCCESS);
    assert_string_equal(name, "NVIDIA H100 80GB HBM3");
    assert_int_equal(F(nvmlSystemGetDriverVersion)(name, 4), NVML_ERROR_INSUFFICIENT_SIZE);
    assert_int_equal(F(nvmlSystemGetDriverVersion)(name, 80), NVML_SUCCESS);
    assert_string_equal(name, "590.48.01");
    for (int code = 0; code <= 31; code++)
        assert_non_null(F(nvmlErrorString)((nvmlReturn_t)code));
    assert_string_equal(F(nvmlErrorString)(NVML_ERROR_GPU_IS_LOST), "GPU is lost");
    assert_string_equal(F(nvmlErrorString)((nvmlReturn_t)12345), "Unknown Error");
    stop();
}

static void identity_and_lookups(void **state)
{
    (void)state;
    start_at("1");
    char uuid[96], serial[30];
    nvmlDevice_t d = NULL;
    nvmlPciInfo_t pci;
    memset(&pci, 0x55, sizeof pci);
    assert_int_equal(F(nvmlDeviceGetPciInfo_v3)(dev(1), &pci), NVML_SUCCESS);
    assert_string_equal(pci.busId, "00000000:2A:00.0");
    assert_string_equal(pci.busIdLegacy, "0000:2A:00.0");
    assert_int_equal(pci.pciDeviceId, 0x233010DE);
    assert_int_equal(F(nvmlDeviceGetHandleByPciBusId_v2)("0000:2a:00.0", &d), NVML_SUCCESS);
    assert_ptr_equal(d, dev(1));
    assert_int_equal(F(nvmlDeviceGetUUID)(dev(2), uuid, sizeof uuid), NVML_SUCCESS);
    assert_int_equal(strlen(uuid), 40);
    assert_int_equal(F(nvmlDeviceGetHandleByUUID)(uuid, &d), NVML_SUCCESS);
    assert_ptr_equal(d, dev(2));
    assert_int_equal(F(nvmlDeviceGetHandleByUUID)("GPU-nope", &d), NVML_ERROR_NOT_FOUND);
    unsigned idx = 9;
    assert_int_equal(F(nvmlDeviceGetIndex)(dev(2), &idx), NVML_SUCCESS);
    assert_int_equal(idx, 2);
    assert_int_equal(F(nvmlDeviceGetSerial)(dev(0), serial, sizeof serial), NVML_SUCCESS);
    assert_int_equal(F(nvmlDeviceGetSerial)(dev(2), serial, sizeof serial), NVML_ERROR_NOT_SUPPORTED); /* GeForce */
    int major = 0, minor = 0;
    assert_int_equal(F(nvmlDeviceGetCudaComputeCapability)(dev(2), &major, &minor), NVML_SUCCESS);
    assert_true(major == 8 && minor == 9);
    stop();
}

/* The library reports exactly what the model computes for the same scenario time. */
static void values_match_the_model(void **state)
{
    (void)state;
    char err[512];
    scenario *sc = scenario_load(scenario_path, err, sizeof err);
    if (!sc)
        fail_msg("%s", err);
    start_at("37.5");
    double v;
    unsigned u;
    nvmlUtilization_t ut;
    assert_int_equal(F(nvmlDeviceGetUtilizationRates)(dev(0), &ut), NVML_SUCCESS);
    assert_int_equal(sim_value(sc, 0, M_UTIL_GPU, 37.5, &v), 0);
    assert_int_equal(ut.gpu, (unsigned)v);
    assert_int_equal(ut.gpu, 37); /* the ramp's mean over [37.333, 37.5] s (H100: 167 ms period) */
    assert_int_equal(F(nvmlDeviceGetPowerUsage)(dev(0), &u), NVML_SUCCESS);
    sim_value(sc, 0, M_POWER_DRAW, 37.5, &v);
    assert_int_equal(u, (unsigned)(v * 1000 + 0.5));
    assert_int_equal(F(nvmlDeviceGetTemperature)(dev(0), NVML_TEMPERATURE_GPU, &u), NVML_SUCCESS);
    sim_value(sc, 0, M_TEMP_GPU, 37.5, &v);
    assert_int_equal(u, (unsigned)v);
    assert_int_equal(F(nvmlDeviceGetClockInfo)(dev(0), NVML_CLOCK_SM, &u), NVML_SUCCESS);
    sim_value(sc, 0, M_CLOCK_SM, 37.5, &v);
    assert_int_equal(u, (unsigned)v);
    unsigned long long e;
    assert_int_equal(F(nvmlDeviceGetTotalEnergyConsumption)(dev(0), &e), NVML_SUCCESS);
    sim_value(sc, 0, M_ENERGY, 37.5, &v);
    assert_int_equal(e, (unsigned long long)v);
    nvmlMemory_v2_t m2 = {.version = nvmlMemory_v2};
    assert_int_equal(F(nvmlDeviceGetMemoryInfo_v2)(dev(0), &m2), NVML_SUCCESS);
    assert_int_equal(m2.total, 81559ULL << 20);
    assert_int_equal(m2.reserved, 479ULL << 20);
    assert_int_equal(m2.used, (1024ULL + 2048) << 20);
    assert_int_equal(m2.free, m2.total - m2.reserved - m2.used);
    m2.version = 2; /* nvtop's way */
    assert_int_equal(F(nvmlDeviceGetMemoryInfo_v2)(dev(0), &m2), NVML_SUCCESS);
    m2.version = 3;
    assert_int_equal(F(nvmlDeviceGetMemoryInfo_v2)(dev(0), &m2), NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    nvmlMemory_t m1;
    assert_int_equal(F(nvmlDeviceGetMemoryInfo)(dev(0), &m1), NVML_SUCCESS);
    assert_int_equal(m1.used, (1024ULL + 2048 + 479) << 20);
    nvmlTemperature_v1_t tv = {.version = nvmlTemperature_v1, .sensorType = NVML_TEMPERATURE_GPU};
    assert_int_equal(F(nvmlDeviceGetTemperatureV)(dev(0), &tv), NVML_SUCCESS);
    sim_value(sc, 0, M_TEMP_GPU, 37.5, &v);
    assert_int_equal(tv.temperature, (int)v);
    unsigned long long reasons = 0;
    assert_int_equal(F(nvmlDeviceGetSupportedClocksEventReasons)(dev(0), &reasons), NVML_SUCCESS);
    assert_int_equal(reasons, 0x1FF);
    assert_int_equal(F(nvmlDeviceGetFanSpeed)(dev(0), &u), NVML_ERROR_NOT_SUPPORTED); /* no fan on H100 SXM */
    stop();
    scenario_free(sc);
}

/* Every simple getter equals the model (what `gpusim render` prints) on each demo GPU. */
typedef nvmlReturn_t (*uint_getter)(nvmlDevice_t, unsigned int *);

static void demo_getters_equal_the_model(void **state)
{
    (void)state;
    static const struct {
        const char *fn;
        metric_id m;
        double scale;
    } getters[] = {{"nvmlDeviceGetPowerUsage", M_POWER_DRAW, 1000},
                   {"nvmlDeviceGetEnforcedPowerLimit", M_POWER_ENFORCED_LIMIT, 1000},
                   {"nvmlDeviceGetPowerManagementLimit", M_POWER_LIMIT, 1000},
                   {"nvmlDeviceGetPerformanceState", M_PSTATE, 1},
                   {"nvmlDeviceGetCurrPcieLinkGeneration", M_PCIE_GEN_CUR, 1},
                   {"nvmlDeviceGetMaxPcieLinkWidth", M_PCIE_WIDTH_MAX, 1},
                   {"nvmlDeviceGetPcieReplayCounter", M_PCIE_REPLAY, 1},
                   {"nvmlDeviceGetIndex", M_INDEX, 1}};
    const char *src = getenv("GW_SOURCE_DIR");
    char demo[4096], err[512];
    snprintf(demo, sizeof demo, "%s/sim/scenarios/demo-8gpu.yaml", src ? src : GW_SOURCE_DIR);
    scenario *sc = scenario_load(demo, err, sizeof err);
    if (!sc)
        fail_msg("%s", err);
    const char *times[] = {"0", "33.3", "95.25"};
    for (int k = 0; k < 3; k++) {
        setenv("GPUSIM_SCENARIO", demo, 1);
        setenv("GPUSIM_SPEED", "0", 1);
        setenv("GPUSIM_T0", times[k], 1);
        assert_int_equal(F(nvmlInit_v2)(), NVML_SUCCESS);
        double t = strtod(times[k], NULL), v;
        for (unsigned g = 0; g < 8; g++) {
            nvmlDevice_t d = dev(g);
            unsigned u;
            for (size_t i = 0; i < sizeof getters / sizeof getters[0]; i++) {
                assert_int_equal(((uint_getter)sym(getters[i].fn))(d, &u), NVML_SUCCESS);
                assert_int_equal(sim_value(sc, (int)g, getters[i].m, t, &v), 0);
                if (u != (unsigned)(v * getters[i].scale + 0.5))
                    fail_msg("%s gpu %u t %g: %u vs %g", getters[i].fn, g, t, u, v);
            }
            nvmlUtilization_t ut;
            assert_int_equal(F(nvmlDeviceGetUtilizationRates)(d, &ut), NVML_SUCCESS);
            sim_value(sc, (int)g, M_UTIL_GPU, t, &v);
            assert_int_equal(ut.gpu, (unsigned)v);
            sim_value(sc, (int)g, M_UTIL_MEMORY, t, &v);
            assert_int_equal(ut.memory, (unsigned)v);
            static const struct {
                nvmlClockType_t type;
                metric_id m;
            } clocks[] = {{NVML_CLOCK_GRAPHICS, M_CLOCK_GR},
                          {NVML_CLOCK_SM, M_CLOCK_SM},
                          {NVML_CLOCK_MEM, M_CLOCK_MEM},
                          {NVML_CLOCK_VIDEO, M_CLOCK_VIDEO}};
            for (int c = 0; c < 4; c++) {
                assert_int_equal(F(nvmlDeviceGetClockInfo)(d, clocks[c].type, &u), NVML_SUCCESS);
                sim_value(sc, (int)g, clocks[c].m, t, &v);
                assert_int_equal(u, (unsigned)v);
            }
            assert_int_equal(F(nvmlDeviceGetTemperature)(d, NVML_TEMPERATURE_GPU, &u), NVML_SUCCESS);
            sim_value(sc, (int)g, M_TEMP_GPU, t, &v);
            assert_int_equal(u, (unsigned)v);
            unsigned long long r, e;
            assert_int_equal(F(nvmlDeviceGetCurrentClocksEventReasons)(d, &r), NVML_SUCCESS);
            sim_value(sc, (int)g, M_CER_ACTIVE, t, &v);
            assert_int_equal(r, (unsigned long long)v);
            assert_int_equal(F(nvmlDeviceGetTotalEnergyConsumption)(d, &e), NVML_SUCCESS);
            sim_value(sc, (int)g, M_ENERGY, t, &v);
            assert_int_equal(e, (unsigned long long)v);
            nvmlMemory_v2_t m = {.version = nvmlMemory_v2};
            assert_int_equal(F(nvmlDeviceGetMemoryInfo_v2)(d, &m), NVML_SUCCESS);
            sim_value(sc, (int)g, M_MEM_USED, t, &v);
            assert_int_equal(m.used, (unsigned long long)(v * 1048576.0 + 0.5));
        }
        stop();
    }
    scenario_free(sc);
}

/* Calls count(dev, &n, buf) as pynvml and nvtop do: first with n = 0 and no buffer. */
static void process_lists_follow_the_two_call_protocol(void **state)
{
    (void)state;
    start_at("60");
    unsigned n = 0;
    assert_int_equal(F(nvmlDeviceGetComputeRunningProcesses_v3)(dev(1), &n, NULL), NVML_ERROR_INSUFFICIENT_SIZE);
    assert_int_equal(n, 3);
    nvmlProcessInfo_t p[8];
    memset(p, 0xAB, sizeof p);
    n = 2;
    assert_int_equal(F(nvmlDeviceGetComputeRunningProcesses_v3)(dev(1), &n, p), NVML_ERROR_INSUFFICIENT_SIZE);
    assert_int_equal(n, 3);
    n = 8;
    assert_int_equal(F(nvmlDeviceGetComputeRunningProcesses_v3)(dev(1), &n, p), NVML_SUCCESS);
    assert_int_equal(n, 3);
    assert_int_equal(p[0].pid, (unsigned)getpid());
    assert_int_equal(p[0].usedGpuMemory, 1024ULL << 20);
    assert_int_equal(p[1].pid, 777011); /* pid_stride 10, second copy */
    assert_int_equal(p[1].gpuInstanceId, 0xFFFFFFFFu);
    assert_int_equal(p[2].pid, 777002);
    assert_int_equal(p[3].pid, 0xABABABABu); /* untouched */
    nvmlProcessInfo_v1_t p1[4];
    n = 4;
    assert_int_equal(F(nvmlDeviceGetComputeRunningProcesses)(dev(1), &n, p1), NVML_SUCCESS);
    assert_int_equal(n, 3);
    assert_int_equal(p1[1].pid, 777011);
    assert_int_equal(p1[1].usedGpuMemory, 2048ULL << 20);
    n = 0;
    assert_int_equal(F(nvmlDeviceGetGraphicsRunningProcesses_v3)(dev(1), &n, NULL), NVML_ERROR_INSUFFICIENT_SIZE);
    assert_int_equal(n, 1);
    n = 0;
    assert_int_equal(F(nvmlDeviceGetComputeRunningProcesses_v2)(dev(2), &n, NULL), NVML_SUCCESS); /* G only */
    assert_int_equal(n, 0);
    n = 0;
    assert_int_equal(F(nvmlDeviceGetMPSComputeRunningProcesses_v3)(dev(0), &n, NULL), NVML_SUCCESS);
    char name[64], user[32], ctr[96];
    assert_int_equal(F(nvmlSystemGetProcessName)(777011, name, sizeof name), NVML_SUCCESS);
    assert_string_equal(name, "worker");
    assert_int_equal(F(gpusimGetProcessOwner)((unsigned)getpid(), user, sizeof user, ctr, sizeof ctr), NVML_SUCCESS);
    assert_string_equal(user, "tester");
    assert_string_equal(ctr, "ctr-1");
    stop();
}

static void process_utilization_samples(void **state)
{
    (void)state;
    start_at("60");
    unsigned n = 0;
    assert_int_equal(F(nvmlDeviceGetProcessUtilization)(dev(0), NULL, &n, 0), NVML_ERROR_INSUFFICIENT_SIZE);
    assert_int_equal(n, 1);
    nvmlProcessUtilizationSample_t s[4];
    n = 4;
    assert_int_equal(F(nvmlDeviceGetProcessUtilization)(dev(0), s, &n, 0), NVML_SUCCESS);
    assert_int_equal(n, 1);
    assert_int_equal(s[0].pid, (unsigned)getpid());
    assert_int_equal(s[0].smUtil, 30);
    assert_int_equal(s[0].memUtil, 5);
    assert_true(s[0].timeStamp > 0);
    n = 0;
    assert_int_equal(F(nvmlDeviceGetProcessUtilization)(dev(2), NULL, &n, 0), NVML_ERROR_NOT_FOUND);
    stop();
}

static void lost_window_and_recovery(void **state)
{
    (void)state;
    unsigned p;
    nvmlDevice_t d1;
    start_at("5");
    d1 = dev(1);
    stop();
    start_at("15");
    nvmlDevice_t d = NULL;
    assert_int_equal(F(nvmlDeviceGetHandleByIndex_v2)(1, &d), NVML_ERROR_GPU_IS_LOST);
    assert_int_equal(F(nvmlDeviceGetPowerUsage)(d1, &p), NVML_ERROR_GPU_IS_LOST);
    char name[96];
    assert_int_equal(F(nvmlDeviceGetName)(d1, name, sizeof name), NVML_ERROR_GPU_IS_LOST);
    assert_int_equal(F(nvmlDeviceGetPowerUsage)(dev(0), &p), NVML_SUCCESS);
    unsigned n = 0;
    assert_int_equal(F(nvmlDeviceGetCount_v2)(&n), NVML_SUCCESS);
    assert_int_equal(n, 3);
    stop();
    start_at("20");
    assert_int_equal(F(nvmlDeviceGetPowerUsage)(dev(1), &p), NVML_SUCCESS);
    stop();
}

static void error_every_nth_call_and_delays(void **state)
{
    (void)state;
    start_at("1");
    unsigned p;
    nvmlReturn_t want[] = {NVML_SUCCESS, NVML_SUCCESS, NVML_ERROR_UNKNOWN,
                           NVML_SUCCESS, NVML_SUCCESS, NVML_ERROR_UNKNOWN};
    for (int i = 0; i < 6; i++)
        assert_int_equal(F(nvmlDeviceGetPowerUsage)(dev(2), &p), want[i]);
    assert_int_equal(F(nvmlDeviceGetPowerUsage)(dev(0), &p), NVML_SUCCESS); /* other GPUs unaffected */
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    assert_int_equal(F(nvmlDeviceGetFanSpeed)(dev(2), &p), NVML_SUCCESS);
    clock_gettime(CLOCK_MONOTONIC, &b);
    double ms = (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6;
    assert_true(ms >= 149);
    char part[80];
    assert_int_equal(F(nvmlDeviceGetBoardPartNumber)(dev(0), part, sizeof part), NVML_ERROR_FUNCTION_NOT_FOUND);
    stop();
}

static void field_values(void **state)
{
    (void)state;
    start_at("30");
    nvmlFieldValue_t f[5];
    memset(f, 0, sizeof f);
    f[0].fieldId = NVML_FI_DEV_MEMORY_TEMP;
    f[1].fieldId = NVML_FI_DEV_TOTAL_ENERGY_CONSUMPTION;
    f[2].fieldId = NVML_FI_DEV_POWER_INSTANT;
    f[3].fieldId = 9999;
    f[4].fieldId = NVML_FI_DEV_PERF_POLICY_POWER;
    assert_int_equal(F(nvmlDeviceGetFieldValues)(dev(0), 5, f), NVML_SUCCESS);
    assert_int_equal(f[0].nvmlReturn, NVML_SUCCESS);
    assert_int_equal(f[0].valueType, NVML_VALUE_TYPE_UNSIGNED_INT);
    assert_true(f[0].value.uiVal > 20 && f[0].value.uiVal < 100);
    unsigned long long e;
    F(nvmlDeviceGetTotalEnergyConsumption)(dev(0), &e);
    assert_int_equal(f[1].value.ullVal, e);
    unsigned p;
    F(nvmlDeviceGetPowerUsage)(dev(0), &p);
    assert_int_equal(f[2].value.uiVal, p);
    assert_int_equal(f[3].nvmlReturn, NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(f[4].valueType, NVML_VALUE_TYPE_UNSIGNED_LONG_LONG);
    assert_true(f[0].timestamp > 0);
    f[0].fieldId = NVML_FI_DEV_MEMORY_TEMP;
    assert_int_equal(F(nvmlDeviceGetFieldValues)(dev(2), 1, f), NVML_SUCCESS);
    assert_int_equal(f[0].nvmlReturn, NVML_ERROR_NOT_SUPPORTED); /* GDDR */
    assert_int_equal(F(nvmlDeviceGetFieldValues)(dev(0), 0, f), NVML_ERROR_INVALID_ARGUMENT);
    stop();
}

static void xid_events_once_each(void **state)
{
    (void)state;
    start_at("13");
    nvmlEventSet_t set = NULL;
    nvmlEventData_t e;
    assert_int_equal(F(nvmlEventSetCreate)(&set), NVML_SUCCESS);
    unsigned long long types = 0;
    assert_int_equal(F(nvmlDeviceGetSupportedEventTypes)(dev(0), &types), NVML_SUCCESS);
    assert_true(types & nvmlEventTypeXidCriticalError);
    assert_int_equal(F(nvmlDeviceRegisterEvents)(dev(0), nvmlEventTypeXidCriticalError, set), NVML_SUCCESS);
    assert_int_equal(F(nvmlEventSetWait_v2)(set, &e, 10), NVML_SUCCESS);
    assert_ptr_equal(e.device, dev(0));
    assert_int_equal(e.eventData, 48);
    assert_int_equal(e.eventType, nvmlEventTypeXidCriticalError);
    /* gpu 1's XID 79 is not registered on this set; gpu 0's next one is at 1000 s */
    assert_int_equal(F(nvmlEventSetWait_v2)(set, &e, 30), NVML_ERROR_TIMEOUT);
    stop();
    /* the set belongs to the library instance that made it */
    start_at("13");
    assert_int_equal(F(nvmlEventSetWait_v2)(set, &e, 1), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(F(nvmlEventSetFree)(set), NVML_SUCCESS);
    stop();
}

static void gpm_metrics(void **state)
{
    (void)state;
    start_at("50");
    nvmlGpmSupport_t sup = {.version = NVML_GPM_SUPPORT_VERSION};
    assert_int_equal(F(nvmlGpmQueryDeviceSupport)(dev(0), &sup), NVML_SUCCESS);
    assert_int_equal(sup.isSupportedDevice, 1);
    assert_int_equal(F(nvmlGpmQueryDeviceSupport)(dev(2), &sup), NVML_SUCCESS);
    assert_int_equal(sup.isSupportedDevice, 0);
    nvmlGpmSample_t s1, s2;
    assert_int_equal(F(nvmlGpmSampleAlloc)(&s1), NVML_SUCCESS);
    assert_int_equal(F(nvmlGpmSampleAlloc)(&s2), NVML_SUCCESS);
    assert_int_equal(F(nvmlGpmSampleGet)(dev(0), s1), NVML_SUCCESS);
    assert_int_equal(F(nvmlGpmSampleGet)(dev(0), s2), NVML_SUCCESS);
    assert_int_equal(F(nvmlGpmSampleGet)(dev(2), s2), NVML_ERROR_NOT_SUPPORTED);
    nvmlGpmMetricsGet_t *mg = calloc(1, sizeof *mg);
    assert_non_null(mg);
    mg->version = NVML_GPM_METRICS_GET_VERSION;
    mg->numMetrics = 4;
    mg->sample1 = s1;
    mg->sample2 = s2;
    unsigned ids[] = {NVML_GPM_METRIC_SM_UTIL, NVML_GPM_METRIC_GRAPHICS_UTIL, NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC,
                      77};
    for (int i = 0; i < 4; i++)
        mg->metrics[i].metricId = ids[i];
    mg->metrics[4].metricId = 0xDEAD;
    mg->metrics[4].value = -7;
    assert_int_equal(F(nvmlGpmMetricsGet)(mg), NVML_SUCCESS);
    assert_int_equal(mg->metrics[0].nvmlReturn, NVML_SUCCESS);
    assert_float_equal(mg->metrics[0].value, 45, 1e-9); /* 0.9 x utilization 50 */
    assert_float_equal(mg->metrics[1].value, 50, 1e-9);
    assert_float_equal(mg->metrics[2].value, 1234.5, 1e-9);
    assert_int_equal(mg->metrics[3].nvmlReturn, NVML_ERROR_NOT_SUPPORTED);
    assert_string_equal(mg->metrics[0].metricInfo.shortName, "sm_active");
    assert_int_equal(mg->metrics[4].metricId, 0xDEAD); /* beyond numMetrics: untouched */
    assert_float_equal(mg->metrics[4].value, -7, 0);
    mg->version = 2;
    assert_int_equal(F(nvmlGpmMetricsGet)(mg), NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    free(mg);
    assert_int_equal(F(nvmlGpmSampleFree)(s1), NVML_SUCCESS);
    assert_int_equal(F(nvmlGpmSampleFree)(s2), NVML_SUCCESS);
    stop();
}

/* Several threads calling at once (the agent samples from its own thread). */
static void *hammer(void *arg)
{
    long failures = 0;
    unsigned gpu = (unsigned)((long)arg % 2) * 2; /* GPUs 0 and 2: GPU 1 gets lost at 10 s */
    nvmlDevice_t d = NULL;
    if (F(nvmlDeviceGetHandleByIndex_v2)(gpu, &d) != NVML_SUCCESS)
        return (void *)1L;
    for (int i = 0; i < 3000; i++) {
        unsigned v, n = 8;
        nvmlProcessInfo_t p[8];
        nvmlMemory_v2_t m = {.version = nvmlMemory_v2};
        failures += F(nvmlDeviceGetTemperature)(d, NVML_TEMPERATURE_GPU, &v) != NVML_SUCCESS;
        failures += F(nvmlDeviceGetMemoryInfo_v2)(d, &m) != NVML_SUCCESS;
        failures += F(nvmlDeviceGetComputeRunningProcesses_v3)(d, &n, p) != NVML_SUCCESS;
    }
    return (void *)failures;
}

static void concurrent_calls(void **state)
{
    (void)state;
    setenv("GPUSIM_SCENARIO", scenario_path, 1);
    setenv("GPUSIM_SPEED", "50", 1);
    setenv("GPUSIM_T0", "1", 1);
    assert_int_equal(F(nvmlInit_v2)(), NVML_SUCCESS);
    pthread_t th[6];
    for (long i = 0; i < 6; i++)
        assert_int_equal(pthread_create(&th[i], NULL, hammer, (void *)i), 0);
    for (int i = 0; i < 6; i++) {
        void *r;
        pthread_join(th[i], &r);
        assert_int_equal((long)r, 0);
    }
    stop();
}

/* Scenario time runs at GPUSIM_SPEED x the monotonic clock from nvmlInit. */
static void clock_runs_at_speed(void **state)
{
    (void)state;
    setenv("GPUSIM_SCENARIO", scenario_path, 1);
    setenv("GPUSIM_SPEED", "100", 1);
    setenv("GPUSIM_T0", "2", 1);
    assert_int_equal(F(nvmlInit_v2)(), NVML_SUCCESS);
    nvmlUtilization_t u0, u1;
    assert_int_equal(F(nvmlDeviceGetUtilizationRates)(dev(0), &u0), NVML_SUCCESS); /* ramp: utilization = t */
    struct timespec ts = {.tv_sec = 0, .tv_nsec = 100000000L};
    nanosleep(&ts, NULL);
    assert_int_equal(F(nvmlDeviceGetUtilizationRates)(dev(0), &u1), NVML_SUCCESS);
    /* at least 100 ms x 100 = 10 s passed between the reads (more on a loaded machine) */
    assert_true(u0.gpu >= 2);
    assert_true(u1.gpu >= u0.gpu + 9);
    stop();
}

static void bad_scenario_fails_init(void **state)
{
    (void)state;
    char path[] = "/tmp/gpusim-bad-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "gpus:\n  - preset: nope\n", 23), 23);
    close(fd);
    setenv("GPUSIM_SCENARIO", path, 1);
    assert_int_equal(F(nvmlInit_v2)(), NVML_ERROR_UNKNOWN);
    unsigned n;
    assert_int_equal(F(nvmlDeviceGetCount_v2)(&n), NVML_ERROR_UNINITIALIZED);
    unlink(path);
}

/* The minimal variant (beside the full one) lacks the optional symbols for real. */
static void minimal_variant_lacks_optional_symbols(void **state)
{
    (void)state;
    const char *full = getenv("GPUSIM_LIB");
    char path[4096];
    snprintf(path, sizeof path, "%s", full ? full : GW_BUILD_DIR "/gpusim/libnvidia-ml.so.1");
    char *slash = strrchr(path, '/');
    assert_non_null(slash);
    snprintf(slash, sizeof path - (size_t)(slash - path), "/minimal/libnvidia-ml.so.1");
    pid_t pid = fork();
    if (pid == 0) { /* a child, so the two libraries never share a process */
        void *m = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (!m)
            _exit(10);
        const char *absent[] = {"nvmlDeviceGetTemperatureV", "nvmlDeviceGetCurrentClocksEventReasons",
                                "nvmlGpmMetricsGet", "nvmlDeviceGetProcessUtilization", "nvmlDeviceGetFieldValues"};
        for (int i = 0; i < 5; i++)
            if (dlsym(m, absent[i]))
                _exit(20 + i);
        if (!dlsym(m, "nvmlDeviceGetCurrentClocksThrottleReasons") || !dlsym(m, "nvmlInit_v2"))
            _exit(30);
        _exit(0);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_listed_function_resolves),
        cmocka_unit_test(init_is_reference_counted),
        cmocka_unit_test(arguments_are_checked),
        cmocka_unit_test(identity_and_lookups),
        cmocka_unit_test(values_match_the_model),
        cmocka_unit_test(demo_getters_equal_the_model),
        cmocka_unit_test(process_lists_follow_the_two_call_protocol),
        cmocka_unit_test(process_utilization_samples),
        cmocka_unit_test(lost_window_and_recovery),
        cmocka_unit_test(error_every_nth_call_and_delays),
        cmocka_unit_test(field_values),
        cmocka_unit_test(xid_events_once_each),
        cmocka_unit_test(gpm_metrics),
        cmocka_unit_test(concurrent_calls),
        cmocka_unit_test(clock_runs_at_speed),
        cmocka_unit_test(bad_scenario_fails_init),
        cmocka_unit_test(minimal_variant_lacks_optional_symbols),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
