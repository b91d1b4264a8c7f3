/* test_agent_exposition.c - the /metrics page writer: names, labels and escaping, HELP/TYPE once
 * per family, scaling, absent metrics, lost GPUs, series modes, the enable list, process caps. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "exposition.h"
#include "expo_text.h"

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

static agent_gpu_view gpus[2];
static gpu_proc procs[3];
static agent_snapshot snap;

static void set_str(gpu_info *i, metric_id id, const char *s)
{
    snprintf(i->str[id], GW_STR_LEN, "%s", s);
    mset_add(&i->str_present, id);
}

static int setup(void **st)
{
    (void)st;
    memset(gpus, 0, sizeof gpus);
    memset(procs, 0, sizeof procs);
    for (int i = 0; i < 2; i++) {
        agent_gpu_view *g = &gpus[i];
        g->info.index = i;
        g->have_info = 1;
        set_str(&g->info, M_NAME, i == 0 ? "NVIDIA \"H100\" 80GB\\HBM3" : "NVIDIA H100 80GB HBM3");
        set_str(&g->info, M_UUID, i == 0 ? "GPU-aaaa" : "GPU-bbbb");
        set_str(&g->info, M_PCI_BUS_ID, i == 0 ? "00000000:18:00.0" : "00000000:2A:00.0");
        set_str(&g->info, M_DRIVER_VERSION, "590.48.01");
        g->has_sample = 1;
        sample_set(&g->sample, M_TEMP_GPU, 45 + i);
        sample_set(&g->sample, M_MEM_USED, 1024);
        sample_set(&g->sample, M_UTIL_GPU, 50);
        sample_set(&g->sample, M_MINOR_NUMBER, 4 + i);
        sample_set(&g->sample, M_ENERGY, 5000);
        sample_set(&g->sample, M_CER_ACTIVE, 0x4);
        sample_set(&g->sample, M_GPM_SM_ACTIVE, 25);
    }
    gpus[1].lost = 1;
    for (int i = 0; i < 3; i++) {
        procs[i].gpu = 0;
        procs[i].pid = 100 + (unsigned)i;
        procs[i].has_mem = 1;
        procs[i].mem_mib = 2;
        procs[i].has_sm = i == 0;
        procs[i].sm_util = 40;
        snprintf(procs[i].name, sizeof procs[i].name, "python3");
        snprintf(procs[i].user, sizeof procs[i].user, "alice");
    }
    memset(&snap, 0, sizeof snap);
    snap.backend_up = 1;
    snap.ngpus = 2;
    snap.gpus = gpus;
    snap.procs = procs;
    snap.nprocs = 3;
    snap.interval_s = 1;
    return 0;
}

static void test_dcgm_and_native(void **st)
{
    (void)st;
    expo_options o;
    expo_options_default(&o);
    o.hostname = "node1";
    gw_buf b;
    buf_init(&b);
    expo_write_gpus(&b, &snap, &o);
    const char *p = b.data;
    assert_int_equal(count(p, "# TYPE DCGM_FI_DEV_GPU_TEMP gauge\n"), 1);
    assert_int_equal(count(p, "# HELP DCGM_FI_DEV_GPU_TEMP GPU temperature (in C).\n"), 1);
    assert_non_null(strstr(p, "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\",UUID=\"GPU-aaaa\",pci_bus_id=\"00000000:18:00.0\","
                              "device=\"nvidia4\",modelName=\"NVIDIA \\\"H100\\\" 80GB\\\\HBM3\",Hostname=\"node1\","
                              "DCGM_FI_DRIVER_VERSION=\"590.48.01\"} 45\n"));
    assert_non_null(strstr(p, "DCGM_FI_DEV_FB_USED{gpu=\"0\""));
    assert_non_null(strstr(p, "} 1024\n"));
    assert_non_null(strstr(p, "gpuwatch_memory_used_bytes{gpu=\"0\",uuid=\"GPU-aaaa\"} 1073741824\n"));
    assert_non_null(strstr(p, "gpuwatch_utilization_ratio{gpu=\"0\",uuid=\"GPU-aaaa\"} 0.5\n"));
    assert_non_null(strstr(p, "# TYPE gpuwatch_energy_joules_total counter\n"));
    assert_non_null(strstr(p, "gpuwatch_energy_joules_total{gpu=\"0\",uuid=\"GPU-aaaa\"} 5\n"));
    assert_non_null(strstr(p, "# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter\n"));
    assert_non_null(strstr(p, "DCGM_FI_PROF_SM_ACTIVE{gpu=\"0\""));
    assert_non_null(strstr(p, "} 0.25\n"));
    assert_non_null(strstr(p, "gpuwatch_clock_event_reason_sw_power_cap{gpu=\"0\",uuid=\"GPU-aaaa\"} 1\n"));
    assert_non_null(strstr(p, "gpuwatch_clock_event_reason_gpu_idle{gpu=\"0\",uuid=\"GPU-aaaa\"} 0\n"));
    /* absent: no series, no family */
    assert_null(strstr(p, "DCGM_FI_DEV_MEMORY_TEMP"));
    assert_null(strstr(p, "gpuwatch_power_draw_watts"));
    /* the lost GPU keeps only info, lost and hung */
    assert_non_null(strstr(p, "gpuwatch_gpu_lost{gpu=\"1\",uuid=\"GPU-bbbb\"} 1\n"));
    assert_non_null(strstr(p, "gpuwatch_gpu_lost{gpu=\"0\",uuid=\"GPU-aaaa\"} 0\n"));
    assert_non_null(strstr(p, "gpuwatch_gpu_hung{gpu=\"1\",uuid=\"GPU-bbbb\"} 0\n"));
    assert_null(strstr(p, "{gpu=\"1\",UUID"));
    assert_int_equal(count(p, "uuid=\"GPU-bbbb\""), 3);
    assert_non_null(strstr(p, "gpuwatch_gpu_info{gpu=\"1\",uuid=\"GPU-bbbb\",name=\"NVIDIA H100 80GB HBM3\""));
    /* processes */
    assert_int_equal(count(p, "gpuwatch_process_memory_bytes{"), 3);
    assert_non_null(strstr(p, "gpuwatch_process_memory_bytes{gpu=\"0\",pid=\"100\",user=\"alice\",command=\"python3\","
                              "container=\"\"} 2097152\n"));
    assert_int_equal(count(p, "gpuwatch_process_sm_utilization_ratio{"), 1);
    /* every family has HELP and TYPE exactly once */
    for (const char *line = p; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        if (strncmp(line, "# TYPE ", 7) != 0)
            continue;
        char name[128], key[160];
        sscanf(line + 7, "%127s", name);
        snprintf(key, sizeof key, "# TYPE %s ", name);
        assert_int_equal(count(p, key), 1);
        snprintf(key, sizeof key, "# HELP %s ", name);
        assert_int_equal(count(p, key), 1);
    }
    buf_release(&b);
}

static void test_modes_and_filters(void **st)
{
    (void)st;
    expo_options o;
    expo_options_default(&o);
    o.series = EXPO_DCGM;
    gw_buf b;
    buf_init(&b);
    expo_write_gpus(&b, &snap, &o);
    assert_non_null(strstr(b.data, "DCGM_FI_DEV_GPU_TEMP{"));
    assert_null(strstr(b.data, "gpuwatch_temperature_celsius"));
    assert_null(strstr(b.data, "gpuwatch_process_memory_bytes"));
    assert_non_null(strstr(b.data, "gpuwatch_gpu_lost{gpu=\"1\""));
    /* a hung GPU says so in every mode: its values are the last it gave */
    buf_clear(&b);
    gpus[0].hung = 1;
    expo_write_gpus(&b, &snap, &o);
    gpus[0].hung = 0;
    assert_non_null(strstr(b.data, "gpuwatch_gpu_hung{gpu=\"0\",uuid=\"GPU-aaaa\"} 1\n"));
    assert_non_null(strstr(b.data, "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\""));
    buf_clear(&b);
    expo_options_default(&o);
    o.series = EXPO_NATIVE;
    assert_int_equal(expo_enable(&o, "temperature.gpu"), 0);
    assert_int_equal(expo_enable(&o, "gpuwatch_process_sm_utilization_ratio"), 0);
    assert_int_equal(expo_enable(&o, "no.such.metric"), -1);
    expo_write_gpus(&b, &snap, &o);
    assert_non_null(strstr(b.data, "gpuwatch_temperature_celsius{"));
    assert_null(strstr(b.data, "gpuwatch_memory_used_bytes"));
    assert_null(strstr(b.data, "DCGM_"));
    assert_null(strstr(b.data, "gpuwatch_process_memory_bytes"));
    assert_non_null(strstr(b.data, "gpuwatch_process_sm_utilization_ratio{"));
    buf_clear(&b);
    expo_options_default(&o);
    o.process_limit = 2;
    expo_write_gpus(&b, &snap, &o);
    assert_int_equal(count(b.data, "gpuwatch_process_memory_bytes{"), 2);
    buf_release(&b);
}

static void test_health(void **st)
{
    (void)st;
    agent_error_count e = {"nvmlDeviceGetPowerUsage", "Unknown \"x\"", 3};
    snap.errors = &e;
    snap.nerrors = 1;
    gw_buf b;
    buf_init(&b);
    expo_write_round_health(&b, &snap);
    assert_non_null(strstr(
        b.data, "gpuwatch_nvml_errors_total{function=\"nvmlDeviceGetPowerUsage\",code=\"Unknown \\\"x\\\"\"} 3\n"));
    assert_non_null(strstr(b.data, "# TYPE gpuwatch_nvml_errors_total counter\n"));
    assert_null(strstr(b.data, "gpuwatch_up"));
    snap.errors = NULL;
    snap.nerrors = 0;

    /* The live part at now: GPU 0 fresh, GPU 1 stale, GPU 2 without a sample yet (no age, stale 0). */
    uint64_t now = 1700000000000000ull;
    agent_gpu_view g[3];
    memset(g, 0, sizeof g);
    g[0].has_sample = 1;
    g[1].has_sample = 1;
    g[0].sample.t_us = now - 500000;
    g[1].sample.t_us = now - 4000000;
    agent_snapshot h = {.backend_up = 1, .ngpus = 3, .gpus = g, .interval_s = 1};
    buf_clear(&b);
    expo_write_live(&b, &h, now, 0.001);
    assert_non_null(strstr(b.data, "# TYPE gpuwatch_up gauge\ngpuwatch_up 1\n"));
    assert_non_null(strstr(b.data, "gpuwatch_sample_age_seconds{gpu=\"0\"} 0.5\n"));
    assert_non_null(strstr(b.data, "gpuwatch_sample_age_seconds{gpu=\"1\"} 4\n"));
    assert_null(strstr(b.data, "gpuwatch_sample_age_seconds{gpu=\"2\"}"));
    assert_non_null(strstr(b.data, "gpuwatch_gpu_stale{gpu=\"1\"} 1\n"));
    assert_non_null(strstr(b.data, "gpuwatch_gpu_stale{gpu=\"2\"} 0\n"));
    assert_int_equal(count(b.data, "# TYPE gpuwatch_sample_age_seconds gauge\n"), 1);
    assert_non_null(strstr(b.data, "gpuwatch_scrape_duration_seconds 0.001\n"));
    h.backend_up = 0;
    h.ngpus = 0;
    buf_clear(&b);
    expo_write_live(&b, &h, now, 0.002);
    assert_non_null(strstr(b.data, "gpuwatch_up 0\n"));
    assert_null(strstr(b.data, "gpuwatch_gpu_stale"));
    assert_null(strstr(b.data, "gpuwatch_sample_age_seconds"));
    buf_release(&b);
}

static void test_text_primitives(void **st)
{
    (void)st;
    gw_buf b;
    buf_init(&b);
    expo_value(&b, 0.1 * 3);
    buf_putc(&b, ' ');
    expo_value(&b, 1e20);
    buf_putc(&b, ' ');
    expo_value(&b, -7);
    buf_putc(&b, ' ');
    expo_value(&b, 0.0 / 0.0);
    assert_string_equal(b.data, "0.3 1e+20 -7 NaN");
    buf_clear(&b);
    int first = 1;
    expo_label(&b, &first, "a", "x\ny\\z\"");
    expo_label(&b, &first, "b", "");
    assert_string_equal(b.data, "a=\"x\\ny\\\\z\\\"\",b=\"\"");
    buf_clear(&b);
    expo_family(&b, "m", "line1\nline2 \\ \"q\"", "counter");
    assert_string_equal(b.data, "# HELP m line1\\nline2 \\\\ \"q\"\n# TYPE m counter\n");
    buf_release(&b);
}

/* expo_value's own formatting gives exactly printf's text (%lld for whole numbers, else %.15g). */
static void check_value(double v)
{
    char want[64];
    if (v == floor(v) && fabs(v) < 9007199254740992.0)
        snprintf(want, sizeof want, "%lld", (long long)v);
    else
        snprintf(want, sizeof want, "%.15g", v);
    gw_buf b;
    buf_init(&b);
    expo_value(&b, v);
    if (strcmp(b.data, want) != 0)
        fail_msg("expo_value(%.17g) = \"%s\", printf gives \"%s\"", v, b.data, want);
    buf_release(&b);
}

static void test_value_like_printf(void **st)
{
    (void)st;
    static const double fixed[] = {0,
                                   -0.0,
                                   1,
                                   -1,
                                   9,
                                   10,
                                   4242,
                                   -123456789,
                                   9007199254740991.0,
                                   1e15,
                                   0.5,
                                   -0.5,
                                   0.0001,
                                   0.000099,
                                   0.000028,
                                   2.8e-05,
                                   0.067478,
                                   0.1 * 3,
                                   1e-7,
                                   1.000001,
                                   999999999.999999,
                                   1e9 + 0.5,
                                   123456789.123456,
                                   0.1,
                                   0.25,
                                   1e20,
                                   -2.5e-3};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        check_value(fixed[i]);
    /* whole microseconds over the fast path's range and beyond, both signs, and arbitrary doubles */
    unsigned long long x = 88172645463325252ull;
    for (int i = 0; i < 200000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        long long k = (long long)(x % 2000000000000000ull) >> (x % 50);
        double us = (double)k / 1e6;
        check_value(us);
        check_value(-us);
        check_value((double)(x >> 11) / (double)(1ull << (x % 60)));
        check_value((double)(x % 100000) / 1e6);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_dcgm_and_native, setup),
        cmocka_unit_test_setup(test_modes_and_filters, setup),
        cmocka_unit_test_setup(test_health, setup),
        cmocka_unit_test(test_text_primitives),
        cmocka_unit_test(test_value_like_printf),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
