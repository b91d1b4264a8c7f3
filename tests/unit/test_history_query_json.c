/* test_history_query_json.c - /api/v1/query_range's JSON (history_query_range_json) against what the
 * test itself recorded (not against the query code it tests): every series of every GPU, each time
 * and value bit for bit as written and none left out, absent values absent, the labels (a model name
 * with quotes, a backslash and a tab) as given; the same answer in meaning as the cJSON tree the
 * previous code printed; and the connection kept between queries sees a file replaced behind it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "history.h"
#include "query.h"
#include "query_json.h"
#include "numcode.h"

#define T0 1764673200000000ll
#define SEC 1000000ll
#define GPUS 2
#define SECONDS 700

static char dir[64], path[128];
static uint64_t rng = 1234567;

/* What record() wrote: the oracle. Metrics in this order; present[][][i] clear where none was. */
static const metric_id recorded_ids[] = {M_TEMP_GPU, M_POWER_DRAW, M_BAR1_USED, M_GPM_SM_ACTIVE, M_UTIL_GPU};
#define NREC (sizeof recorded_ids / sizeof recorded_ids[0])
static int64_t rec_t[GPUS][SECONDS];
static double rec_v[GPUS][NREC][SECONDS];
static unsigned char rec_present[GPUS][NREC][SECONDS];

static void note(int gpu, int k, int i, double v)
{
    rec_v[gpu][k][i] = v;
    rec_present[gpu][k][i] = 1;
}

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/gw-qjson-test-XXXXXX");
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/h.db", dir);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* SECONDS of samples with jittered times: whole numbers, milliwatts, MiB from bytes, noisy doubles. */
static void record(double temp_offset)
{
    unlink(path);
    history_config cfg;
    history_config_defaults(&cfg);
    cfg.path = path;
    cfg.no_thread = 1;
    char err[256];
    history *h = history_open(&cfg, err, sizeof err);
    assert_non_null(h);
    memset(rec_present, 0, sizeof rec_present);
    for (int gpu = 0; gpu < GPUS; gpu++) {
        gpu_info info = {.index = gpu};
        snprintf(info.str[M_NAME], GW_STR_LEN, "NVIDIA \"H100\" \\ %d\t", gpu);
        snprintf(info.str[M_UUID], GW_STR_LEN, "GPU-%04d", gpu);
        mset_add(&info.str_present, M_NAME);
        mset_add(&info.str_present, M_UUID);
        for (int i = 0; i < SECONDS; i++) {
            gpu_sample s = {.t_us = (uint64_t)(T0 + i * SEC + (int64_t)(next() % 1000000))};
            rec_t[gpu][i] = (int64_t)s.t_us;
            note(gpu, 0, i, temp_offset + 40 + (double)(next() % 30));
            note(gpu, 1, i, (double)(300000 + next() % 400000) / 1000);
            note(gpu, 2, i, (double)(next() % 4000000000ull) / 1048576);
            note(gpu, 3, i, 50 + (double)(next() >> 11) / 9007199254740992.0 * 50);
            if (i % 7)
                note(gpu, 4, i, i % 3 ? 1e-5 * (double)(next() % 1000) : 1e20);
            for (size_t k = 0; k < NREC; k++)
                if (rec_present[gpu][k][i])
                    sample_set(&s, recorded_ids[k], rec_v[gpu][k][i]);
            history_record_sample(h, gpu, i ? NULL : &info, &s);
        }
    }
    history_close(h);
}

/* The previous hq_result_json (cJSON), as the reference. */
static char *reference_json(const hq_request *rq, const hq_result *r)
{
    static const char *aggs[] = {"avg", "min", "max", "last"};
    cJSON *root = cJSON_CreateObject(), *data = cJSON_AddObjectToObject(root, "data");
    cJSON_AddStringToObject(root, "status", "success");
    cJSON_AddStringToObject(data, "resultType", "matrix");
    cJSON_AddStringToObject(data, "source", r->used_rollups ? "rollup" : "raw");
    cJSON_AddNumberToObject(data, "step", (double)rq->step_us / 1e6);
    cJSON_AddStringToObject(data, "agg", aggs[rq->agg]);
    cJSON *result = cJSON_AddArrayToObject(data, "result");
    char num[40];
    for (size_t i = 0; i < r->n; i++) {
        const hq_series *s = &r->s[i];
        const metric_def *d = catalog_get(s->metric);
        cJSON *item = cJSON_CreateObject(), *labels = cJSON_AddObjectToObject(item, "metric");
        cJSON_AddStringToObject(labels, "__name__", d->field);
        snprintf(num, sizeof num, "%d", s->gpu);
        cJSON_AddStringToObject(labels, "gpu", num);
        if (d->unit)
            cJSON_AddStringToObject(labels, "unit", d->unit);
        char name[GW_STR_LEN], uuid[16];
        snprintf(name, sizeof name, "NVIDIA \"H100\" \\ %d\t", s->gpu);
        snprintf(uuid, sizeof uuid, "GPU-%04d", s->gpu);
        cJSON_AddStringToObject(labels, "UUID", uuid);
        cJSON_AddStringToObject(labels, "modelName", name);
        cJSON *values = cJSON_AddArrayToObject(item, "values");
        for (size_t k = 0; k < s->n; k++) {
            cJSON *pair = cJSON_CreateArray();
            cJSON_AddItemToArray(pair, cJSON_CreateNumber((double)s->t[k] / 1e6));
            for (int prec = 15; prec <= 17; prec++) {
                snprintf(num, sizeof num, "%.*g", prec, s->v[k]);
                if (strtod(num, NULL) == s->v[k])
                    break;
            }
            cJSON_AddItemToArray(pair, cJSON_CreateString(num));
            cJSON_AddItemToArray(values, pair);
        }
        cJSON_AddItemToArray(result, item);
    }
    char *text = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    return text;
}

/* Every series of the answer against what record() wrote: its labels, and each recorded point of its
 * GPU and metric, in order, time and value bit for bit (times in seconds as the API gives them);
 * every recorded series answered. */
static void check_recorded(const cJSON *got, const char *metrics)
{
    const cJSON *result = cJSON_GetObjectItem(cJSON_GetObjectItem(got, "data"), "result");
    int want_series = 0;
    for (size_t k = 0; k < NREC; k++) {
        char name[64];
        snprintf(name, sizeof name, ",%s,", catalog_get(recorded_ids[k])->field);
        char list[300];
        snprintf(list, sizeof list, ",%s,", metrics);
        if (!strstr(list, name))
            continue;
        for (int gpu = 0; gpu < GPUS; gpu++) {
            const cJSON *series = NULL;
            for (const cJSON *it = result->child; it && !series; it = it->next) {
                const cJSON *labels = cJSON_GetObjectItem(it, "metric");
                const char *n = cJSON_GetStringValue(cJSON_GetObjectItem(labels, "__name__"));
                const char *g = cJSON_GetStringValue(cJSON_GetObjectItem(labels, "gpu"));
                if (n && g && strcmp(n, catalog_get(recorded_ids[k])->field) == 0 && atoi(g) == gpu)
                    series = it;
            }
            if (!series)
                fail_msg("no series for %s of GPU %d", catalog_get(recorded_ids[k])->field, gpu);
            want_series++;
            const cJSON *labels = cJSON_GetObjectItem(series, "metric");
            char model[GW_STR_LEN], uuid[16];
            snprintf(model, sizeof model, "NVIDIA \"H100\" \\ %d\t", gpu);
            snprintf(uuid, sizeof uuid, "GPU-%04d", gpu);
            assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(labels, "modelName")), model);
            assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(labels, "UUID")), uuid);
            const cJSON *pair = cJSON_GetObjectItem(series, "values")->child;
            for (int i = 0; i < SECONDS; i++) {
                if (!rec_present[gpu][k][i])
                    continue;
                if (!pair)
                    fail_msg("%s GPU %d: the answer ends before the point at %d s", catalog_get(recorded_ids[k])->field,
                             gpu, i);
                double t = cJSON_GetArrayItem(pair, 0)->valuedouble;
                double v = strtod(cJSON_GetArrayItem(pair, 1)->valuestring, NULL);
                if (num_bits(t) != num_bits((double)rec_t[gpu][i] / 1e6) || num_bits(v) != num_bits(rec_v[gpu][k][i]))
                    fail_msg("%s GPU %d point %d: %.17g %.17g, recorded %.17g %.17g",
                             catalog_get(recorded_ids[k])->field, gpu, i, t, v, (double)rec_t[gpu][i] / 1e6,
                             rec_v[gpu][k][i]);
                pair = pair->next;
            }
            if (pair)
                fail_msg("%s GPU %d: points the test never recorded", catalog_get(recorded_ids[k])->field, gpu);
        }
    }
    assert_int_equal(cJSON_GetArraySize(result), want_series);
}

/* Every point of the answer against hq_run's: times and values read back bit for bit. */
static void check_exact(const cJSON *got, const hq_result *r)
{
    const cJSON *result = cJSON_GetObjectItem(cJSON_GetObjectItem(got, "data"), "result");
    assert_int_equal(cJSON_GetArraySize(result), (int)r->n);
    for (size_t i = 0; i < r->n; i++) {
        const cJSON *values = cJSON_GetObjectItem(cJSON_GetArrayItem(result, (int)i), "values");
        assert_int_equal(cJSON_GetArraySize(values), (int)r->s[i].n);
        size_t k = 0;
        for (const cJSON *pair = values->child; pair; pair = pair->next, k++) {
            double t = cJSON_GetArrayItem(pair, 0)->valuedouble, want_t = (double)r->s[i].t[k] / 1e6;
            double v = strtod(cJSON_GetArrayItem(pair, 1)->valuestring, NULL);
            if (num_bits(t) != num_bits(want_t) || num_bits(v) != num_bits(r->s[i].v[k]))
                fail_msg("series %zu point %zu: %.17g %.17g, stored %.17g %.17g", i, k, t, v, want_t, r->s[i].v[k]);
        }
    }
}

static void query_and_compare(const char *metrics, int expect_temp_offset)
{
    char from[32], to[32];
    snprintf(from, sizeof from, "%lld", T0 / SEC);
    snprintf(to, sizeof to, "%lld", T0 / SEC + SECONDS + 5);
    int status = 0;
    char *text = history_query_range_json(path, metrics, NULL, NULL, from, to, NULL, NULL, &status);
    assert_int_equal(status, 200);
    cJSON *got = cJSON_Parse(text);
    assert_non_null(got);

    metric_id ids[8];
    int n = 0;
    char list[256];
    snprintf(list, sizeof list, "%s", metrics);
    for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
        ids[n++] = catalog_find(tok)->id;
    hq_request rq = {.metrics = ids, .nmetrics = n, .from_us = T0, .to_us = T0 + (SECONDS + 5) * SEC};
    char err[256];
    store *st = store_open(path, 1, err, sizeof err);
    assert_non_null(st);
    hq_result r;
    assert_int_equal(hq_run(st, &rq, &r, err, sizeof err), 0);
    assert_true(r.n > 0);
    assert_true(r.s[0].v[0] >= 40 + expect_temp_offset && r.s[0].v[0] < 70 + expect_temp_offset);
    check_recorded(got, metrics);
    char *ref_text = reference_json(&rq, &r);
    cJSON *ref = cJSON_Parse(ref_text);
    if (!cJSON_Compare(ref, got, 1))
        fail_msg("the answer differs from the previous one's:\n%.600s\n%.600s", text, ref_text);
    check_exact(got, &r);
    hq_free(&r);
    store_close(st);
    cJSON_Delete(got);
    cJSON_Delete(ref);
    free(text);
    free(ref_text);
}

static void test_same_meaning(void **st)
{
    (void)st;
    record(0);
    const char *metrics = "temperature.gpu,power.draw,bar1.used,gpm.sm_active,utilization.gpu";
    query_and_compare(metrics, 0);
    query_and_compare(metrics, 0); /* through the kept connection */
}

static void test_file_replaced(void **st)
{
    (void)st;
    record(0);
    query_and_compare("temperature.gpu", 0);
    record(1000); /* a new file at the same path: the kept connection must not answer from the old one */
    query_and_compare("temperature.gpu", 1000);
}

static void test_pretty_and_errors(void **st)
{
    (void)st;
    record(0);
    store *s = store_open(path, 1, NULL, 0);
    assert_non_null(s);
    metric_id m = M_POWER_DRAW;
    unsigned char one[HQ_MAX_GPUS] = {0, 1};
    hq_request rq = {.metrics = &m, .nmetrics = 1, .gpus = one, .from_us = T0, .to_us = T0 + 60 * SEC};
    hq_result r;
    char err[256];
    assert_int_equal(hq_run(s, &rq, &r, err, sizeof err), 0);
    char *pretty = hq_result_json(s, &rq, &r, 1), *flat = hq_result_json(s, &rq, &r, 0);
    cJSON *a = cJSON_Parse(pretty), *b = cJSON_Parse(flat);
    assert_true(a && b && cJSON_Compare(a, b, 1));
    assert_non_null(strchr(pretty, '\n'));
    cJSON_Delete(a);
    cJSON_Delete(b);
    free(pretty);
    free(flat);
    hq_free(&r);
    store_close(s);
    int status = 0;
    char *e = history_query_range_json(path, "no.such.metric", NULL, NULL, NULL, NULL, NULL, NULL, &status);
    assert_int_equal(status, 400);
    assert_non_null(strstr(e, "\"status\":\"error\""));
    free(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_same_meaning, setup, teardown),
        cmocka_unit_test_setup_teardown(test_file_replaced, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pretty_and_errors, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
