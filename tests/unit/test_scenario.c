/* test_scenario.c - the gpusim scenario parser (shipped scenarios load; errors carry the
 * right LINE:COL), the generators at exact times, seeded determinism, and the direction of
 * the physical model's defaults. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "gen.h"
#include "model.h"
#include "nvml_abi.h"
#include "scenario.h"

static scenario *parse(const char *text, char *err, size_t errlen)
{
    return scenario_parse("t.yaml", NULL, text, strlen(text), err, errlen);
}

static scenario *parse_ok(const char *text)
{
    char err[512];
    scenario *sc = parse(text, err, sizeof err);
    if (!sc)
        fail_msg("unexpected error: %s", err);
    return sc;
}

static double value(scenario *sc, int gpu, const char *field, double t)
{
    double v = -1;
    const metric_def *m = catalog_find(field);
    assert_non_null(m);
    assert_int_equal(sim_value(sc, gpu, m->id, t, &v), 0);
    return v;
}

static void shipped_scenarios_load(void **state)
{
    (void)state;
    const char *src = getenv("GW_SOURCE_DIR");
    char dir[4096], path[8192], err[512];
    snprintf(dir, sizeof dir, "%s/sim/scenarios", src ? src : GW_SOURCE_DIR);
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".yaml") != 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        scenario *sc = scenario_load(path, err, sizeof err);
        if (!sc)
            fail_msg("%s: %s", e->d_name, err);
        assert_true(sc->ngpus >= 1);
        scenario_free(sc);
        n++;
    }
    closedir(d);
    assert_true(n >= 12);
}

/* Each bad input and the "LINE:COL: text" its error must contain. */
static const struct {
    const char *yaml, *expect;
} bad[] = {
    {"gpus:\n  - preset: h100-sxm\n    colour: red\n", "t.yaml:3:5: unknown key 'colour' in gpu entry"},
    {"gpus:\n  - preset: h999\n", "t.yaml:2:13: unknown preset 'h999'"},
    {"gpus:\n  - metrics:\n      utilisation.gpu: 5\n", "t.yaml:3:7: unknown metric 'utilisation.gpu'"},
    {"gpus:\n  - metrics:\n      utilization.gpu: {wobble: 3}\n", "t.yaml:3:25: unknown generator 'wobble'"},
    {"gpus:\n  - metrics:\n      utilization.gpu: {ramp: {from: 0, to: 9, duration: 10 parsecs}}\n",
     "t.yaml:3:58: expected a duration"},
    {"gpus:\n  - metrics:\n      power.draw: abc\n", "t.yaml:3:19: expected a number, got 'abc'"},
    {"gpus:\n  - metrics:\n      power.draw: {csv: {file: /nonexistent/trace.csv, column: p}}\n",
     "t.yaml:3:32: cannot read CSV file '/nonexistent/trace.csv'"},
    {"seed: 1\ngpus: []\n", "t.yaml:2:7: expected a list of gpu entries"},
    {"seed: 1\n", "t.yaml:1:1: missing key 'gpus'"},
    {"gpus:\n  - count: 0\n", "t.yaml:2:12: expected an integer from 1 to 64"},
    {"gpus:\n  - preset: l4\nfaults:\n  - {gpu: 3, lost: {from: 1s, to: 2s}}\n", "t.yaml:4:11: no gpu 3"},
    {"gpus:\n  - preset: l4\nfaults:\n  - {function: nvmlDeviceGetPowerUsage, error: NVML_ERROR_BOGUS}\n",
     "t.yaml:4:48: expected an NVML error name"},
    {"gpus:\n  - preset: l4\nfaults:\n  - {function: nvmlFrobnicate, delay_ms: 5}\n",
     "t.yaml:4:16: unknown function 'nvmlFrobnicate'"},
    /* hung calls, the driver unloaded, size games */
    {"gpus:\n  - preset: l4\nfaults:\n  - {function: nvmlDeviceGetPowerUsage, hang: yes}\n",
     "t.yaml:4:47: expected 'hang: true'"},
    {"gpus:\n  - preset: l4\nfaults:\n  - {gpu: 0, driver_unloaded: {from: 1s}}\n",
     "t.yaml:4:11: 'driver_unloaded' is about every GPU: no 'gpu'"},
    {"gpus:\n  - preset: l4\nfaults:\n  - {driver_unloaded: {from: 1s, at: 2s}}\n",
     "t.yaml:4:34: unknown key 'at' in driver_unloaded"},
    {"gpus:\n  - preset: l4\nfaults:\n  - {function: nvmlDeviceGetPowerUsage, insufficient_size: same}\n",
     "t.yaml:4:16: 'nvmlDeviceGetPowerUsage' answers no count"},
    {"gpus:\n  - preset: l4\nfaults:\n  - {function: nvmlDeviceGetProcessUtilization, insufficient_size: some}\n",
     "t.yaml:4:68: expected a count, 'same' or 'grow', got 'some'"},
    {"gpus:\n  - preset: l4\nfaults:\n  - {function: nvmlDeviceGetProcessUtilization, success_count: grow}\n",
     "t.yaml:4:64: expected a count, got 'grow'"},
    {"gpus:\n  - preset: l4\nfaults:\n  - {function: \"*\", frobnicate: 1}\n",
     "t.yaml:4:21: unknown key 'frobnicate' in fault"},
    {"gpus:\n  - preset: l4\nfaults:\n  - {function: \"*\"}\n", "t.yaml:4:5: expected a fault: lost, error"},
    {"gpus:\n  - preset: l4\n    processes:\n      - {pid: me}\n",
     "t.yaml:4:15: expected a pid number, 'self' or 'parent'"},
    {"gpus:\n  - preset: l4\n    processes:\n      - {pid: 5, type: X}\n",
     "t.yaml:4:24: expected a process type C, G or C+G"},
    {"gpus:\n  - preset: l4\n  - preset: [x\n", "t.yaml:4:1: YAML: did not find expected"},
    {"gpus:\n  - metrics:\n      utilization.gpu: {steps: [[10s, 1], [5s, 2]]}\n",
     "t.yaml:3:44: step times must increase"},
    {"gpus:\n  - metrics:\n      utilization.gpu: {square: {low: 1, high: 2, period: 4s, duty: 2}}\n",
     "t.yaml:3:69: expected a duty cycle from 0 to 1"},
    {"gpus:\n  - count: 2\n    uuid: GPU-1\n", "t.yaml:3:11: 'uuid' can only be set on an entry with count 1"},
    {"gpus:\n  - unsupported: [fan.sped]\n", "t.yaml:2:19: unknown metric 'fan.sped'"},
    {"gpus:\n  - metrics:\n      name: foo\n", "t.yaml:3:7: 'name' is a string"},
    /* utilization period, HBM model, PCIe transfers */
    {"gpus:\n  - utilization_period: 20s\n", "t.yaml:2:25: expected a utilization period from 1ms to 10s"},
    {"gpus:\n  - preset: rtx4080\n    thermal: {mem_load_c: 90}\n",
     "t.yaml:3:27: 'mem_load_c': preset rtx4080 has no memory temperature"},
    {"gpus:\n  - thermal: {mem_max_c: 100, mem_shutdown_c: 100}\n",
     "t.yaml:2:47: mem_shutdown_c (100) must be above mem_max_c (100)"},
    {"gpus:\n  - thermal: {mem_tau: 0s}\n", "t.yaml:2:24: expected a time constant above 0"},
    {"gpus:\n  - processes:\n      - {pid: 5, pcie: {rx: 5, unit: MB/s}}\n",
     "t.yaml:3:38: expected unit GB/s or %, got 'MB/s'"},
    {"gpus:\n  - processes:\n      - {pid: 5, pcie: {tx: abc%}}\n",
     "t.yaml:3:29: expected a rate in GB/s or a share of the link such as 50%, got 'abc%'"},
    {"gpus:\n  - processes:\n      - {pid: 5, pcie: {rxx: 5}}\n", "t.yaml:3:25: unknown key 'rxx' in pcie"},
    {"gpus:\n  - processes:\n      - {pid: 5, pcie: {rx: {wobble: 1}}}\n", "t.yaml:3:30: unknown generator 'wobble'"},
    /* topology */
    {"gpus:\n  - count: 2\ntopology:\n  numa: x\n", "t.yaml:4:3: unknown key 'numa' in topology"},
    {"gpus:\n  - count: 2\ntopology:\n  numa_cpus: {0: \"0-7,x\", 1: \"8-15\"}\n",
     "t.yaml:4:18: expected a CPU list such as \"0-31,64-95\", got '0-7,x'"},
    {"gpus:\n  - count: 2\ntopology:\n  numa_cpus: {0: \"0-7\"}\n",
     "t.yaml:4:14: no CPUs for NUMA node 1 (gpu 1 is on it)"},
    {"gpus:\n  - count: 2\ntopology:\n  numa_cpus: {0: \"0-2000\", 1: \"1\"}\n",
     "t.yaml:4:18: CPU 2000 is beyond the 1024 gpusim models"},
    {"gpus:\n  - count: 2\ntopology:\n  numa_cpus: {0: \"1\", 64: \"2\"}\n",
     "t.yaml:4:23: expected an integer from 0 to 63, got '64'"},
    {"gpus:\n  - count: 4\ntopology:\n  pcie_switches: [[0], [1, 2]]\n",
     "t.yaml:4:24: gpus 1 and 2 share a PCIe switch but not a NUMA node"},
    {"gpus:\n  - count: 4\ntopology:\n  pcie_switches: [[0, 1], [1]]\n",
     "t.yaml:4:28: gpu 1 is in two pcie_switches groups"},
    {"gpus:\n  - count: 2\n    preset: rtx4080\n  - preset: h100-sxm\ntopology:\n  nvlink: all\n",
     "t.yaml:6:11: nvlink: all needs two GPUs with NVLink (the scenario has 1)"},
    {"gpus:\n  - count: 2\ntopology:\n  nvlink: some\n",
     "t.yaml:4:11: expected 'all', 'none' or a list of GPU lists for nvlink, got 'some'"},
    {"gpus:\n  - count: 2\ntopology:\n  nvlink: [[0, 5]]\n", "t.yaml:4:16: no gpu 5 (the scenario has 2 GPUs)"},
    {"gpus:\n  - preset: h100-sxm\n  - preset: l4\ntopology:\n  nvlink: [[0, 1]]\n",
     "t.yaml:5:12: gpu 1 (l4) has no NVLink"},
    /* MIG devices */
    {"gpus:\n  - preset: rtx4080\n    mig:\n      - {profile: 1g.10gb, gi: 1, memory_mib: 100}\n",
     "t.yaml:4:7: mig: the NVIDIA GeForce RTX 4080 SUPER has no MIG mode"},
    {"gpus:\n  - mig:\n      - {profile: 3g, gi: 1, memory_mib: 100}\n",
     "t.yaml:3:19: profile: expected SLICESg.GBgb (e.g. 1g.10gb, 3g.40gb), got '3g'"},
    {"gpus:\n  - mig:\n      - {profile: 1g.10gb, memory_mib: 100}\n", "t.yaml:3:9: missing key 'gi'"},
    {"gpus:\n  - mig:\n      - {profile: 1g.10gb, gi: 1, memory_mib: 100}\n      - {profile: 1g.10gb, gi: 1, "
     "memory_mib: 100}\n",
     "t.yaml:4:9: mig: two MIG devices with gi 1, ci 0"},
    {"gpus:\n  - mig:\n      - {profile: 7g.80gb, gi: 1, memory_mib: 90000}\n",
     "t.yaml:3:47: memory_mib: expected 1 to the GPU's 81559 MiB, got 90000"},
    {"gpus:\n  - mig:\n      - {profile: 1g.10gb, gi: 1, memory_mib: 100, used_mib: 200}\n",
     "used_mib: expected 0 to memory_mib, got 200"},
    {"gpus:\n  - processes:\n      - {pid: 5, gi: 7}\n    mig:\n      - {profile: 1g.10gb, gi: 1, memory_mib: 100}\n",
     "t.yaml:3:9: process 1: gi 7, ci 0 is none of this GPU's MIG devices (mig:)"},
    {"gpus:\n  - processes:\n      - {pid: 5, ci: 1}\n", "t.yaml:3:22: ci without gi"},
    {"gpus:\n  - mig:\n      - {profile: 1g.10gb, gi: 1, memory_mib: 100, colour: red}\n",
     "unknown key 'colour' in MIG device"},
};

/* MIG devices: MIG mode on, the GPU's utilizations NOT_SUPPORTED, processes placed on them. */
static void mig_devices(void **state)
{
    (void)state;
    scenario *sc = parse_ok("gpus:\n  - count: 2\n    processes:\n      - {pid: 5, memory_mib: 700, gi: 2}\n"
                            "    mig:\n      - {profile: 3g.40gb, gi: 2, memory_mib: 40448, used_mib: 39, sm: 60}\n"
                            "      - {profile: 1g.10gb, gi: 9, ci: 1, memory_mib: 9984}\n  - preset: h100-sxm\n");
    for (int g = 0; g < 3; g++) {
        const sim_gpu_spec *s = sc->gpus[g].spec;
        assert_int_equal(s->nmig, g < 2 ? 2 : 0);
        assert_int_equal(value(sc, g, "mig.mode.current", 1), g < 2 ? 1 : 0);
        double v;
        assert_int_equal(sim_value(sc, g, M_UTIL_GPU, 1, &v), g < 2 ? -1 : 0);
    }
    const sim_gpu_spec *s = sc->gpus[0].spec;
    assert_string_equal(s->mig[1].profile, "1g.10gb");
    assert_true(s->mig[1].gi == 9 && s->mig[1].ci == 1 && s->mig[0].sm_count == 60 && s->mig[0].used_mib == 39);
    sim_proc_sample ps[4];
    assert_int_equal(sim_processes(sc, 1, 1, ps, 4), 1);
    assert_true(ps[0].gi == 2 && ps[0].ci == 0 && ps[0].mem_mib == 700);
    scenario_free(sc);
}

static void errors_carry_line_and_column(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char err[512] = "";
        scenario *sc = parse(bad[i].yaml, err, sizeof err);
        if (sc)
            fail_msg("case %zu parsed but should fail", i);
        if (!strstr(err, bad[i].expect))
            fail_msg("case %zu: got '%s', expected '%s'", i, err, bad[i].expect);
    }
}

static void csv_errors_name_the_csv_line(void **state)
{
    (void)state;
    char dir[] = "/tmp/gpusim-test-XXXXXX", path[256], err[512];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/trace.csv", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("t,power\n0,100\n10,200\n20,oops\n", f);
    fclose(f);
    const char *y = "gpus:\n  - metrics:\n      power.draw: {csv: {file: trace.csv, column: power}}\n";
    scenario *sc = scenario_parse("s.yaml", dir, y, strlen(y), err, sizeof err);
    assert_null(sc);
    char want[300];
    snprintf(want, sizeof want, "%s:4:4: expected a number, got 'oops'", path);
    if (!strstr(err, want))
        fail_msg("got '%s'", err);
    const char *y2 = "gpus:\n  - metrics:\n      power.draw: {csv: {file: trace.csv, column: watts}}\n";
    assert_null(scenario_parse("s.yaml", dir, y2, strlen(y2), err, sizeof err));
    assert_non_null(strstr(err, "s.yaml:3:51: no column 'watts'"));
    unlink(path);
    rmdir(dir);
}

static void csv_generator_interpolates(void **state)
{
    (void)state;
    char dir[] = "/tmp/gpusim-test-XXXXXX", path[256], err[512];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/trace.csv", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("t,clocks.sm,power.draw\n0,1000,100\n10,2000,\n\n20,1500,300\n", f);
    fclose(f);
    const char *y = "gpus:\n  - metrics:\n      clocks.sm: {csv: {file: trace.csv, column: clocks.sm}}\n"
                    "      power.draw: {csv: {file: trace.csv, column: power.draw}}\n";
    scenario *sc = scenario_parse("s.yaml", dir, y, strlen(y), err, sizeof err);
    if (!sc)
        fail_msg("%s", err);
    assert_float_equal(value(sc, 0, "clocks.sm", 0), 1000, 0);
    assert_float_equal(value(sc, 0, "clocks.sm", 5), 1500, 0);
    assert_float_equal(value(sc, 0, "clocks.sm", 15), 1750, 0);
    assert_float_equal(value(sc, 0, "clocks.sm", 99), 1500, 0);
    /* an empty cell is no point: interpolation runs from 0 s to 20 s */
    assert_float_equal(value(sc, 0, "power.draw", 10), 200, 0);
    scenario_free(sc);
    unlink(path);
    rmdir(dir);
}

/* A recorded trace: one file, one column per metric, an hour at 1 s. Read once, not per column. */
static void wide_csv_trace_loads(void **state)
{
    (void)state;
    char dir[] = "/tmp/gpusim-test-XXXXXX", path[256], err[512];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/gpu0.csv", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    int ids[40], n = 0;
    for (int m = M_STR_END; m < M_COUNT && n < 40; m++)
        if (!(metric_catalog[m].flags & (MF_BIT | MF_STATIC)))
            ids[n++] = m;
    fputs("t", f);
    for (int i = 0; i < n; i++)
        fprintf(f, ",%s", metric_catalog[ids[i]].field);
    for (int r = 0; r < 3600; r++) {
        fprintf(f, "\n%d.000000", r);
        for (int i = 0; i < n; i++)
            fprintf(f, ",%d", (r + i) % 90);
    }
    fputs("\n", f);
    fclose(f);
    char yaml[8192];
    size_t k = (size_t)snprintf(yaml, sizeof yaml, "gpus:\n  - unsupported: []\n    metrics:\n");
    for (int i = 0; i < n; i++)
        k += (size_t)snprintf(yaml + k, sizeof yaml - k, "      %s: {csv: {file: gpu0.csv, column: %s}}\n",
                              metric_catalog[ids[i]].field, metric_catalog[ids[i]].field);
    /* Load time is a benchmark figure, not asserted here (tests run on loaded machines). */
    scenario *sc = scenario_parse("s.yaml", dir, yaml, k, err, sizeof err);
    if (!sc)
        fail_msg("%s", err);
    double v;
    assert_int_equal(sim_value(sc, 0, (metric_id)ids[0], 100, &v), 0);
    assert_float_equal(v, 10, 0);
    scenario_free(sc);
    unlink(path);
    rmdir(dir);
}

static void generators_at_exact_times(void **state)
{
    (void)state;
    scenario *sc = parse_ok("gpus:\n  - metrics:\n"
                            "      utilization.gpu: {ramp: {from: 10, to: 90, duration: 80s, start: 20s}}\n"
                            "      utilization.memory: {sine: {mean: 50, amplitude: 20, period: 40s}}\n"
                            "      utilization.encoder: {square: {low: 5, high: 95, period: 10s, duty: 0.3}}\n"
                            "      power.draw: {steps: [[0s, 100], [30s, 650], [90s, 300]]}\n"
                            "      temperature.gpu: {constant: 200, max: 85}\n"
                            "      clocks.mem: 1234\n"
                            "    unsupported: []\n");
    assert_float_equal(value(sc, 0, "utilization.gpu", 0), 10, 0);
    assert_float_equal(value(sc, 0, "utilization.gpu", 20), 10, 0);
    assert_float_equal(value(sc, 0, "utilization.gpu", 60), 50, 0);
    assert_float_equal(value(sc, 0, "utilization.gpu", 100), 90, 0);
    assert_float_equal(value(sc, 0, "utilization.gpu", 500), 90, 0);
    assert_float_equal(value(sc, 0, "utilization.memory", 10), 70, 0);
    assert_float_equal(value(sc, 0, "utilization.memory", 30), 30, 0);
    assert_float_equal(value(sc, 0, "utilization.encoder", 2.9), 95, 0);
    assert_float_equal(value(sc, 0, "utilization.encoder", 3.1), 5, 0);
    assert_float_equal(value(sc, 0, "utilization.encoder", 12), 95, 0);
    assert_float_equal(value(sc, 0, "power.draw", 29.9), 100, 0);
    assert_float_equal(value(sc, 0, "power.draw", 30), 650, 0);
    assert_float_equal(value(sc, 0, "power.draw", 1000), 300, 0);
    assert_float_equal(value(sc, 0, "temperature.gpu", 1), 85, 0);
    assert_float_equal(value(sc, 0, "clocks.mem", 7), 1234, 0);
    scenario_free(sc);
}

static void noise_is_seeded_and_deterministic(void **state)
{
    (void)state;
    const char *y = "seed: %d\ngpus:\n  - count: 2\n    metrics:\n      power.draw: {constant: 300, noise: 10}\n";
    char text[256];
    snprintf(text, sizeof text, y, 5);
    scenario *a = parse_ok(text), *b = parse_ok(text);
    snprintf(text, sizeof text, y, 6);
    scenario *c = parse_ok(text);
    int differ_seed = 0, differ_gpu = 0;
    double sum = 0, sq = 0;
    for (int i = 0; i < 400; i++) {
        double t = i * 1.0, va = value(a, 0, "power.draw", t), vb = value(b, 0, "power.draw", t);
        assert_true(va == vb);
        differ_seed |= va != value(c, 0, "power.draw", t);
        differ_gpu |= va != value(a, 1, "power.draw", t);
        sum += va - 300;
        sq += (va - 300) * (va - 300);
    }
    assert_true(differ_seed && differ_gpu);
    assert_true(fabs(sum / 400) < 2.0);
    double sd = sqrt(sq / 400);
    assert_true(sd > 8 && sd < 12);
    /* the noise holds within its interval (1 s by default) */
    assert_true(value(a, 0, "power.draw", 7.1) == value(a, 0, "power.draw", 7.9));
    scenario_free(a);
    scenario_free(b);
    scenario_free(c);
}

static void values_do_not_depend_on_query_order(void **state)
{
    (void)state;
    const char *y = "gpus:\n  - metrics:\n      utilization.gpu: {sine: {mean: 60, amplitude: 40, period: 30s}}\n";
    scenario *a = parse_ok(y), *b = parse_ok(y);
    for (double t = 0; t < 120; t += 0.37)
        value(a, 0, "temperature.gpu", t);
    const char *fields[] = {"temperature.gpu", "energy.consumed", "power.draw", "clocks.sm"};
    for (size_t i = 0; i < 4; i++)
        assert_true(value(a, 0, fields[i], 119.5) == value(b, 0, fields[i], 119.5));
    /* going back in time gives the same answer again */
    double e1 = value(a, 0, "energy.consumed", 50);
    value(a, 0, "energy.consumed", 100);
    assert_true(value(a, 0, "energy.consumed", 50) == e1);
    scenario_free(a);
    scenario_free(b);
}

static void physical_defaults_move_the_right_way(void **state)
{
    (void)state;
    scenario *sc = parse_ok("gpus:\n  - metrics:\n      utilization.gpu: {steps: [[0s, 0], [100s, 100]]}\n"
                            "  - metrics:\n      utilization.gpu: 30\n");
    /* power follows load */
    assert_true(value(sc, 0, "power.draw", 50) < value(sc, 0, "power.draw", 150));
    assert_true(value(sc, 1, "power.draw", 50) > value(sc, 0, "power.draw", 50));
    /* temperature lags: it rises after the load step, and keeps rising for a while */
    double t100 = value(sc, 0, "temperature.gpu", 100), t110 = value(sc, 0, "temperature.gpu", 110),
           t200 = value(sc, 0, "temperature.gpu", 200);
    assert_true(t100 < t110 && t110 < t200);
    assert_true(t200 <= 72);
    /* idle GPU: idle clocks and the gpu_idle reason; busy: max clocks */
    assert_float_equal(value(sc, 0, "clocks.sm", 50), 345, 0);
    assert_float_equal(value(sc, 0, "clocks_event_reasons.gpu_idle", 50), 1, 0);
    assert_float_equal(value(sc, 0, "clocks.sm", 150), 1980, 0);
    /* energy integrates power: constant power P over 10 s adds P * 10 J */
    double p = value(sc, 1, "power.draw", 20);
    double de = value(sc, 1, "energy.consumed", 30) - value(sc, 1, "energy.consumed", 20);
    assert_true(fabs(de - p * 10000) < 10);
    /* memory.free = total - reserved - used */
    assert_float_equal(
        value(sc, 0, "memory.free", 5),
        value(sc, 0, "memory.total", 5) - value(sc, 0, "memory.reserved", 5) - value(sc, 0, "memory.used", 5), 1e-9);
    scenario_free(sc);
}

static void power_cap_and_thermal_throttle(void **state)
{
    (void)state;
    scenario *sc = parse_ok("gpus:\n  - power_limit_w: 400\n    metrics:\n      utilization.gpu: 100\n"
                            "  - metrics:\n      utilization.gpu: 100\n"
                            "      temperature.gpu: {steps: [[0s, 60], [10s, 88], [20s, 90]]}\n");
    assert_float_equal(value(sc, 0, "power.draw", 5), 400, 0);
    assert_float_equal(value(sc, 0, "clocks_event_reasons.sw_power_cap", 5), 1, 0);
    assert_true(value(sc, 0, "clocks.sm", 5) < 1980);
    assert_true(value(sc, 0, "clocks_event_reasons_counters.sw_power_cap", 10) >= 9.9e6);
    assert_float_equal(value(sc, 1, "clocks_event_reasons.active", 5), 0, 0);
    assert_float_equal(value(sc, 1, "clocks_event_reasons.sw_thermal_slowdown", 15), 1, 0);
    assert_float_equal(value(sc, 1, "clocks_event_reasons.hw_thermal_slowdown", 15), 0, 0);
    assert_float_equal(value(sc, 1, "clocks_event_reasons.hw_thermal_slowdown", 25), 1, 0);
    assert_float_equal(value(sc, 1, "clocks_event_reasons.hw_slowdown", 25), 1, 0);
    assert_true(value(sc, 1, "clocks.sm", 25) < value(sc, 1, "clocks.sm", 15));
    assert_true(value(sc, 1, "clocks.sm", 15) < value(sc, 1, "clocks.sm", 5));
    assert_true(value(sc, 1, "power.draw", 25) < value(sc, 1, "power.draw", 5));
    assert_true(value(sc, 1, "clocks_event_reasons_counters.hw_thermal_slowdown", 30) > 9e6);
    scenario_free(sc);
}

static void presets_and_unsupported(void **state)
{
    (void)state;
    scenario *sc = parse_ok("gpus:\n  - preset: rtx4080\n  - preset: h100-sxm\n    unsupported: [power.draw]\n");
    double v;
    char s[128];
    assert_int_equal(sim_value(sc, 0, M_TEMP_MEMORY, 1, &v), -1);
    assert_int_equal(sim_value(sc, 0, M_ECC_MODE, 1, &v), -1);
    assert_int_equal(sim_value(sc, 0, M_FAN_SPEED, 1, &v), 0);
    assert_int_equal(sim_string(sc, 0, M_SERIAL, s, sizeof s), -1);
    assert_int_equal(sim_string(sc, 0, M_NAME, s, sizeof s), 0);
    assert_string_equal(s, "NVIDIA GeForce RTX 4080 SUPER");
    assert_float_equal(value(sc, 0, "memory.total", 0), 16376, 0);
    assert_int_equal(sim_value(sc, 1, M_POWER_DRAW, 1, &v), -1);
    assert_int_equal(sim_value(sc, 1, M_FAN_SPEED, 1, &v), -1);
    assert_float_equal(value(sc, 1, "temperature.gpu.slowdown", 0), 89, 0);
    assert_int_equal(sim_string(sc, 1, M_PCI_BUS_ID, s, sizeof s), 0);
    assert_string_equal(s, "00000000:2A:00.0");
    scenario_free(sc);
}

static void processes_resolve_and_come_and_go(void **state)
{
    (void)state;
    scenario *sc = parse_ok("gpus:\n  - count: 2\n    processes:\n"
                            "      - {pid: self, memory_mib: 100, sm: 40}\n"
                            "      - {pid: parent, memory_mib: 50}\n"
                            "      - {pid: 1000, pid_stride: 10, memory_mib: {ramp: {from: 0, to: 1000, duration: "
                            "10s}}, start: 5s, end: 20s}\n");
    sim_proc_sample ps[8];
    assert_int_equal(sim_processes(sc, 1, 1, ps, 8), 2);
    assert_int_equal(ps[0].pid, (unsigned)getpid());
    assert_int_equal(ps[1].pid, (unsigned)getppid());
    assert_int_equal(sim_processes(sc, 1, 10, ps, 8), 3);
    assert_int_equal(ps[2].pid, 1010);
    assert_float_equal(ps[2].mem_mib, 1000, 0);
    assert_int_equal(sim_processes(sc, 0, 20, ps, 8), 2);
    /* default utilization and memory come from the processes */
    assert_float_equal(value(sc, 0, "utilization.gpu", 1), 40, 0);
    assert_float_equal(value(sc, 0, "memory.used", 10), 1150, 0);
    scenario_free(sc);
}

static void extreme_values_are_clamped(void **state)
{
    (void)state;
    scenario *sc = parse_ok("gpus:\n  - metrics:\n      power.draw: 1e300\n"
                            "      utilization.gpu: {sine: {mean: 1e300, amplitude: 1e300, period: 0.000001s}}\n"
                            "      clocks.sm: -5\n"
                            "    processes:\n      - {pid: 5, memory_mib: 1e300, sm: 1e300}\n");
    assert_float_equal(value(sc, 0, "power.draw", 1), SIM_MAX_VALUE, 0);
    assert_true(value(sc, 0, "utilization.gpu", 1) <= 100);
    assert_float_equal(value(sc, 0, "clocks.sm", 1), 0, 0);
    assert_float_equal(value(sc, 0, "memory.free", 1), 0, 0);
    scenario_free(sc);
}

/* The new fault kinds parse into what the library applies. */
static void fault_kinds(void **state)
{
    (void)state;
    scenario *sc = parse_ok("gpus:\n  - count: 2\nfaults:\n"
                            "  - {function: \"*\", gpu: 1, hang: true, from: 5s}\n"
                            "  - {driver_unloaded: {from: 10s, to: 20s}}\n"
                            "  - {function: nvmlDeviceGetComputeRunningProcesses_v3, insufficient_size: grow}\n"
                            "  - {function: nvmlDeviceGetProcessUtilization, insufficient_size: 7, every: 2}\n"
                            "  - {function: \"*\", success_count: 100000}\n"
                            "  - {function: \"*\", error: NVML_ERROR_UNKNOWN, every: 3}\n");
    assert_int_equal(sc->nfaults, 6);
    assert_int_equal(sc->faults[0].kind, FAULT_HANG);
    assert_string_equal(sc->faults[0].function, "*");
    assert_int_equal(sc->faults[0].gpu, 1);
    assert_float_equal(sc->faults[0].from, 5, 0);
    assert_true(isinf(sc->faults[0].to));
    assert_int_equal(sc->faults[1].kind, FAULT_DRIVER_GONE);
    assert_int_equal(sc->faults[1].gpu, -1);
    assert_float_equal(sc->faults[1].to, 20, 0);
    assert_int_equal(sc->faults[2].kind, FAULT_COUNT);
    assert_int_equal(sc->faults[2].count_mode, COUNT_GROW);
    assert_int_equal(sc->faults[2].error, NVML_ERROR_INSUFFICIENT_SIZE);
    assert_int_equal(sc->faults[3].count_mode, COUNT_VALUE);
    assert_int_equal(sc->faults[3].count_value, 7);
    assert_int_equal(sc->faults[3].every, 2);
    assert_int_equal(sc->faults[4].error, NVML_SUCCESS);
    assert_int_equal(sc->faults[4].count_value, 100000);
    assert_int_equal(sc->faults[5].kind, FAULT_ERROR);
    scenario_free(sc);
}

static void events_and_lost_windows(void **state)
{
    (void)state;
    scenario *sc =
        parse_ok("gpus:\n  - count: 2\nevents:\n  - {at: 10s, gpu: 1, xid: 79}\n  - {at: 5s, gpu: 1, xid: 48}\n"
                 "faults:\n  - {gpu: 1, lost: {from: 10s, to: 25s}}\n");
    assert_false(sim_lost(sc, 1, 9.99));
    assert_true(sim_lost(sc, 1, 10));
    assert_true(sim_lost(sc, 1, 24.9));
    assert_false(sim_lost(sc, 1, 25));
    assert_false(sim_lost(sc, 0, 15));
    assert_float_equal(value(sc, 1, "xid.count", 7), 1, 0);
    assert_float_equal(value(sc, 1, "xid.last", 7), 48, 0);
    assert_float_equal(value(sc, 1, "xid.last", 11), 79, 0);
    assert_float_equal(value(sc, 0, "xid.count", 11), 0, 0);
    scenario_free(sc);
}

/* XIDs listed in any order, with ties, on several GPUs: xid.count and xid.last at any time are what
 * the list says (the list is sorted once at load for O(log n) reads), for families of sizes. */
static void many_events_in_any_order(void **state)
{
    (void)state;
    const int sizes[] = {1, 7, 1000, 20000};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        int n = sizes[k];
        int *at = malloc((size_t)n * sizeof *at), *gpu = malloc((size_t)n * sizeof *gpu);
        unsigned *xid = malloc((size_t)n * sizeof *xid);
        char *text = malloc((size_t)n * 48 + 64);
        assert_true(at && gpu && xid && text);
        size_t len = (size_t)sprintf(text, "gpus:\n  - count: 3\nevents:\n");
        unsigned r = 12345u + (unsigned)n;
        for (int i = 0; i < n; i++) {
            r = r * 1103515245u + 12345u;
            at[i] = (int)((r >> 8) % 500); /* many ties */
            gpu[i] = (int)((r >> 4) % 3);
            xid[i] = 13 + (unsigned)i % 90;
            len += (size_t)sprintf(text + len, "  - {at: %ds, gpu: %d, xid: %u}\n", at[i], gpu[i], xid[i]);
        }
        scenario *sc = parse_ok(text);
        assert_int_equal(sc->nevents, n);
        for (int t = 0; t <= 501; t += 17) {
            for (int g = 0; g < 3; g++) {
                double count = 0, last = 0, best = -1;
                for (int i = 0; i < n; i++)
                    if (gpu[i] == g && at[i] <= t) {
                        count++;
                        if (at[i] >= best) { /* the latest; among equal times, the last listed */
                            best = at[i];
                            last = xid[i];
                        }
                    }
                assert_float_equal(value(sc, g, "xid.count", t + 0.5), count, 0);
                assert_float_equal(value(sc, g, "xid.last", t + 0.5), last, 0);
            }
        }
        scenario_free(sc);
        free(at);
        free(gpu);
        free(xid);
        free(text);
    }
}

/* utilization.gpu is the mean over the sample period ending at t: a 0.5 s gap in every 1 s reads
 * 50 % with a 1 s period and 0 / 100 % with 167 ms; processes add up, starting mid-period. */
static void utilization_is_a_period_mean(void **state)
{
    (void)state;
    scenario *sc = parse_ok("gpus:\n"
                            "  - utilization_period: 1s\n"
                            "    metrics:\n"
                            "      utilization.gpu: {square: {low: 0, high: 100, period: 1s, duty: 0.5}}\n"
                            "  - metrics:\n"
                            "      utilization.gpu: {square: {low: 0, high: 100, period: 1s, duty: 0.5}}\n"
                            "  - utilization_period: 1s\n"
                            "    processes:\n"
                            "      - {pid: 7, sm: 40, start: 10.25s}\n"
                            "      - {pid: 8, sm: {ramp: {from: 0, to: 100, duration: 100s}}}\n"
                            "  - utilization_period: 500ms\n"
                            "    metrics:\n"
                            "      utilization.gpu: {square: {low: 0, high: 100, period: 0.01s, duty: 0.3}}\n"
                            "      utilization.memory: {sine: {mean: 50, amplitude: 50, period: 0.5s}}\n");
    for (double t = 1; t < 20; t += 0.137)
        assert_float_equal(value(sc, 0, "utilization.gpu", t), 50, 0);
    assert_float_equal(value(sc, 0, "utilization.memory", 7.3), 20, 0);
    assert_float_equal(value(sc, 1, "utilization.gpu", 5.25), 100, 0);
    assert_float_equal(value(sc, 1, "utilization.gpu", 5.75), 0, 0);
    assert_float_equal(value(sc, 1, "utilization.gpu", 5.55), 70, 0); /* 0.117 s of 0.167 still high */
    /* process 7 ran 0.5 of the period ending at 10.75 (40 x 0.5), the ramp averages 10.25 */
    assert_float_equal(value(sc, 2, "utilization.gpu", 10.75), 30, 0);
    sim_proc_sample ps[4];
    assert_int_equal(sim_processes(sc, 2, 10.75, ps, 4), 2);
    assert_float_equal(ps[0].sm, 20, 0);
    assert_float_equal(ps[1].sm, 10, 0);
    /* 150 edges in the period: the dense fallback still gives the duty cycle; a sine's mean */
    assert_float_equal(value(sc, 3, "utilization.gpu", 42), 30, 0);
    assert_float_equal(value(sc, 3, "utilization.memory", 42), 50, 0);
    /* at t = 0 the period is empty: the value at 0 */
    assert_float_equal(value(sc, 1, "utilization.gpu", 0), 100, 0);
    double v;
    assert_int_equal(sim_util_at(sc, 1, M_UTIL_GPU, 5.55, &v), 0);
    assert_float_equal(v, 70, 0);
    scenario_free(sc);
}

/* PCIe: declared transfers plus a baseline, at most the link's rate per direction. */
static void pcie_transfers_and_link_limits(void **state)
{
    (void)state;
    scenario *sc = parse_ok("gpus:\n"
                            "  - metrics:\n      pcie.link.gen.current: 3\n"
                            "    processes:\n      - {pid: 1, pcie: {rx: 10, tx: 20}}\n"
                            "  - processes:\n"
                            "      - {pid: 2, pcie: {rx: 60%, tx: {steps: [[0s, 10], [5s, 80]]}, unit: \"%\"}}\n"
                            "      - {pid: 3, pcie: {rx: 60%}, start: 10s}\n"
                            "  - metrics:\n      pcie.rx_throughput: 1234\n"
                            "    processes:\n      - {pid: 4, pcie: {rx: 10}}\n");
    /* gen 3 x16: 15.76 GB/s per direction; idle baseline 100 / 50 KB/s */
    assert_float_equal(value(sc, 0, "pcie.rx_throughput", 1), 10000100, 0);
    assert_float_equal(value(sc, 0, "pcie.tx_throughput", 1), 985 * 16 * 1000, 0);
    assert_float_equal(value(sc, 1, "pcie.rx_throughput", 1), 3938 * 16 * 1000 * 6 / 10 + 100, 0);
    assert_float_equal(value(sc, 1, "pcie.tx_throughput", 1), 3938 * 16 * 1000 / 10 + 50, 0);
    assert_float_equal(value(sc, 1, "pcie.tx_throughput", 6), 3938 * 16 * 1000 * 8 / 10 + 50, 0);
    assert_float_equal(value(sc, 1, "pcie.rx_throughput", 11), 3938 * 16 * 1000, 0); /* 120 % asked */
    assert_float_equal(value(sc, 1, "gpm.pcie_rx", 11), 3938 * 16 * 1000 * 1000.0 / 1048576.0, 1e-9);
    assert_float_equal(value(sc, 2, "pcie.rx_throughput", 1), 1234, 0); /* a generator wins */
    scenario_free(sc);
}

/* HBM heats with the load on its own time constant; over its max operating temperature the
 * GPU sets sw_thermal_slowdown, at its shutdown point hw thermal slowdown, with a cool core. */
static void hbm_temperature_and_throttle(void **state)
{
    (void)state;
    scenario *sc =
        parse_ok("gpus:\n"
                 "  - thermal: {mem_load_c: 140, mem_tau: 5s}\n"
                 "    processes:\n      - {pid: 1, sm: 100, start: 10s}\n"
                 "  - processes:\n      - {pid: 2, sm: 100, start: 10s}\n"
                 "  - preset: h100-sxm\n    metrics:\n      temperature.memory: {steps: [[0s, 50], [5s, 96]]}\n"
                 "      utilization.gpu: 50\n");
    double first_sw = -1, first_hw = -1;
    for (double t = 0; t < 60; t += 0.2) {
        double sw = value(sc, 0, "clocks_event_reasons.sw_thermal_slowdown", t);
        double hw = value(sc, 0, "clocks_event_reasons.hw_thermal_slowdown", t);
        double mem = value(sc, 0, "temperature.memory", t);
        assert_true(value(sc, 0, "temperature.gpu", t) < 87);
        if (sw && first_sw < 0) {
            first_sw = t;
            assert_true(mem >= 95 && mem < 105);
            assert_float_equal(value(sc, 0, "clocks.sm", t), 1683, 0);
        }
        if (hw && first_hw < 0) {
            first_hw = t;
            assert_true(mem >= 105);
            assert_float_equal(value(sc, 0, "clocks_event_reasons.hw_slowdown", t), 1, 0);
            assert_float_equal(value(sc, 0, "clocks.sm", t), 990, 0);
        }
        if (t < 10)
            assert_true(mem < 60);
    }
    assert_true(first_sw > 10 && first_hw > first_sw);
    double ns[4];
    sim_violations(sc, 0, 60, ns);
    assert_true(ns[1] > 1e9 && ns[2] > 0); /* sw and hw thermal time, ns */
    /* the same load with the preset's HBM: warmer than idle, far from its limit */
    double mem = value(sc, 1, "temperature.memory", 200);
    assert_true(mem > 55 && mem < 80);
    assert_float_equal(value(sc, 1, "clocks_event_reasons.active", 200), 0, 0);
    /* a given memory temperature throttles too */
    assert_float_equal(value(sc, 2, "clocks_event_reasons.sw_thermal_slowdown", 4), 0, 0);
    assert_float_equal(value(sc, 2, "clocks_event_reasons.sw_thermal_slowdown", 6), 1, 0);
    scenario_free(sc);
}

/* What the diagnosis needs gpusim to simulate: NVLink links (up as the topology connects them, a
 * link brought down or counting errors by generators, absent where a board has no such link), an
 * idle link training down, clocks held low without a reason (locked, applications clock, a low
 * P-state), HW slowdown asserted from outside, a process hung in a collective, and page retirement
 * on a board without a row remapper. */
static void diagnosis_faults_simulated(void **state)
{
    (void)state;
    scenario *sc = parse_ok("gpus:\n"
                            "  - count: 2\n"
                            "    preset: a100-sxm\n"
                            "    pcie_idle_gen: 1\n"
                            "    metrics:\n"
                            "      nvlink.link3.errors.replay: {steps: [[0s, 0], [60s, 7]]}\n"
                            "      nvlink.link5.state: {steps: [[0s, 1], [60s, 0]]}\n"
                            "    processes:\n"
                            "      - {pid: 10, pid_stride: 1, sm: 90, start: 10s, hang: {from: 100s, sm_active: 4}}\n"
                            "  - preset: h100-sxm\n"
                            "    locked_clocks_mhz: 1200\n"
                            "    processes: [{pid: 20, sm: 95}]\n"
                            "  - preset: l4\n"
                            "    metrics: {pstate: 8, clocks_event_reasons.hw_slowdown: {steps: [[0s, 0], [60s, 1]]}}\n"
                            "    processes: [{pid: 30, sm: 95}]\n"
                            "  - preset: v100-sxm2\n"
                            "    metrics: {retired_pages.double_bit.count: {steps: [[0s, 2], [60s, 3]]}}\n");
    double v;
    /* NVLink: 12 links on an A100, link 3 counts replays, link 5 goes down; none beyond the 12th */
    assert_true(value(sc, 0, "nvlink.links.active", 30) == 12);
    assert_true(value(sc, 0, "nvlink.links.active", 90) == 11);
    assert_true(value(sc, 0, "nvlink.link5.state", 90) == 0);
    assert_true(value(sc, 0, "nvlink.errors.replay", 90) == 7 && value(sc, 0, "nvlink.link3.errors.replay", 30) == 0);
    assert_int_equal(sim_value(sc, 0, nvlink_id(12, NVL_STATE), 0, &v), -1);
    assert_int_equal(sim_value(sc, 3, M_NVLINK_ACTIVE, 0, &v), -1); /* the L4 has none */
    assert_true(value(sc, 4, "nvlink.links.active", 0) == 6);       /* a V100's six */
    /* the idle link at Gen1, Gen4 under load */
    assert_true(value(sc, 0, "pcie.link.gen.current", 5) == 1);
    assert_true(value(sc, 0, "pcie.link.gen.current", 30) == 4);
    /* hung: utilization pinned at 100 %, power near idle, the clock still at its maximum */
    double busy_power = value(sc, 0, "power.draw", 90);
    assert_true(value(sc, 0, "utilization.gpu", 150) == 100);
    assert_true(value(sc, 0, "power.draw", 150) < 61 + 0.1 * (400 - 61) && busy_power > 300);
    assert_true(value(sc, 0, "clocks.sm", 150) == 1410);
    /* locked at 1200 MHz: no reason set, less power than at full clocks */
    assert_true(value(sc, 2, "clocks.sm", 30) == 1200 && value(sc, 2, "clocks_event_reasons.active", 30) == 0);
    assert_true(value(sc, 2, "power.draw", 30) < 0.9 * 700);
    /* stuck in P8 while busy: idle clocks; HW slowdown asserted halves what is left */
    assert_true(value(sc, 3, "clocks.sm", 30) == 210 && value(sc, 3, "utilization.gpu", 30) == 95);
    assert_true(value(sc, 3, "clocks_event_reasons.hw_slowdown", 90) == 1);
    assert_true(value(sc, 3, "power.draw", 90) < value(sc, 3, "power.draw", 30));
    /* page retirement on the V100, no row remapper there; the others the other way round */
    assert_true(value(sc, 4, "retired_pages.double_bit.count", 90) == 3);
    assert_int_equal(sim_value(sc, 4, M_REMAP_PENDING, 0, &v), -1);
    assert_int_equal(sim_value(sc, 0, M_RETIRED_DBE, 0, &v), -1);
    assert_true(value(sc, 0, "remapped_rows.pending", 0) == 0);
    scenario_free(sc);
    /* the keys are checked like every other */
    char err[512];
    assert_null(parse("gpus:\n  - pcie_idle_gen: 9\n", err, sizeof err));
    assert_non_null(strstr(err, "t.yaml:2:20: expected an integer from 1 to 6"));
    assert_null(parse("gpus:\n  - processes: [{pid: 1, hang: {sm_active: 3}}]\n", err, sizeof err));
    assert_non_null(strstr(err, "missing key 'from'"));
}

/* Topology defaults from the GPU count, and given lists. */
static void topology_defaults_and_keys(void **state)
{
    (void)state;
    scenario *sc = parse_ok("gpus:\n  - count: 8\n");
    for (int g = 0; g < 8; g++) {
        assert_int_equal(sc->topo.numa[g], g / 4);
        assert_int_equal(sc->topo.pcie_switch[g], g / 2);
        assert_int_equal(sc->topo.nvlink[g], 0);
    }
    assert_int_equal(sc->topo.nvswitch, 1);
    assert_int_equal(sc->topo.numa_cpus_given, 0);
    scenario_free(sc);
    /* odd counts never put one switch across nodes; GPUs without NVLink stay out of it */
    sc = parse_ok("gpus:\n  - count: 2\n  - preset: rtx4080\n");
    assert_int_equal(sc->topo.numa[2], 1);
    assert_int_equal(sc->topo.pcie_switch[0], sc->topo.pcie_switch[1]);
    assert_true(sc->topo.pcie_switch[2] != sc->topo.pcie_switch[1]);
    assert_int_equal(sc->topo.nvlink[2], -1);
    assert_int_equal(sc->topo.nvlink[0], 0);
    scenario_free(sc);
    sc = parse_ok("gpus:\n  - count: 3\n    numa_node: 1\n  - preset: l4\n    numa_node: 0\n"
                  "topology:\n  numa_cpus: {0: \"0-3,64\", 1: \"4-7\"}\n"
                  "  pcie_switches: [[0, 2]]\n  nvlink: none\n");
    assert_int_equal(sc->topo.numa[3], 0);
    assert_int_equal(sc->topo.numa_cpus_given, 1);
    assert_int_equal(sc->topo.numa_cpus[0][0], 0xF);
    assert_int_equal(sc->topo.numa_cpus[0][1], 1);
    assert_int_equal(sc->topo.pcie_switch[1], -1);
    assert_int_equal(sc->topo.pcie_switch[2], 0);
    assert_int_equal(sc->topo.nvlink[0], -1);
    assert_float_equal(value(sc, 3, "numa_node", 0), 0, 0);
    scenario_free(sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(shipped_scenarios_load),
        cmocka_unit_test(errors_carry_line_and_column),
        cmocka_unit_test(mig_devices),
        cmocka_unit_test(csv_errors_name_the_csv_line),
        cmocka_unit_test(csv_generator_interpolates),
        cmocka_unit_test(wide_csv_trace_loads),
        cmocka_unit_test(generators_at_exact_times),
        cmocka_unit_test(noise_is_seeded_and_deterministic),
        cmocka_unit_test(values_do_not_depend_on_query_order),
        cmocka_unit_test(physical_defaults_move_the_right_way),
        cmocka_unit_test(power_cap_and_thermal_throttle),
        cmocka_unit_test(presets_and_unsupported),
        cmocka_unit_test(processes_resolve_and_come_and_go),
        cmocka_unit_test(extreme_values_are_clamped),
        cmocka_unit_test(events_and_lost_windows),
        cmocka_unit_test(many_events_in_any_order),
        cmocka_unit_test(utilization_is_a_period_mean),
        cmocka_unit_test(pcie_transfers_and_link_limits),
        cmocka_unit_test(hbm_temperature_and_throttle),
        cmocka_unit_test(topology_defaults_and_keys),
        cmocka_unit_test(diagnosis_faults_simulated),
        cmocka_unit_test(fault_kinds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
