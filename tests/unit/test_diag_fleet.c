/* test_diag_fleet.c - the fleet's diagnosis (diag_fleet.h): the straggler detector over synthetic
 * jobs (2 to 64 GPUs on 1 to 8 hosts, clock, power and utilization noise, phases the whole job goes
 * through together, one straggler slowed by its clock, its power or a slowdown reason, or a member
 * only slightly slower, or none) with its precision and recall; imbalance and idle_holding across a
 * job's hosts; the ranking by severity then GPU-hours lost; GPU-hours from a window; the JSON and
 * text shapes; readings and event counts no metric can have. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "diag_fleet.h"
#include "test_diag_synth.h"

#define T0 SYN_T0
#define SPAN_US 3600000000ull /* an hour */

typedef enum { NONE_SLOW, BY_CLOCK, BY_POWER, BY_THROTTLE, SLIGHT } slow_kind;

/* A job of n members on nh hosts; member `slow` (or none) slowed as kind says. */
static void make_job(diag_fleet *fl, uint64_t *seed, int n, int nh, int slow, slow_kind kind, double depth)
{
    char name[32];
    for (int h = 0; h < nh; h++) {
        snprintf(name, sizeof name, "node%02d", h);
        diag_fleet_host(fl, name);
    }
    /* phases the whole job shares: training, evaluation (less busy), a checkpoint (idle) */
    double phase_util[DIAG_FLEET_BUCKETS], phase_clock[DIAG_FLEET_BUCKETS];
    for (int b = 0; b < DIAG_FLEET_BUCKETS; b++) {
        int eval = b % 30 >= 25, ckpt = b % 40 == 39;
        phase_util[b] = ckpt ? 2 : eval ? 55 : 95;
        phase_clock[b] = ckpt ? 345 : 1980;
    }
    for (int i = 0; i < n; i++) {
        int host = i * nh / n, gpu = i - (host * n + nh - 1) / nh;
        diag_member *m = diag_fleet_member(fl, "slurm:42", host, gpu < 0 ? 0 : gpu, NULL);
        assert_non_null(m);
        double base_power = syn_range(seed, 560, 640); /* boards differ a little */
        for (int b = 0; b < DIAG_FLEET_BUCKETS; b++) {
            double u = phase_util[b] + syn_normal(seed) * 2, c = phase_clock[b] * (1 + syn_normal(seed) * 0.015);
            double p = base_power * u / 95 * (1 + syn_normal(seed) * 0.05);
            double th = 0;
            if (i == slow && phase_util[b] > 50) {
                if (kind == BY_CLOCK || kind == SLIGHT)
                    c *= 1 - depth, p *= 1 - depth * 0.8;
                else if (kind == BY_POWER)
                    p *= 1 - depth;
                else if (kind == BY_THROTTLE)
                    th = syn_range(seed, 0.6, 1), c *= 1 - depth / 3;
            }
            m->util[b] = (float)fmin(100, fmax(0, u));
            m->clock[b] = (float)c;
            m->power[b] = (float)p;
            m->throttle[b] = (float)th;
            m->mem[b] = 60000;
        }
    }
}

static int count(const diag_fleet *fl, const char *detector)
{
    int k = 0;
    for (int i = 0; i < fl->n; i++)
        k += strcmp(fl->f[i].f.detector, detector) == 0;
    return k;
}

/* Precision and recall over families of jobs. */
static void test_straggler_families(void **state)
{
    (void)state;
    diag_config cfg;
    diag_config_defaults(&cfg);
    uint64_t seed = 24;
    int tp = 0, fp = 0, fn = 0, cases = 0;
    int sizes[] = {2, 3, 4, 8, 16, 32, 64};
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
        for (int nh = 1; nh <= 8; nh *= 2)
            for (int kind = NONE_SLOW; kind <= SLIGHT; kind++)
                for (int rep = 0; rep < 3; rep++) {
                    int n = sizes[si];
                    if (nh > n)
                        continue;
                    diag_fleet fl;
                    diag_fleet_init(&fl, T0, T0 + SPAN_US);
                    int slow = kind == NONE_SLOW ? -1 : syn_int(&seed, 0, n - 1);
                    /* clear of the thresholds (10 % of clock, 25 % of power) by the noise's few percent */
                    double depth = kind == SLIGHT     ? syn_range(&seed, 0.01, 0.04)
                                   : kind == BY_POWER ? syn_range(&seed, 0.32, 0.5)
                                                      : syn_range(&seed, 0.14, 0.45);
                    make_job(&fl, &seed, n, nh, slow, (slow_kind)kind, depth);
                    assert_true(diag_fleet_cross(&fl, &cfg) >= 0);
                    int want = kind != NONE_SLOW && kind != SLIGHT;
                    const diag_job *j = &fl.jobs[0];
                    int hit = 0;
                    for (int i = 0; i < fl.n; i++) {
                        const diag_fleet_finding *ff = &fl.f[i];
                        if (strcmp(ff->f.detector, "straggler") != 0)
                            continue;
                        int right = want && ff->host == j->m[slow].host && ff->f.gpus[0] == j->m[slow].gpu;
                        hit |= right;
                        fp += !right;
                        if (!right)
                            print_message("false straggler: n %d hosts %d kind %d: %s\n", n, nh, kind, ff->f.summary);
                        if (right)
                            assert_true(ff->gpu_hours > 0 && strstr(ff->f.summary, "slurm:42"));
                    }
                    tp += hit;
                    fn += want && !hit;
                    if (want && !hit)
                        print_message("missed: n %d hosts %d kind %d depth %.2f\n", n, nh, kind, depth);
                    cases++;
                    diag_fleet_free(&fl);
                }
    double precision = tp + fp ? (double)tp / (tp + fp) : 1, recall = tp + fn ? (double)tp / (tp + fn) : 1;
    print_message("straggler: %d jobs, precision %.3f, recall %.3f\n", cases, precision, recall);
    assert_true(cases > 200);
    assert_true(precision >= 0.98);
    assert_true(recall >= 0.95);
}

/* One host of a two-host job busy less, its clocks normal: imbalance on it, no straggler. */
static void test_host_imbalance(void **state)
{
    (void)state;
    diag_config cfg;
    diag_config_defaults(&cfg);
    for (int gap = 0; gap <= 40; gap += 10) {
        diag_fleet fl;
        diag_fleet_init(&fl, T0, T0 + SPAN_US);
        diag_fleet_host(&fl, "a");
        diag_fleet_host(&fl, "b");
        for (int i = 0; i < 8; i++) {
            diag_member *m = diag_fleet_member(&fl, "k8s:ml/train", i / 4, i % 4, NULL);
            for (int b = 0; b < DIAG_FLEET_BUCKETS; b++) {
                m->util[b] = (float)(i / 4 ? 92 - gap : 92) + (float)(b % 3);
                m->clock[b] = 1980;
                m->power[b] = 600;
                m->throttle[b] = 0;
                m->mem[b] = 50000;
            }
        }
        assert_true(diag_fleet_cross(&fl, &cfg) >= 0);
        int want = gap >= cfg.imbalance.min_gap;
        assert_int_equal(count(&fl, "imbalance"), want);
        assert_int_equal(count(&fl, "straggler"), 0);
        if (want) {
            assert_string_equal(fl.hosts[fl.f[0].host], "b");
            assert_int_equal(fl.f[0].f.n_gpus, 4);
            assert_true(fl.f[0].gpu_hours > 0);
        }
        diag_fleet_free(&fl);
    }
}

/* Every GPU of a job on three hosts idle with memory held: one finding; busy or released: none. */
static void test_job_idle(void **state)
{
    (void)state;
    diag_config cfg;
    diag_config_defaults(&cfg);
    struct {
        float util, mem;
        int idle_buckets, want;
    } cases[] = {{0, 40000, 120, 1}, {3, 40000, 60, 1}, {0, 40000, 10, 0}, {0, 200, 120, 0}, {50, 40000, 120, 0}};
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        diag_fleet fl;
        diag_fleet_init(&fl, T0, T0 + SPAN_US);
        const char *hosts[] = {"x", "y", "z"};
        for (int h = 0; h < 3; h++)
            diag_fleet_host(&fl, hosts[h]);
        for (int i = 0; i < 6; i++) {
            diag_member *m = diag_fleet_member(&fl, "slurm:7", i % 3, i / 3, NULL);
            for (int b = 0; b < DIAG_FLEET_BUCKETS; b++) {
                int idle = b < cases[k].idle_buckets;
                m->util[b] = idle ? cases[k].util : 90;
                m->mem[b] = cases[k].mem;
                m->clock[b] = 1980;
                m->power[b] = idle ? 80 : 600;
                m->throttle[b] = 0;
            }
        }
        assert_true(diag_fleet_cross(&fl, &cfg) >= 0);
        assert_int_equal(count(&fl, "idle_holding"), cases[k].want);
        if (cases[k].want) {
            const diag_evidence *e = diag_finding_get(&fl.f[0].f, "hosts");
            assert_non_null(e);
            assert_string_equal(e->str, "x, y, z");
            assert_true(fabs(fl.f[0].gpu_hours - 6.0 * cases[k].idle_buckets / DIAG_FLEET_BUCKETS) < 1e-6);
        }
        diag_fleet_free(&fl);
    }
}

/* Findings from hosts' windows: GPU-hours from the window's idle or slowed time; ranked. */
static void test_rank_and_hours(void **state)
{
    (void)state;
    diag_window *w = diag_window_new();
    gpu_info info = {.index = 0};
    for (int g = 0; g < 2; g++)
        for (int i = 0; i <= 3600; i++) {
            gpu_sample s = {.t_us = T0 + (uint64_t)i * 1000000};
            sample_set(&s, M_UTIL_GPU, g == 0 ? 25 : 100); /* GPU 0 idle 75 %; GPU 1 busy at half clock */
            sample_set(&s, M_CLOCK_SM, g == 0 ? 1980 : 990);
            sample_set(&s, M_CLOCK_MAX_SM, 1980);
            info.index = g;
            diag_window_add_sample(w, g, &info, &s);
        }
    diag_report r;
    diag_report_init(&r);
    const char *dets[] = {"low_util", "thermal", "input_stall"};
    diag_severity sev[] = {DIAG_WARNING, DIAG_WARNING, DIAG_CRITICAL};
    int gpus[] = {0, 1, 0};
    for (int k = 0; k < 3; k++) {
        diag_finding *f = diag_report_add(&r, dets[k], sev[k]);
        diag_finding_gpu(f, gpus[k]);
        f->from_us = T0;
        f->to_us = T0 + (k == 0 ? SPAN_US / 2 : SPAN_US);
    }
    diag_fleet fl;
    diag_fleet_init(&fl, T0, T0 + SPAN_US);
    int h = diag_fleet_host(&fl, "gpu-7:9400");
    assert_int_equal(diag_fleet_host(&fl, "gpu-7:9400"), h);
    assert_int_equal(diag_fleet_add_report(&fl, h, &r, w), 0);
    diag_fleet_sort(&fl);
    fl.hosts_read = 1;
    fl.ngpus = 2;
    /* critical first; then the warning that cost more GPU-hours */
    assert_string_equal(fl.f[0].f.detector, "input_stall");
    assert_true(fabs(fl.f[0].gpu_hours - 0.75) < 0.01);
    double low = 0, hot = 0;
    for (int i = 0; i < fl.n; i++) {
        if (strcmp(fl.f[i].f.detector, "low_util") == 0)
            low = fl.f[i].gpu_hours;
        if (strcmp(fl.f[i].f.detector, "thermal") == 0)
            hot = fl.f[i].gpu_hours;
    }
    assert_true(fabs(low - 0.375) < 0.01);
    assert_true(fabs(hot - 0.5) < 0.01);
    assert_string_equal(fl.f[1].f.detector, "thermal");
    assert_true(fabs(diag_fleet_gpu_hours(&fl) - 1.625) < 0.02);

    snprintf(fl.missing, sizeof fl.missing, "a; b");
    char *json = diag_fleet_json(&fl, 0);
    cJSON *root = cJSON_Parse(json);
    assert_non_null(root);
    assert_int_equal(cJSON_GetObjectItem(root, "hosts")->valueint, 1);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(root, "missing")), 2);
    const cJSON *first = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "findings"), 0);
    assert_string_equal(cJSON_GetObjectItem(first, "host")->valuestring, "gpu-7:9400");
    assert_true(cJSON_GetObjectItem(first, "gpu_hours_lost")->valuedouble > 0.7);
    assert_string_equal(cJSON_GetObjectItem(first, "detector")->valuestring, "input_stall");
    cJSON_Delete(root);
    free(json);
    gw_buf text;
    buf_init(&text);
    diag_fleet_text(&fl, &text, DIAG_TEXT_ASCII);
    assert_non_null(strstr(text.data, "fleet: 1 host, 2 GPUs, 3 findings (1 critical, 2 warning, 0 info), 1.6"));
    assert_non_null(strstr(text.data, "gpu-7:9400, GPU 0: 0.75 GPU-hours lost"));
    buf_release(&text);
    diag_fleet_free(&fl);
    diag_report_free(&r);
    diag_window_free(w);
}

/* What an engine may hold (a broken exporter, a hostile store): readings past any metric's range
 * are not kept, and event counts summed past INT_MAX stay at it (UBSan checks the sums). */
static void test_hostile_readings(void **state)
{
    (void)state;
    double huge[] = {1e17, -1e17, 4.1e9, -4.1e9, 1e12};
    for (size_t k = 0; k < sizeof huge / sizeof *huge; k++) {
        diag_window *w = diag_window_new();
        gpu_info info = {.index = 0};
        for (int i = 0; i < 600; i++) {
            gpu_sample s = {.t_us = T0 + (uint64_t)i * 1000000};
            sample_set(&s, M_UTIL_GPU, 90);
            sample_set(&s, M_CER_ACTIVE, huge[k]);
            sample_set(&s, M_PCIE_WIDTH_CUR, huge[k]);
            sample_set(&s, M_CLOCK_SM, huge[k]);
            sample_set(&s, M_ECC_DBE_VOL, i * huge[k]);
            diag_window_add_sample(w, 0, &info, &s);
        }
        diag_window_add_event(w, 0, T0 + 1000000, DIAG_EV_ECC_DBE, 0, INT_MAX);
        diag_window_add_event(w, 0, T0 + 9000000, DIAG_EV_ECC_DBE, 0, INT_MAX);
        diag_window_add_event(w, 0, T0 + 2000000, DIAG_EV_XID, 79, INT_MAX);
        diag_window_add_event(w, 0, T0 + 8000000, DIAG_EV_XID, 79, INT_MAX);
        assert_int_equal(w->gpus[0].s[DS_CER].n, 0);
        assert_int_equal(w->gpus[0].s[DS_PCIE_WIDTH].n, 0);
        assert_int_equal(w->gpus[0].s[DS_CLOCK_SM].n, 0);
        assert_int_equal(w->gpus[0].s[DS_UTIL].n, 600);
        diag_report r;
        diag_report_init(&r);
        assert_true(diag_run(w, NULL, &r) >= 1); /* the uncorrectable errors are still found */
        diag_report_free(&r);
        diag_window_free(w);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_straggler_families), cmocka_unit_test(test_host_imbalance),
        cmocka_unit_test(test_job_idle),           cmocka_unit_test(test_rank_and_hours),
        cmocka_unit_test(test_hostile_readings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
