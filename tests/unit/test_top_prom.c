/* test_top_prom.c - top --prometheus without an engine: an engine's answers (JSON, decoded by
 * prom_api.h as the client does) grouped into hosts and GPUs. Families of fleets with gpuwatch's
 * native names and with dcgm-exporter's (values in the catalog's units, GPUs by index, who they work
 * for), missing labels, repeated series, hostile label values and values, the caps; the model's
 * engine hosts (added as they appear, not reporting when their series go) and the --match check. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "buf.h"
#include "top_fleet.h"
#include "util.h"

/* An instant vector's answer: each item "LABELS-JSON|VALUE" ('{"instance":"a:1","gpu":"0"}|0.5'). */
static void vector(prom_result *r, int n, const char *const *items)
{
    gw_buf b;
    buf_init(&b);
    double now = (double)time(NULL);
    buf_printf(&b, "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[");
    for (int i = 0; i < n; i++) {
        const char *bar = strrchr(items[i], '|');
        buf_printf(&b, "%s{\"metric\":%.*s,\"value\":[%.3f,\"%s\"]}", i ? "," : "", (int)(bar - items[i]), items[i],
                   now, bar + 1);
    }
    buf_printf(&b, "]}}");
    assert_false(b.oom);
    prom_context ctx = {0};
    char err[300];
    assert_int_equal(prom_decode(b.data, b.len, 200, &ctx, PROM_VECTOR, r, err, sizeof err), 0);
    buf_release(&b);
}

/* The items' series into f as metric id's values times scale (M_COUNT: as gpuwatch_gpu_job_info). */
static void add(prom_fleet *f, metric_id id, double scale, int n, const char *const *items)
{
    prom_result r;
    vector(&r, n, items);
    assert_int_equal(id == M_COUNT ? prom_fleet_add_jobs(f, &r) : prom_fleet_add(f, id, scale, &r), 0);
    prom_result_free(&r);
}

static const prom_host *host(const prom_fleet *f, const char *addr)
{
    for (int i = 0; i < f->n; i++)
        if (strcmp(f->h[i].addr, addr) == 0)
            return &f->h[i];
    return NULL;
}

static double value(const prom_host *h, int g, metric_id id)
{
    double v = NAN;
    assert_true(sample_get(&h->gpus.gpus[g].s, id, &v));
    return v;
}

/* 1 to 5 hosts x 1 to 8 GPUs, native names: every GPU placed, values scaled to the catalog's units. */
static void test_native_family(void **st)
{
    (void)st;
    for (int nh = 1; nh <= 5; nh++)
        for (int ng = 1; ng <= 8; ng += 3) {
            int n = nh * ng;
            char **items = calloc((size_t)n, sizeof *items), **mem = calloc((size_t)n, sizeof *mem);
            assert_non_null(items);
            assert_non_null(mem);
            /* in reverse order: the hosts come out by address, the GPUs by index */
            for (int h = nh - 1, k = 0; h >= 0; h--)
                for (int g = ng - 1; g >= 0; g--, k++) {
                    items[k] = malloc(200);
                    mem[k] = malloc(200);
                    snprintf(items[k], 200, "{\"instance\":\"node%d:9400\",\"job\":\"gpu\",\"gpu\":\"%d\"}|%g", h, g,
                             (h * 8 + g) / 100.0);
                    snprintf(mem[k], 200, "{\"instance\":\"node%d:9400\",\"gpu\":\"%d\",\"uuid\":\"GPU-%d-%d\"}|%d", h,
                             g, h, g, (g + 1) * 1048576);
                }
            prom_fleet f;
            assert_int_equal(prom_fleet_init(&f), 0);
            const metric_def *du = catalog_get(M_UTIL_GPU), *dm = catalog_get(M_MEM_USED);
            add(&f, M_UTIL_GPU, 1 / du->prom_scale, n, (const char *const *)items);
            add(&f, M_MEM_USED, 1 / dm->prom_scale, n, (const char *const *)mem);
            prom_fleet_sort(&f);
            assert_int_equal(f.n, nh);
            for (int h = 0; h < nh; h++) {
                char addr[32];
                snprintf(addr, sizeof addr, "node%d:9400", h);
                assert_string_equal(f.h[h].addr, addr);
                assert_int_equal(f.h[h].gpus.n, ng);
                for (int g = 0; g < ng; g++) {
                    assert_int_equal(f.h[h].gpus.gpus[g].info.index, g);
                    assert_float_equal(value(&f.h[h], g, M_UTIL_GPU), h * 8 + g, 1e-9);
                    assert_float_equal(value(&f.h[h], g, M_MEM_USED), g + 1, 1e-9);
                    assert_false(sample_has(&f.h[h].gpus.gpus[g].s, M_POWER_DRAW)); /* absent, never 0 */
                }
            }
            assert_int_equal(f.no_host + f.no_gpu + f.duplicate + f.bad_value, 0);
            prom_fleet_free(&f);
            for (int k = 0; k < n; k++)
                free(items[k]), free(mem[k]);
            free(items);
            free(mem);
        }
}

/* dcgm-exporter's names and labels: the node by Hostname when there is no instance, the job from
 * pod/namespace (the replica's ordinal dropped) or hpc_job; values already in the catalog's units. */
static void test_dcgm_labels(void **st)
{
    (void)st;
    static const char *const temp[] = {
        "{\"Hostname\":\"dgx-a\",\"gpu\":\"1\",\"UUID\":\"GPU-a1\",\"pod\":\"bert-train-3\",\"namespace\":\"ml\","
        "\"container\":\"main\"}|71",
        "{\"Hostname\":\"dgx-a\",\"gpu\":\"0\",\"UUID\":\"GPU-a0\",\"hpc_job\":\"777\"}|60",
        "{\"Hostname\":\"dgx-b\",\"instance\":\"10.0.0.2:9400\",\"gpu\":\"0\",\"UUID\":\"GPU-b0\"}|55",
    };
    prom_fleet f;
    assert_int_equal(prom_fleet_init(&f), 0);
    add(&f, M_TEMP_GPU, 1, 3, temp);
    prom_fleet_sort(&f);
    assert_int_equal(f.n, 2);
    const prom_host *b = host(&f, "10.0.0.2:9400"), *a = host(&f, "dgx-a");
    assert_non_null(a);
    assert_non_null(b);
    assert_string_equal(b->name, "dgx-b"); /* the node's name beside the exporter's address */
    assert_string_equal(a->name, "");
    assert_int_equal(a->gpus.n, 2);
    assert_int_equal(a->gpus.gpus[0].info.index, 0);
    assert_string_equal(a->who[0].job, "slurm job 777");
    assert_string_equal(a->who[1].job, "k8s ml/bert-train");
    assert_string_equal(a->gpus.gpus[1].info.str[M_UUID], "GPU-a1");
    assert_float_equal(value(a, 1, M_TEMP_GPU), 71, 0);
    assert_string_equal(b->who[0].job, "");
    prom_fleet_free(&f);
}

/* gpuwatch_gpu_job_info: a Slurm job with its name and user, a pod; a GPU's first job kept. */
static void test_job_info(void **st)
{
    (void)st;
    static const char *const util[] = {"{\"instance\":\"h:1\",\"gpu\":\"0\"}|0.5",
                                       "{\"instance\":\"h:1\",\"gpu\":\"1\"}|0.2"};
    static const char *const jobs[] = {
        "{\"instance\":\"h:1\",\"gpu\":\"0\",\"slurm_job_id\":\"4242\",\"job_name\":\"llama\",\"user\":\"alice\"}|1",
        "{\"instance\":\"h:1\",\"gpu\":\"0\",\"slurm_job_id\":\"99\",\"user\":\"mallory\"}|1",
        "{\"instance\":\"h:1\",\"gpu\":\"1\",\"namespace\":\"ml-team\",\"pod\":\"bert-0\",\"user\":\"bob\"}|1",
        "{\"instance\":\"h:1\",\"gpu\":\"2\",\"user\":\"carol\"}|1",
    };
    prom_fleet f;
    assert_int_equal(prom_fleet_init(&f), 0);
    add(&f, M_UTIL_GPU, 100, 2, util);
    add(&f, M_COUNT, 1, 4, jobs);
    prom_fleet_sort(&f);
    assert_int_equal(f.n, 1);
    assert_string_equal(f.h[0].who[0].job, "slurm job 4242 llama");
    assert_string_equal(f.h[0].who[0].user, "alice");
    assert_string_equal(f.h[0].who[1].job, "k8s ml-team/bert");
    assert_string_equal(f.h[0].who[1].user, "bob");
    assert_int_equal(f.h[0].gpus.n, 3); /* a GPU with a job and no value yet: listed, its values absent */
    assert_string_equal(f.h[0].who[2].user, "carol");
    assert_false(sample_has(&f.h[0].gpus.gpus[2].s, M_UTIL_GPU));
    prom_fleet_free(&f);
}

/* Series that cannot be placed are left out and counted; repeated ones keep the first value; a GPU
 * known by its UUID alone is one GPU across metrics. */
static void test_missing_and_repeated(void **st)
{
    (void)st;
    static const char *const a[] = {
        "{\"gpu\":\"0\"}|1",                                        /* no host */
        "{\"instance\":\"h:1\"}|2",                                 /* no GPU */
        "{\"instance\":\"h:1\",\"gpu\":\"0\",\"job\":\"a\"}|3",     /* kept */
        "{\"instance\":\"h:1\",\"gpu\":\"0\",\"job\":\"b\"}|4",     /* repeated: scraped twice */
        "{\"instance\":\"h:1\",\"UUID\":\"GPU-x\"}|5",              /* no gpu label: the first index free */
        "{\"instance\":\"h:1\",\"gpu\":\"\",\"UUID\":\"GPU-y\"}|6", /* an empty gpu is none */
    };
    static const char *const b[] = {"{\"instance\":\"h:1\",\"UUID\":\"GPU-x\"}|50"};
    prom_fleet f;
    assert_int_equal(prom_fleet_init(&f), 0);
    add(&f, M_TEMP_GPU, 1, 6, a);
    add(&f, M_POWER_DRAW, 1, 1, b);
    prom_fleet_sort(&f);
    assert_int_equal(f.no_host, 1);
    assert_int_equal(f.no_gpu, 1);
    assert_int_equal(f.duplicate, 1);
    assert_int_equal(f.n, 1);
    assert_int_equal(f.h[0].gpus.n, 3);
    assert_float_equal(value(&f.h[0], 0, M_TEMP_GPU), 3, 0);
    assert_string_equal(f.h[0].gpus.gpus[1].info.str[M_UUID], "GPU-x");
    assert_int_equal(f.h[0].gpus.gpus[1].info.index, 1);
    assert_float_equal(value(&f.h[0], 1, M_TEMP_GPU), 5, 0);
    assert_float_equal(value(&f.h[0], 1, M_POWER_DRAW), 50, 0);
    assert_int_equal(f.h[0].gpus.gpus[2].info.index, 2);
    prom_fleet_free(&f);
}

/* Hostile labels and values: control characters and escapes are cleaned (prom_api), an instance
 * longer than an address is cut, gpu labels that are no index in range are none, negative, huge,
 * NaN and infinite values are no readings. */
static void test_hostile(void **st)
{
    (void)st;
    char longhost[3000];
    memset(longhost, 'h', sizeof longhost - 1);
    longhost[sizeof longhost - 1] = 0;
    char item[3200];
    snprintf(item, sizeof item, "{\"instance\":\"%s\",\"gpu\":\"0\"}|1", longhost);
    const char *const items[] = {
        "{\"instance\":\"evil\\u001b[2J\\u0007:1\",\"gpu\":\"0\",\"pod\":\"p\\u001b]0;x\\u0007-1\",\"namespace\":\"n\"}"
        "|7",
        "{\"instance\":\"h:1\",\"gpu\":\"-1\"}|1",
        "{\"instance\":\"h:1\",\"gpu\":\"64\"}|1",
        "{\"instance\":\"h:1\",\"gpu\":\"1e1\"}|1",
        "{\"instance\":\"h:1\",\"gpu\":\"007\"}|1",
        "{\"instance\":\"h:2\",\"gpu\":\"0\"}|-5",
        "{\"instance\":\"h:2\",\"gpu\":\"1\"}|1e300",
        "{\"instance\":\"h:2\",\"gpu\":\"2\"}|NaN",
        "{\"instance\":\"h:2\",\"gpu\":\"3\"}|+Inf",
        item,
    };
    prom_fleet f;
    assert_int_equal(prom_fleet_init(&f), 0);
    prom_result r;
    vector(&r, 10, items);
    assert_int_equal(r.nonfinite, 3); /* NaN, +Inf and 1e300 (past API_MAX_NUMBER): the decoder leaves them out */
    assert_int_equal(prom_fleet_add(&f, M_TEMP_GPU, 1, &r), 0);
    prom_result_free(&r);
    prom_fleet_sort(&f);
    assert_int_equal(f.no_gpu, 4);
    assert_int_equal(f.bad_value, 1); /* -5: no temperature */
    for (int i = 0; i < f.n; i++) {
        assert_true(strlen(f.h[i].addr) < FLEET_ADDR_LEN);
        for (const char *p = f.h[i].addr; *p; p++)
            assert_true((unsigned char)*p >= 0x20 && *p != 0x7f);
        for (int g = 0; g < f.h[i].gpus.n; g++)
            for (const char *p = f.h[i].who[g].job; *p; p++)
                assert_true((unsigned char)*p >= 0x20 && *p != 0x7f);
    }
    assert_int_equal(f.n, 2); /* the escapes' host and the long one; h:1 and h:2 had nothing to keep */
    prom_fleet_free(&f);
}

/* Past FLEET_MAX_HOSTS hosts and API_MAX_GPUS GPUs of one host: left out and counted. */
static void test_caps(void **st)
{
    (void)st;
    int n = FLEET_MAX_HOSTS + 10 + API_MAX_GPUS + 5;
    char **items = calloc((size_t)n, sizeof *items);
    assert_non_null(items);
    for (int k = 0; k < n; k++) {
        items[k] = malloc(120);
        if (k < FLEET_MAX_HOSTS + 10)
            snprintf(items[k], 120, "{\"instance\":\"n%03d:1\",\"gpu\":\"0\"}|1", k);
        else
            snprintf(items[k], 120, "{\"instance\":\"n000:1\",\"UUID\":\"GPU-%d\"}|1", k);
    }
    prom_fleet f;
    assert_int_equal(prom_fleet_init(&f), 0);
    add(&f, M_TEMP_GPU, 1, n, (const char *const *)items);
    assert_int_equal(f.n, FLEET_MAX_HOSTS);
    assert_int_equal(f.hosts_left_out, 10);
    assert_int_equal(host(&f, "n000:1")->gpus.n, API_MAX_GPUS);
    assert_int_equal(f.gpus_left_out, 6); /* GPU 0 by index, then 63 by UUID fill it */
    prom_fleet_free(&f);
    for (int k = 0; k < n; k++)
        free(items[k]);
    free(items);
}

/* The model's engine hosts: added as they appear, up with their GPUs, not reporting since their last
 * read when their series go, up again; the snapshot says so, and the engine's state. */
static void test_model_engine(void **st)
{
    (void)st;
    fleet_model m;
    assert_int_equal(fleet_model_init_engine(&m, "http://prom:9090"), 0);
    static const char *const items[] = {"{\"instance\":\"a:1\",\"gpu\":\"0\"}|50",
                                        "{\"instance\":\"b:1\",\"gpu\":\"0\"}|60"};
    prom_fleet f;
    assert_int_equal(prom_fleet_init(&f), 0);
    add(&f, M_TEMP_GPU, 1, 2, items);
    prom_fleet_sort(&f);
    for (int i = 0; i < f.n; i++) {
        int h = fleet_model_host(&m, f.h[i].addr);
        assert_int_equal(h, i);
        fleet_host_read_engine(&m, h, &f.h[i].gpus, &f.h[i].who, 1000000000000000ull + (uint64_t)i);
        assert_null(f.h[i].who);
    }
    assert_int_equal(fleet_model_host(&m, "b:1"), 1);
    fleet_engine_state(&m, NULL, NULL, 1000000000000000ull);
    fleet_host_silent(&m, 1, "no series in the engine (stale or gone)", 0);
    assert_int_equal(m.hosts[1].reach, HOST_SILENT);
    assert_int_equal(m.hosts[1].since_us, 1000000000000001ull);
    assert_int_equal(m.hosts[1].gpus.n, 1); /* its GPUs as last read */
    top_opts o = {0};
    o.th = (top_thresholds){.temp_warn = 80, .temp_crit = 90, .hbm_warn = 95, .hbm_crit = 105};
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    assert_non_null(out);
    fleet_snapshot(out, &m, &o);
    fclose(out);
    assert_non_null(strstr(text, "engine http://prom:9090 read "));
    assert_non_null(strstr(text, "\nb:1  NOT REPORTING since "));
    assert_non_null(strstr(text, ": no series in the engine (stale or gone) (its GPUs as last read)"));
    assert_non_null(strstr(text, "\na:1  1 GPU  up"));
    assert_non_null(strstr(text, "none from an engine"));
    free(text);
    fleet_engine_state(&m, "connection refused", NULL, 1000000000000000ull);
    out = open_memstream(&text, &len);
    fleet_snapshot(out, &m, &o);
    fclose(out);
    assert_non_null(strstr(text, "ENGINE UNREACHABLE since "));
    assert_non_null(strstr(text, ": http://prom:9090: connection refused (hosts as last read)"));
    free(text);
    prom_fleet_free(&f);
    fleet_model_free(&m);
}

static void test_match_check(void **st)
{
    (void)st;
    static const char *const good[] = {"{job=\"gpu\"}", "{cluster=~\"a|b\",job!=\"x\"}", "{}"};
    static const char *const bad[] = {"job=\"gpu\"", "{job=\"gpu\"", "", "{", "{a=\"\t\"}", "{a=\"\xc3\xa9\"}"};
    gw_opt opt = {"--match", GW_OPT_CUSTOM, .off = 0};
    const char *dst = NULL;
    char why[300];
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        assert_int_equal(fleet_match_check(&opt, good[i], &dst, why, sizeof why), 0);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(fleet_match_check(&opt, bad[i], &dst, why, sizeof why), -1);
        assert_non_null(strstr(why, "expected a selector in braces"));
    }
    char big[FLEET_MATCH_MAX + 2];
    memset(big, 'a', sizeof big - 1);
    big[0] = '{';
    big[sizeof big - 2] = '}';
    big[sizeof big - 1] = 0;
    assert_int_equal(fleet_match_check(&opt, big, &dst, why, sizeof why), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_native_family), cmocka_unit_test(test_dcgm_labels),
        cmocka_unit_test(test_job_info),      cmocka_unit_test(test_missing_and_repeated),
        cmocka_unit_test(test_hostile),       cmocka_unit_test(test_caps),
        cmocka_unit_test(test_model_engine),  cmocka_unit_test(test_match_check),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
