/* test_gpusim_abi.c - gpusim's libnvidia-ml.so.1 as a client sees it: dlopen (GPUSIM_LIB),
 * dlsym by name, NVML return codes and struct layouts; values equal the scenario model's. The layouts
 * are also checked with raw bytes at the offsets measured from NVIDIA's nvml.h (nvml-reference.md,
 * not gpusim's own header), and the values against the scenario's own constants. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <dlfcn.h>
#include <pthread.h>
#include <math.h>
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

/* Source file path (GW_SOURCE_DIR from the environment or the build). */
static void source_path(char *out, size_t n, const char *rel)
{
    const char *src = getenv("GW_SOURCE_DIR");
    snprintf(out, n, "%s/%s", src ? src : GW_SOURCE_DIR, rel);
}

/* (Re)starts the library on another scenario at a fixed time. */
static void start_with(const char *rel, const char *t)
{
    char path[4096];
    source_path(path, sizeof path, rel);
    setenv("GPUSIM_SCENARIO", path, 1);
    setenv("GPUSIM_SPEED", "0", 1);
    setenv("GPUSIM_T0", t, 1);
    assert_int_equal(F(nvmlInit_v2)(), NVML_SUCCESS);
}

static scenario *load_rel(const char *rel)
{
    char path[4096], err[512];
    source_path(path, sizeof path, rel);
    scenario *sc = scenario_load(path, err, sizeof err);
    if (!sc)
        fail_msg("%s", err);
    return sc;
}

/* The real library's exported names (sim/libnvidia-ml-590-symbols.txt), NULL-terminated. */
static char **real_symbols(int *n)
{
    char path[4096], line[256];
    source_path(path, sizeof path, "sim/libnvidia-ml-590-symbols.txt");
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char **names = calloc(512, sizeof *names);
    assert_non_null(names);
    *n = 0;
    while (fgets(line, sizeof line, f) && *n < 511) {
        line[strcspn(line, "\r\n")] = 0;
        if (line[0])
            names[(*n)++] = strdup(line);
    }
    fclose(f);
    return names;
}

static void free_symbols(char **names)
{
    for (int i = 0; names[i]; i++)
        free(names[i]);
    free(names);
}

static int in_list(const char *const *list, const char *name)
{
    for (int i = 0; list[i]; i++)
        if (strcmp(list[i], name) == 0)
            return 1;
    return 0;
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
/* The byte layouts a client compiled against NVIDIA's nvml.h reads, from raw buffers at the offsets
 * measured from that header (sizes and offsets in nvml-reference.md), not from gpusim's structs;
 * the values are the scenario's own constants (tests/scenarios/gpusim-abi.yaml). Guard bytes past
 * each struct stay untouched. */
#define GUARD 0x5A
static void expect_guard(const unsigned char *buf, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        if (buf[i] != GUARD)
            fail_msg("byte %zu past the struct written (0x%02x)", i, buf[i]);
}

static uint32_t u32_at(const unsigned char *b, size_t off)
{
    uint32_t v;
    memcpy(&v, b + off, sizeof v);
    return v;
}

static uint64_t u64_at(const unsigned char *b, size_t off)
{
    uint64_t v;
    memcpy(&v, b + off, sizeof v);
    return v;
}

typedef nvmlReturn_t (*raw_fn)(nvmlDevice_t, void *);
typedef nvmlReturn_t (*raw_list_fn)(nvmlDevice_t, unsigned *, void *);

static void layouts_as_nvml_h_has_them(void **state)
{
    (void)state;
    start_at("60");
    unsigned char b[256];
    /* nvmlMemory_v2_t, 40 B: version @0 (0x02000028), total @8, reserved @16, free @24, used @32 */
    memset(b, GUARD, sizeof b);
    uint32_t version = 40u | (2u << 24);
    memcpy(b, &version, 4);
    assert_int_equal(((raw_fn)sym("nvmlDeviceGetMemoryInfo_v2"))(dev(0), b), NVML_SUCCESS);
    assert_int_equal(u64_at(b, 8), 81559ULL << 20); /* the h100-sxm preset: 81559 MiB, 479 reserved */
    assert_int_equal(u64_at(b, 16), 479ULL << 20);
    assert_int_equal(u64_at(b, 32), (1024ULL + 2048 + 512) << 20); /* the scenario's three processes at 60 s */
    assert_int_equal(u64_at(b, 24), u64_at(b, 8) - u64_at(b, 16) - u64_at(b, 32));
    expect_guard(b, 40, sizeof b);
    /* nvmlMemory_t, 24 B: total, free, used (used counts the reserved memory) */
    memset(b, GUARD, sizeof b);
    assert_int_equal(((raw_fn)sym("nvmlDeviceGetMemoryInfo"))(dev(0), b), NVML_SUCCESS);
    assert_int_equal(u64_at(b, 0), 81559ULL << 20);
    assert_int_equal(u64_at(b, 16), (1024ULL + 2048 + 512 + 479) << 20);
    expect_guard(b, 24, sizeof b);
    /* nvmlProcessInfo_t (_v3), 24 B: pid @0, usedGpuMemory @8, gpuInstanceId @16, computeInstanceId
     * @20 (0xFFFFFFFF without MIG); three records on GPU 1 */
    memset(b, GUARD, sizeof b);
    unsigned n = 3;
    assert_int_equal(((raw_list_fn)sym("nvmlDeviceGetComputeRunningProcesses_v3"))(dev(1), &n, b), NVML_SUCCESS);
    assert_int_equal(n, 3);
    static const uint32_t pids[] = {0, 777011, 777002};
    static const uint64_t mib[] = {1024, 2048, 512};
    for (unsigned i = 0; i < 3; i++) {
        assert_int_equal(u32_at(b, i * 24), i ? pids[i] : (uint32_t)getpid());
        assert_int_equal(u64_at(b, i * 24 + 8), mib[i] << 20);
        assert_int_equal(u32_at(b, i * 24 + 16), 0xFFFFFFFFu);
        assert_int_equal(u32_at(b, i * 24 + 20), 0xFFFFFFFFu);
    }
    expect_guard(b, 3 * 24, sizeof b);
    /* nvmlProcessInfo_v1_t, 16 B: pid @0, usedGpuMemory @8 */
    memset(b, GUARD, sizeof b);
    n = 3;
    assert_int_equal(((raw_list_fn)sym("nvmlDeviceGetComputeRunningProcesses"))(dev(1), &n, b), NVML_SUCCESS);
    assert_int_equal(u32_at(b, 16), 777011);
    assert_int_equal(u64_at(b, 24), 2048ULL << 20);
    expect_guard(b, 3 * 16, sizeof b);
    /* nvmlPciInfo_t, 68 B: busIdLegacy[16] @0, domain @16, bus @20, device @24, pciDeviceId @28
     * (device << 16 | vendor 0x10DE), pciSubSystemId @32, busId[32] @36 "%08X:%02X:%02X.0" */
    memset(b, GUARD, sizeof b);
    assert_int_equal(((raw_fn)sym("nvmlDeviceGetPciInfo_v3"))(dev(0), b), NVML_SUCCESS);
    assert_int_equal(u32_at(b, 28), 0x233010DEu); /* H100 SXM5 80GB, as the real capture says */
    char want[32];
    snprintf(want, sizeof want, "%08X:%02X:%02X.0", u32_at(b, 16), u32_at(b, 20), u32_at(b, 24));
    assert_string_equal((const char *)b + 36, want);
    snprintf(want, sizeof want, "%04X:%02X:%02X.0", u32_at(b, 16), u32_at(b, 20), u32_at(b, 24));
    assert_string_equal((const char *)b + 0, want);
    expect_guard(b, 68, sizeof b);
    /* nvmlUtilization_t, 8 B: gpu @0, memory @4 (the ramp: 60 % at 60 s) */
    memset(b, GUARD, sizeof b);
    assert_int_equal(((raw_fn)sym("nvmlDeviceGetUtilizationRates"))(dev(0), b), NVML_SUCCESS);
    assert_true(u32_at(b, 0) >= 59 && u32_at(b, 0) <= 60);
    expect_guard(b, 8, sizeof b);
    stop();
}

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

/* The optional symbols documented in docs/gpusim.md, which the minimal library does not define. */
static const char *const documented_optional[] = {"nvmlDeviceGetCurrentClocksEventReasons",
                                                  "nvmlDeviceGetSupportedClocksEventReasons",
                                                  "nvmlDeviceGetTemperatureV",
                                                  "nvmlDeviceGetJpgUtilization",
                                                  "nvmlDeviceGetOfaUtilization",
                                                  "nvmlDeviceGetProcessUtilization",
                                                  "nvmlDeviceGetFieldValues",
                                                  "nvmlDeviceGetConfComputeProtectedMemoryUsage",
                                                  "nvmlGpmQueryDeviceSupport",
                                                  "nvmlGpmSampleAlloc",
                                                  "nvmlGpmSampleFree",
                                                  "nvmlGpmSampleGet",
                                                  "nvmlGpmMetricsGet",
                                                  NULL};

/* The minimal variant (beside the full one) lacks the optional symbols for real, and has
 * every other name of the real library. */
static void minimal_variant_lacks_optional_symbols(void **state)
{
    (void)state;
    const char *full = getenv("GPUSIM_LIB");
    char path[4096];
    snprintf(path, sizeof path, "%s", full ? full : GW_BUILD_DIR "/gpusim/libnvidia-ml.so.1");
    char *slash = strrchr(path, '/');
    assert_non_null(slash);
    snprintf(slash, sizeof path - (size_t)(slash - path), "/minimal/libnvidia-ml.so.1");
    int n;
    char **names = real_symbols(&n);
    pid_t pid = fork();
    if (pid == 0) { /* a child, so the two libraries never share a process */
        void *m = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (!m)
            _exit(10);
        for (int i = 0; i < n; i++) {
            int absent = in_list(documented_optional, names[i]) || in_list(sim_nvml_optional_stubs, names[i]);
            if ((dlsym(m, names[i]) == NULL) != absent) {
                fprintf(stderr, "minimal: %s %s\n", names[i], absent ? "present" : "missing");
                _exit(20);
            }
        }
        if (!dlsym(m, "nvmlDeviceGetCurrentClocksThrottleReasons") || !dlsym(m, "gpusimSetTime"))
            _exit(30);
        _exit(0);
    }
    free_symbols(names);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

/* All 405 names of the real 590 library resolve; each is modelled or a stub, never both, and
 * gpusim exports no NVML name the real library lacks. */
static void every_real_symbol_resolves(void **state)
{
    (void)state;
    int n, modelled = 0, stubs = 0;
    char **names = real_symbols(&n);
    assert_int_equal(n, 405);
    for (int i = 0; i < n; i++) {
        if (!dlsym(lib, names[i]))
            fail_msg("%s is not exported", names[i]);
        int m = in_list(sim_nvml_functions, names[i]), st = in_list(sim_nvml_stubs, names[i]);
        if (m + st != 1)
            fail_msg("%s: modelled %d, stub %d", names[i], m, st);
    }
    for (int i = 0; sim_nvml_functions[i]; i++, modelled++)
        if (!in_list((const char *const *)names, sim_nvml_functions[i]))
            fail_msg("%s is not in the real library", sim_nvml_functions[i]);
    for (int i = 0; sim_nvml_stubs[i]; i++, stubs++)
        if (!in_list((const char *const *)names, sim_nvml_stubs[i]))
            fail_msg("%s is not in the real library", sim_nvml_stubs[i]);
    assert_int_equal(modelled + stubs, 405);
    free_symbols(names);
}

/* A stub answers NOT_SUPPORTED whatever it is passed, UNINITIALIZED before init, and takes
 * faults; nvitop's driver-model query (pynvml's nvmlDeviceGetCurrentDriverModel calls
 * nvmlDeviceGetDriverModel) gets NOT_SUPPORTED as on Linux, not FunctionNotFound. */
typedef nvmlReturn_t (*no_args)(void);

static void stubs_answer_not_supported(void **state)
{
    (void)state;
    assert_int_equal(((no_args)sym("nvmlDeviceGetDriverModel"))(), NVML_ERROR_UNINITIALIZED);
    start_with("tests/scenarios/gpusim-model.yaml", "1");
    for (int i = 0; sim_nvml_stubs[i]; i++) {
        nvmlReturn_t want = strcmp(sim_nvml_stubs[i], "nvmlDeviceGetMarginTemperature") == 0
                                ? NVML_ERROR_FUNCTION_NOT_FOUND /* a missing_symbol fault */
                                : NVML_ERROR_NOT_SUPPORTED;
        if (((no_args)sym(sim_nvml_stubs[i]))() != want)
            fail_msg("%s does not answer %d", sim_nvml_stubs[i], want);
    }
    unsigned cur = 7, pend = 7, units = 9;
    nvmlReturn_t (*driver_model)(nvmlDevice_t, unsigned *, unsigned *) =
        (nvmlReturn_t(*)(nvmlDevice_t, unsigned *, unsigned *))sym("nvmlDeviceGetDriverModel_v2");
    assert_int_equal(driver_model(dev(0), &cur, &pend), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(cur, 7); /* untouched */
    assert_int_equal(F(nvmlUnitGetCount)(&units), NVML_SUCCESS);
    assert_int_equal(units, 0);
    assert_int_equal(F(nvmlGetExcludedDeviceCount)(&units), NVML_SUCCESS);
    stop();
}

/* utilization.gpu is the share of the sample period with a kernel running: a 1 s square wave
 * with a 0.5 s gap reads 50 % at every time on a GPU with a 1 s period; per-process sm and
 * nvmlDeviceGetSamples agree, and so does the model (what `gpusim render` prints). */
static void utilization_averages_the_sample_period(void **state)
{
    (void)state;
    scenario *sc = load_rel("tests/scenarios/gpusim-model.yaml");
    const char *times[] = {"10", "10.25", "10.5", "10.9", "33.333"};
    for (int k = 0; k < 5; k++) {
        start_with("tests/scenarios/gpusim-model.yaml", times[k]);
        double t = strtod(times[k], NULL), v;
        nvmlUtilization_t u;
        assert_int_equal(F(nvmlDeviceGetUtilizationRates)(dev(0), &u), NVML_SUCCESS);
        assert_int_equal(u.gpu, 50);
        assert_int_equal(sim_value(sc, 0, M_UTIL_GPU, t, &v), 0);
        assert_int_equal(u.gpu, (unsigned)v);
        assert_int_equal(u.memory, 20); /* 0.4 x the mean */
        nvmlProcessUtilizationSample_t ps[4];
        unsigned n = 4;
        assert_int_equal(F(nvmlDeviceGetProcessUtilization)(dev(0), ps, &n, 0), NVML_SUCCESS);
        assert_int_equal(n, 1); /* the loader runs no kernels */
        assert_int_equal(ps[0].pid, 880001);
        assert_int_equal(ps[0].smUtil, 50);
        assert_int_equal(ps[0].memUtil, 10); /* 40 % a quarter of the time */
        stop();
    }
    /* a 167 ms period sees the edges: just after one, part high, part low */
    scenario *stall = load_rel("sim/scenarios/data-pipeline-stall.yaml");
    start_with("sim/scenarios/data-pipeline-stall.yaml", "3.1");
    nvmlUtilization_t u;
    double v;
    assert_int_equal(F(nvmlDeviceGetUtilizationRates)(dev(0), &u), NVML_SUCCESS);
    assert_int_equal(sim_value(stall, 0, M_UTIL_GPU, 3.1, &v), 0);
    assert_int_equal(u.gpu, (unsigned)v);
    assert_true(u.gpu > 30 && u.gpu < 70);
    stop();
    scenario_free(stall);
    scenario_free(sc);
}

static void samples_are_period_means(void **state)
{
    (void)state;
    scenario *sc = load_rel("tests/scenarios/gpusim-model.yaml");
    start_with("tests/scenarios/gpusim-model.yaml", "200.5");
    nvmlValueType_t vt;
    unsigned n = 0;
    assert_int_equal(F(nvmlDeviceGetSamples)(dev(0), NVML_GPU_UTILIZATION_SAMPLES, 0, &vt, &n, NULL), NVML_SUCCESS);
    assert_int_equal(n, 120); /* the buffer: the last 120 periods (1 s each) */
    assert_int_equal(vt, NVML_VALUE_TYPE_UNSIGNED_INT);
    nvmlSample_t s[130];
    n = 130;
    assert_int_equal(F(nvmlDeviceGetSamples)(dev(0), NVML_GPU_UTILIZATION_SAMPLES, 0, &vt, &n, s), NVML_SUCCESS);
    assert_int_equal(n, 120);
    for (unsigned i = 0; i < n; i++) {
        assert_int_equal(s[i].sampleValue.uiVal, 50);
        if (i > 0)
            assert_int_equal(s[i].timeStamp - s[i - 1].timeStamp, 1000000); /* one per period */
    }
    /* newer than the 118th: two left; a short buffer gets the oldest first */
    unsigned long long first = s[0].timeStamp, t118 = s[117].timeStamp;
    n = 1;
    assert_int_equal(F(nvmlDeviceGetSamples)(dev(0), NVML_GPU_UTILIZATION_SAMPLES, t118, &vt, &n, s), NVML_SUCCESS);
    assert_int_equal(n, 1);
    assert_int_equal(s[0].timeStamp, t118 + 1000000);
    n = 0;
    assert_int_equal(F(nvmlDeviceGetSamples)(dev(0), NVML_GPU_UTILIZATION_SAMPLES, first + 2000000, &vt, &n, NULL),
                     NVML_SUCCESS);
    assert_int_equal(n, 117);
    n = 0;
    assert_int_equal(F(nvmlDeviceGetSamples)(dev(0), NVML_GPU_UTILIZATION_SAMPLES, t118 + 2000000, &vt, &n, NULL),
                     NVML_ERROR_NOT_FOUND); /* nothing newer */
    /* the 167 ms GPU: each sample is utilization.gpu at the end of its period */
    n = 4;
    assert_int_equal(F(nvmlDeviceGetSamples)(dev(1), NVML_MEMORY_UTILIZATION_SAMPLES, 0, &vt, &n, s), NVML_SUCCESS);
    assert_int_equal(n, 4);
    for (unsigned i = 0; i < n; i++) {
        double v, t = (1081 + i) * 0.167; /* the buffer's oldest: periods 1081.. of 1200 ended */
        assert_int_equal(sim_value(sc, 1, M_UTIL_MEMORY, t, &v), 0);
        assert_int_equal(s[i].sampleValue.uiVal, (unsigned)v);
        assert_int_equal(s[i].sampleValue.uiVal, 40);
        if (i > 0)
            assert_int_equal(s[i].timeStamp - s[i - 1].timeStamp, 167000);
    }
    /* power (mW) and clocks: the metric's value at the end of each period */
    n = 4;
    assert_int_equal(F(nvmlDeviceGetSamples)(dev(1), NVML_TOTAL_POWER_SAMPLES, 0, &vt, &n, s), NVML_SUCCESS);
    assert_int_equal(n, 4);
    for (unsigned i = 0; i < n; i++) {
        double v, t = (1081 + i) * 0.167;
        assert_int_equal(sim_value(sc, 1, M_POWER_DRAW, t, &v), 0);
        assert_int_equal(s[i].sampleValue.uiVal, (unsigned)llround(v * 1000));
    }
    n = 4;
    assert_int_equal(F(nvmlDeviceGetSamples)(dev(1), NVML_MEMORY_CLK_SAMPLES, 0, &vt, &n, s), NVML_SUCCESS);
    for (unsigned i = 0; i < n; i++) {
        double v;
        assert_int_equal(sim_value(sc, 1, M_CLOCK_MEM, (1081 + i) * 0.167, &v), 0);
        assert_int_equal(s[i].sampleValue.uiVal, (unsigned)v);
    }
    assert_int_equal(F(nvmlDeviceGetSamples)(dev(0), NVML_MODULE_POWER_SAMPLES, 0, &vt, &n, NULL),
                     NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(F(nvmlDeviceGetSamples)(dev(0), 10, 0, &vt, &n, NULL), NVML_ERROR_INVALID_ARGUMENT);
    stop();
    start_with("tests/scenarios/gpusim-model.yaml", "0.5");
    n = 0;
    assert_int_equal(F(nvmlDeviceGetSamples)(dev(0), NVML_GPU_UTILIZATION_SAMPLES, 0, &vt, &n, NULL),
                     NVML_ERROR_NOT_FOUND); /* no period has ended yet */
    stop();
    scenario_free(sc);
}

/* PCIe throughput: the processes' transfers on top of the baseline, at most the link's rate
 * (per lane and direction: gen 4 1969 MB/s, gen 5 3938 MB/s) for its generation and width. */
static void pcie_throughput_clamped_by_link(void **state)
{
    (void)state;
    scenario *sc = load_rel("tests/scenarios/gpusim-model.yaml");
    start_with("tests/scenarios/gpusim-model.yaml", "50");
    unsigned rx[4], tx[4];
    for (unsigned g = 0; g < 4; g++) {
        double v;
        assert_int_equal(F(nvmlDeviceGetPcieThroughput)(dev(g), NVML_PCIE_UTIL_RX_BYTES, &rx[g]), NVML_SUCCESS);
        assert_int_equal(F(nvmlDeviceGetPcieThroughput)(dev(g), NVML_PCIE_UTIL_TX_BYTES, &tx[g]), NVML_SUCCESS);
        assert_int_equal(sim_value(sc, (int)g, M_PCIE_RX, 50, &v), 0);
        assert_int_equal(rx[g], (unsigned)v);
        assert_int_equal(sim_value(sc, (int)g, M_PCIE_TX, 50, &v), 0);
        assert_int_equal(tx[g], (unsigned)v);
    }
    assert_int_equal(rx[0], 50000000 + 100 + 60 * 100);            /* 20 + 30 GB/s + the baseline at 100 % activity */
    assert_int_equal(tx[0], 3938 * 16 * 1000 / 2 + 50 + 30 * 100); /* half of a gen 5 x16 link */
    assert_int_equal(rx[2], 1969 * 16 * 1000);                     /* 40 GB/s asked, gen 4 x16 carries 31.5 */
    assert_int_equal(tx[2], 1969 * 16 * 1000 * 30 / 100 + 50 + 30 * 20); /* 25 % + a ramp at 5 % */
    assert_int_equal(rx[3], 1969 * 8 * 1000);                            /* all of a link trained to x8 */
    assert_int_equal(tx[3], 50);                                         /* baseline only */
    unsigned speed;
    assert_int_equal(F(nvmlDeviceGetPcieSpeed)(dev(3), &speed), NVML_SUCCESS);
    assert_int_equal(speed, 1969 * 8);
    /* GPM's PCIe rates follow (MiB/s) */
    nvmlGpmSample_t s1, s2;
    nvmlGpmMetricsGet_t *mg = calloc(1, sizeof *mg);
    assert_non_null(mg);
    assert_int_equal(F(nvmlGpmSampleAlloc)(&s1), NVML_SUCCESS);
    assert_int_equal(F(nvmlGpmSampleAlloc)(&s2), NVML_SUCCESS);
    assert_int_equal(F(nvmlGpmSampleGet)(dev(0), s1), NVML_SUCCESS);
    assert_int_equal(F(nvmlGpmSampleGet)(dev(0), s2), NVML_SUCCESS);
    *mg = (nvmlGpmMetricsGet_t){.version = NVML_GPM_METRICS_GET_VERSION, .numMetrics = 1, .sample1 = s1, .sample2 = s2};
    mg->metrics[0].metricId = NVML_GPM_METRIC_PCIE_RX_PER_SEC;
    assert_int_equal(F(nvmlGpmMetricsGet)(mg), NVML_SUCCESS);
    assert_float_equal(mg->metrics[0].value, rx[0] * 1000.0 / 1048576.0, 1e-9);
    F(nvmlGpmSampleFree)(s1);
    F(nvmlGpmSampleFree)(s2);
    free(mg);
    stop();
    scenario_free(sc);
}

/* HBM over its max operating temperature (95 C on H100) sets sw_thermal_slowdown and slows the
 * clocks while the GPU itself is cool; the library reports what the model computes. */
static void hbm_over_its_limit_throttles(void **state)
{
    (void)state;
    scenario *sc = load_rel("tests/scenarios/gpusim-model.yaml");
    const char *times[] = {"19", "30", "60"};
    for (int k = 0; k < 3; k++) {
        start_with("tests/scenarios/gpusim-model.yaml", times[k]);
        double t = strtod(times[k], NULL), v;
        nvmlFieldValue_t f = {.fieldId = NVML_FI_DEV_MEMORY_TEMP};
        unsigned long long reasons;
        unsigned gpu_temp, clock, mem_max;
        assert_int_equal(F(nvmlDeviceGetFieldValues)(dev(1), 1, &f), NVML_SUCCESS);
        assert_int_equal(f.nvmlReturn, NVML_SUCCESS);
        assert_int_equal(sim_value(sc, 1, M_TEMP_MEMORY, t, &v), 0);
        assert_int_equal(f.value.uiVal, (unsigned)v);
        assert_int_equal(F(nvmlDeviceGetCurrentClocksEventReasons)(dev(1), &reasons), NVML_SUCCESS);
        assert_int_equal(F(nvmlDeviceGetTemperature)(dev(1), NVML_TEMPERATURE_GPU, &gpu_temp), NVML_SUCCESS);
        assert_int_equal(F(nvmlDeviceGetClockInfo)(dev(1), NVML_CLOCK_SM, &clock), NVML_SUCCESS);
        assert_int_equal(F(nvmlDeviceGetTemperatureThreshold)(dev(1), NVML_TEMPERATURE_THRESHOLD_MEM_MAX, &mem_max),
                         NVML_SUCCESS);
        assert_int_equal(mem_max, 95);
        assert_true(gpu_temp < 87);
        if (t < 20) { /* idle, cool */
            assert_int_equal(reasons, nvmlClocksEventReasonGpuIdle);
        } else if (t < 35) { /* heating, below 95 */
            assert_true(f.value.uiVal < 95);
            assert_int_equal(reasons, 0);
            assert_int_equal(clock, 1980);
        } else { /* HBM above its limit: SW thermal slowdown only */
            assert_true(f.value.uiVal >= 95 && f.value.uiVal < 105);
            assert_int_equal(reasons, nvmlClocksEventReasonSwThermalSlowdown);
            assert_int_equal(clock, 1683); /* 0.85 x 1980 */
        }
        stop();
    }
    scenario_free(sc);
}

/* An explicit topology: NUMA CPU lists, a PCIe switch, an NVLink bridge pair. */
static void topology_explicit(void **state)
{
    (void)state;
    start_with("tests/scenarios/gpusim-model.yaml", "1");
    unsigned long cpus[2];
    assert_int_equal(F(nvmlDeviceGetCpuAffinity)(dev(0), 2, cpus), NVML_SUCCESS);
    assert_int_equal(cpus[0], 0x00FF00FFUL);
    assert_int_equal(cpus[1], 0);
    assert_int_equal(F(nvmlDeviceGetCpuAffinityWithinScope)(dev(2), 1, cpus, NVML_AFFINITY_SCOPE_SOCKET), NVML_SUCCESS);
    assert_int_equal(cpus[0], 0xFF00FF00UL);
    assert_int_equal(F(nvmlDeviceGetCpuAffinityWithinScope)(dev(2), 1, cpus, 2), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(F(nvmlDeviceGetMemoryAffinity)(dev(3), 1, cpus, NVML_AFFINITY_SCOPE_NODE), NVML_SUCCESS);
    assert_int_equal(cpus[0], 0x2);
    nvmlGpuTopologyLevel_t lvl;
    assert_int_equal(F(nvmlDeviceGetTopologyCommonAncestor)(dev(0), dev(1), &lvl), NVML_SUCCESS);
    assert_int_equal(lvl, NVML_TOPOLOGY_SINGLE);
    assert_int_equal(F(nvmlDeviceGetTopologyCommonAncestor)(dev(2), dev(3), &lvl), NVML_SUCCESS);
    assert_int_equal(lvl, NVML_TOPOLOGY_NODE); /* GPU 3 is on no switch */
    assert_int_equal(F(nvmlDeviceGetTopologyCommonAncestor)(dev(1), dev(2), &lvl), NVML_SUCCESS);
    assert_int_equal(lvl, NVML_TOPOLOGY_SYSTEM);
    assert_int_equal(F(nvmlDeviceGetTopologyCommonAncestor)(dev(1), dev(1), &lvl), NVML_ERROR_INVALID_ARGUMENT);
    nvmlDevice_t near[8];
    unsigned n = 0;
    assert_int_equal(F(nvmlDeviceGetTopologyNearestGpus)(dev(0), NVML_TOPOLOGY_SYSTEM, &n, NULL), NVML_SUCCESS);
    assert_int_equal(n, 3);
    n = 8;
    assert_int_equal(F(nvmlDeviceGetTopologyNearestGpus)(dev(0), NVML_TOPOLOGY_NODE, &n, near), NVML_SUCCESS);
    assert_int_equal(n, 1);
    assert_ptr_equal(near[0], dev(1));
    assert_int_equal(F(nvmlDeviceGetTopologyNearestGpus)(dev(0), 15, &n, near), NVML_ERROR_INVALID_ARGUMENT);
    n = 8;
    assert_int_equal(F(nvmlSystemGetTopologyGpuSet)(24, &n, near), NVML_SUCCESS);
    assert_int_equal(n, 2);
    assert_ptr_equal(near[0], dev(2));
    assert_ptr_equal(near[1], dev(3));
    n = 0;
    assert_int_equal(F(nvmlSystemGetTopologyGpuSet)(40, &n, NULL), NVML_SUCCESS);
    assert_int_equal(n, 0);
    nvmlEnableState_t on;
    assert_int_equal(F(nvmlDeviceGetNvLinkState)(dev(0), 17, &on), NVML_SUCCESS);
    assert_int_equal(on, NVML_FEATURE_ENABLED);
    assert_int_equal(F(nvmlDeviceGetNvLinkState)(dev(0), 18, &on), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(F(nvmlDeviceGetNvLinkState)(dev(2), 0, &on), NVML_SUCCESS);
    assert_int_equal(on, NVML_FEATURE_DISABLED); /* an A100 without a bridge */
    assert_int_equal(F(nvmlDeviceGetNvLinkState)(dev(3), 0, &on), NVML_ERROR_NOT_SUPPORTED);
    nvmlPciInfo_t pci;
    nvmlIntNvLinkDeviceType_t type;
    assert_int_equal(F(nvmlDeviceGetNvLinkRemotePciInfo_v2)(dev(0), 5, &pci), NVML_SUCCESS);
    assert_string_equal(pci.busId, "00000000:2A:00.0"); /* the bridge's other GPU */
    assert_int_equal(F(nvmlDeviceGetNvLinkRemoteDeviceType)(dev(1), 5, &type), NVML_SUCCESS);
    assert_int_equal(type, NVML_NVLINK_DEVICE_TYPE_GPU);
    assert_int_equal(F(nvmlDeviceGetNvLinkRemotePciInfo_v2)(dev(2), 0, &pci), NVML_ERROR_NOT_SUPPORTED);
    nvmlGpuP2PStatus_t p2p;
    assert_int_equal(F(nvmlDeviceGetP2PStatus)(dev(0), dev(1), NVML_P2P_CAPS_INDEX_NVLINK, &p2p), NVML_SUCCESS);
    assert_int_equal(p2p, NVML_P2P_STATUS_OK);
    assert_int_equal(F(nvmlDeviceGetP2PStatus)(dev(1), dev(2), NVML_P2P_CAPS_INDEX_READ, &p2p), NVML_SUCCESS);
    assert_int_equal(p2p, NVML_P2P_STATUS_IOH_TOPOLOGY_NOT_SUPPORTED);
    assert_int_equal(F(nvmlDeviceGetP2PStatus)(dev(2), dev(3), NVML_P2P_CAPS_INDEX_WRITE, &p2p), NVML_SUCCESS);
    assert_int_equal(p2p, NVML_P2P_STATUS_GPU_NOT_SUPPORTED); /* GeForce */
    assert_int_equal(F(nvmlDeviceGetP2PStatus)(dev(0), dev(1), NVML_P2P_CAPS_INDEX_UNKNOWN, &p2p),
                     NVML_ERROR_INVALID_ARGUMENT);
    stop();
}

/* The defaults of an 8-GPU HGX board: 2 NUMA nodes, 4 PCIe switches of 2, NVSwitch NVLink. */
static void topology_hgx_defaults(void **state)
{
    (void)state;
    start_with("sim/scenarios/demo-8gpu.yaml", "1");
    static const nvmlGpuTopologyLevel_t want[8] = {0,
                                                   NVML_TOPOLOGY_SINGLE,
                                                   NVML_TOPOLOGY_NODE,
                                                   NVML_TOPOLOGY_NODE,
                                                   NVML_TOPOLOGY_SYSTEM,
                                                   NVML_TOPOLOGY_SYSTEM,
                                                   NVML_TOPOLOGY_SYSTEM,
                                                   NVML_TOPOLOGY_SYSTEM};
    for (unsigned g = 1; g < 8; g++) {
        nvmlGpuTopologyLevel_t lvl;
        nvmlGpuP2PStatus_t p2p;
        assert_int_equal(F(nvmlDeviceGetTopologyCommonAncestor)(dev(0), dev(g), &lvl), NVML_SUCCESS);
        assert_int_equal(lvl, want[g]);
        assert_int_equal(F(nvmlDeviceGetP2PStatus)(dev(0), dev(g), NVML_P2P_CAPS_INDEX_NVLINK, &p2p), NVML_SUCCESS);
        assert_int_equal(p2p, NVML_P2P_STATUS_OK);
    }
    assert_int_equal(F(nvmlDeviceGetTopologyCommonAncestor)(dev(6), dev(7), &(nvmlGpuTopologyLevel_t){0}),
                     NVML_SUCCESS);
    unsigned long nodes;
    assert_int_equal(F(nvmlDeviceGetMemoryAffinity)(dev(5), 1, &nodes, NVML_AFFINITY_SCOPE_NODE), NVML_SUCCESS);
    assert_int_equal(nodes, 0x2);
    nvmlIntNvLinkDeviceType_t type;
    nvmlPciInfo_t pci;
    assert_int_equal(F(nvmlDeviceGetNvLinkRemoteDeviceType)(dev(3), 6, &type), NVML_SUCCESS);
    assert_int_equal(type, NVML_NVLINK_DEVICE_TYPE_SWITCH);
    assert_int_equal(F(nvmlDeviceGetNvLinkRemotePciInfo_v2)(dev(3), 6, &pci), NVML_SUCCESS);
    assert_int_equal(pci.bus, 0xF2); /* link 6 -> NVSwitch 2 of 4 */
    nvmlDevice_t near[8];
    unsigned n = 8;
    assert_int_equal(F(nvmlDeviceGetTopologyNearestGpus)(dev(4), NVML_TOPOLOGY_NODE, &n, near), NVML_SUCCESS);
    assert_int_equal(n, 3);
    stop();
}

/* Two XIDs within one second on one GPU (and a third at the same time on another) are each
 * delivered once, in time order, by successive waits, and xid.count counts both. */
static void xid_pair_within_a_second(void **state)
{
    (void)state;
    scenario *sc = load_rel("tests/scenarios/gpusim-model.yaml");
    start_with("tests/scenarios/gpusim-model.yaml", "30");
    nvmlEventSet_t set = NULL;
    nvmlEventData_t e;
    assert_int_equal(F(nvmlEventSetCreate)(&set), NVML_SUCCESS);
    assert_int_equal(F(nvmlDeviceRegisterEvents)(dev(0), nvmlEventTypeXidCriticalError, set), NVML_SUCCESS);
    assert_int_equal(F(nvmlDeviceRegisterEvents)(dev(1), nvmlEventTypeXidCriticalError, set), NVML_SUCCESS);
    assert_int_equal(F(nvmlEventSetWait_v2)(set, &e, 0), NVML_ERROR_TIMEOUT);
    assert_int_equal(F(gpusimSetTime)(30.5), NVML_SUCCESS);
    assert_int_equal(F(nvmlEventSetWait_v2)(set, &e, 0), NVML_SUCCESS);
    assert_int_equal(e.eventData, 48);
    assert_int_equal(F(nvmlEventSetWait_v2)(set, &e, 0), NVML_ERROR_TIMEOUT);
    assert_int_equal(F(gpusimSetTime)(31), NVML_SUCCESS); /* a poll once per second sees both others */
    unsigned long long got[2] = {0, 0};
    for (int i = 0; i < 2; i++) {
        assert_int_equal(F(nvmlEventSetWait)(set, &e, 0), NVML_SUCCESS);
        got[i] = e.eventData;
        assert_ptr_equal(e.device, dev(got[i] == 63 ? 0 : 1));
    }
    assert_true((got[0] == 63 && got[1] == 31) || (got[0] == 31 && got[1] == 63));
    assert_int_equal(F(nvmlEventSetWait_v2)(set, &e, 0), NVML_ERROR_TIMEOUT);
    double v;
    assert_int_equal(sim_value(sc, 0, M_XID_COUNT, 31, &v), 0);
    assert_int_equal(v, 2);
    assert_int_equal(sim_value(sc, 0, M_XID_LAST, 31, &v), 0);
    assert_int_equal(v, 63);
    /* a second set made late still gets both, once */
    nvmlEventSet_t late = NULL;
    assert_int_equal(F(nvmlEventSetCreate)(&late), NVML_SUCCESS);
    assert_int_equal(F(nvmlDeviceRegisterEvents)(dev(0), nvmlEventTypeXidCriticalError, late), NVML_SUCCESS);
    assert_int_equal(F(nvmlEventSetWait_v2)(late, &e, 0), NVML_SUCCESS);
    assert_int_equal(e.eventData, 48);
    assert_int_equal(F(nvmlEventSetWait_v2)(late, &e, 0), NVML_SUCCESS);
    assert_int_equal(e.eventData, 63);
    assert_int_equal(F(nvmlEventSetWait_v2)(late, &e, 0), NVML_ERROR_TIMEOUT);
    F(nvmlEventSetFree)(late);
    F(nvmlEventSetFree)(set);
    stop();
    scenario_free(sc);
}

/* gpusimSetTime sets scenario time directly (whole ms) and holds it; the stateful model
 * (temperature, energy, violation counters) gives at a time reached in 1 s steps, or by a jump
 * back, exactly what it gives when evaluated there directly. */
static void set_time_steps_the_model(void **state)
{
    (void)state;
    assert_int_equal(F(gpusimSetTime)(5), NVML_ERROR_UNINITIALIZED);
    assert_true(F(gpusimGetTime)() < 0);
    start_with("sim/scenarios/thermal-throttle.yaml", "0");
    assert_float_equal(F(gpusimGetTime)(), 0, 0);
    assert_int_equal(F(gpusimSetTime)(-1), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(F(gpusimSetTime)(0.0 / 0.0), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(F(gpusimSetTime)(12.3456), NVML_SUCCESS);
    assert_float_equal(F(gpusimGetTime)(), 12.346, 1e-12);
    unsigned long long e;
    unsigned temp;
    for (int t = 0; t <= 90; t++) {
        assert_int_equal(F(gpusimSetTime)(t), NVML_SUCCESS);
        assert_int_equal(F(nvmlDeviceGetTotalEnergyConsumption)(dev(0), &e), NVML_SUCCESS);
    }
    const double checks[] = {90, 57.5, 90};
    for (int k = 0; k < 3; k++) {
        scenario *fresh = load_rel("sim/scenarios/thermal-throttle.yaml");
        double ve, vt, vv;
        nvmlViolationTime_t viol;
        assert_int_equal(F(gpusimSetTime)(checks[k]), NVML_SUCCESS);
        assert_int_equal(F(nvmlDeviceGetTotalEnergyConsumption)(dev(0), &e), NVML_SUCCESS);
        assert_int_equal(F(nvmlDeviceGetTemperature)(dev(0), NVML_TEMPERATURE_GPU, &temp), NVML_SUCCESS);
        assert_int_equal(F(nvmlDeviceGetViolationStatus)(dev(0), NVML_PERF_POLICY_THERMAL, &viol), NVML_SUCCESS);
        sim_value(fresh, 0, M_ENERGY, checks[k], &ve);
        sim_value(fresh, 0, M_TEMP_GPU, checks[k], &vt);
        sim_value(fresh, 0, M_VIOL_THERMAL, checks[k], &vv);
        assert_int_equal(e, (unsigned long long)ve);
        assert_int_equal(temp, (unsigned)vt);
        assert_int_equal(viol.violationTime, (unsigned long long)(vv * 1000.0 + 0.5));
        scenario_free(fresh);
    }
    assert_true(e > 0);
    stop();
    /* a new init runs the clock again from GPUSIM_T0 */
    start_with("sim/scenarios/thermal-throttle.yaml", "7");
    assert_float_equal(F(gpusimGetTime)(), 7, 0);
    stop();
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* What a replay costs gpusim: 30 minutes of demo-8gpu at 1 s steps, reading through the
 * library what gpuwatch reads each sample (printed; the bound is loose for slow builds). */
static void replay_thirty_minutes(void **state)
{
    (void)state;
    start_with("sim/scenarios/demo-8gpu.yaml", "0");
    nvmlDevice_t d[8];
    for (unsigned g = 0; g < 8; g++)
        d[g] = dev(g);
    double t0 = now_seconds();
    long calls = 0;
    unsigned long long energy[8] = {0};
    for (int t = 0; t <= 1800; t++) {
        assert_int_equal(F(gpusimSetTime)(t), NVML_SUCCESS);
        for (unsigned g = 0; g < 8; g++) {
            nvmlUtilization_t u;
            nvmlMemory_v2_t m = {.version = nvmlMemory_v2};
            unsigned v, n = 8;
            unsigned long long r;
            nvmlProcessInfo_t p[8];
            nvmlProcessUtilizationSample_t ps[8];
            nvmlFieldValue_t f[4] = {{.fieldId = NVML_FI_DEV_MEMORY_TEMP},
                                     {.fieldId = NVML_FI_DEV_TOTAL_ENERGY_CONSUMPTION},
                                     {.fieldId = NVML_FI_DEV_POWER_INSTANT},
                                     {.fieldId = NVML_FI_DEV_PERF_POLICY_POWER}};
            nvmlReturn_t rc = F(nvmlDeviceGetUtilizationRates)(d[g], &u);
            rc |= F(nvmlDeviceGetMemoryInfo_v2)(d[g], &m);
            rc |= F(nvmlDeviceGetTemperature)(d[g], NVML_TEMPERATURE_GPU, &v);
            rc |= F(nvmlDeviceGetPowerUsage)(d[g], &v);
            rc |= F(nvmlDeviceGetClockInfo)(d[g], NVML_CLOCK_SM, &v);
            rc |= F(nvmlDeviceGetClockInfo)(d[g], NVML_CLOCK_MEM, &v);
            rc |= F(nvmlDeviceGetCurrentClocksEventReasons)(d[g], &r);
            rc |= F(nvmlDeviceGetPcieThroughput)(d[g], NVML_PCIE_UTIL_RX_BYTES, &v);
            rc |= F(nvmlDeviceGetPcieThroughput)(d[g], NVML_PCIE_UTIL_TX_BYTES, &v);
            rc |= F(nvmlDeviceGetFieldValues)(d[g], 4, f);
            rc |= F(nvmlDeviceGetComputeRunningProcesses_v3)(d[g], &n, p);
            assert_int_equal(rc, NVML_SUCCESS);
            n = 8;
            rc = F(nvmlDeviceGetProcessUtilization)(d[g], ps, &n, 0);
            assert_true(rc == NVML_SUCCESS || (g == 6 && rc == NVML_ERROR_NOT_FOUND));
            energy[g] = f[1].value.ullVal;
            calls += 12;
        }
    }
    double dt = now_seconds() - t0;
    fprintf(stderr, "replay: 1801 steps x 8 GPUs, %ld calls in %.3f s (%.2f us per call)\n", calls, dt,
            dt / (double)calls * 1e6);
    assert_true(dt < 20);
    stop();
    scenario *sc = load_rel("sim/scenarios/demo-8gpu.yaml");
    for (int g = 0; g < 8; g++) {
        double v;
        assert_int_equal(sim_value(sc, g, M_ENERGY, 1800, &v), 0);
        assert_int_equal(energy[g], (unsigned long long)v); /* 30 minutes of integration */
        assert_true(v > 1e8);
    }
    scenario_free(sc);
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
        cmocka_unit_test(layouts_as_nvml_h_has_them),
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
        cmocka_unit_test(every_real_symbol_resolves),
        cmocka_unit_test(stubs_answer_not_supported),
        cmocka_unit_test(utilization_averages_the_sample_period),
        cmocka_unit_test(samples_are_period_means),
        cmocka_unit_test(pcie_throughput_clamped_by_link),
        cmocka_unit_test(hbm_over_its_limit_throttles),
        cmocka_unit_test(topology_explicit),
        cmocka_unit_test(topology_hgx_defaults),
        cmocka_unit_test(xid_pair_within_a_second),
        cmocka_unit_test(set_time_steps_the_model),
        cmocka_unit_test(replay_thirty_minutes),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
