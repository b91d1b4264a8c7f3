/* test_client_api.c - the client layer's decoders of an agent's /api/v1 answers (agent_api.h):
 * round trips against the agent's own encoders (a real agent on gpusim answering over HTTP for
 * /gpus, /processes and /samples; the diagnosis report's JSON; the alert engine's JSON), and hostile
 * answers: times far from our clock, huge counts, GPU indexes out of range, escape sequences and bad
 * UTF-8, NaN and infinities, deep nesting, oversized answers. Then what stays possible after the
 * checks (a time an hour ahead) fed to top's chart history. */
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
#include "agent.h"
#include "agent_client.h"
#include "alerts.h"
#include "buf.h"
#include "diag.h"
#include "lazy_curl.h"
#include "http_server.h"
#include "nvml_backend.h"
#include "synth_source.h"
#include "text.h"
#include "top_model.h"
#include "util.h"

static char err[512];

static api_context ctx_now(int ngpus)
{
    api_context c = {.now_us = gw_now_us(), .ngpus = ngpus};
    c.detector_id = diag_detector_id;
    c.ndetectors = diag_detector_count();
    return c;
}

/* ---- round trips ---- */

static cJSON *raw_of(const gw_buf *b)
{
    cJSON *j = cJSON_ParseWithLength(b->data, b->len);
    assert_non_null(j);
    return j;
}

static void check_gpus(const gw_buf *body, const api_gpus *g)
{
    cJSON *raw = raw_of(body);
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(raw, "gpus");
    assert_int_equal(g->n, cJSON_GetArraySize(arr));
    assert_int_equal(g->left_out, 0);
    assert_string_equal(g->hostname, cJSON_GetObjectItemCaseSensitive(raw, "hostname")->valuestring);
    assert_string_equal(g->driver_version, cJSON_GetObjectItemCaseSensitive(raw, "driver_version")->valuestring);
    assert_true(g->simulated);
    assert_true(g->interval_s == cJSON_GetObjectItemCaseSensitive(raw, "interval_seconds")->valuedouble);
    int i = 0, metrics = 0;
    const cJSON *o;
    cJSON_ArrayForEach(o, arr)
    {
        const api_gpu *d = &g->gpus[i++];
        assert_int_equal(d->info.index, cJSON_GetObjectItemCaseSensitive(o, "index")->valueint);
        for (int id = 0; id < M_STR_END; id++) {
            const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, catalog_get((metric_id)id)->field);
            assert_int_equal(cJSON_IsString(v), mset_has(&d->info.str_present, (metric_id)id));
            if (cJSON_IsString(v))
                assert_string_equal(d->info.str[id], v->valuestring);
        }
        assert_int_equal(d->lost, cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "lost")));
        double t = cJSON_GetObjectItemCaseSensitive(o, "timestamp")->valuedouble;
        assert_true(d->s.t_us == (uint64_t)llround(t * 1e6));
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, "metrics");
        for (int id = M_STR_END; id < M_COUNT; id++) {
            const metric_def *def = catalog_get((metric_id)id);
            if (def->flags & MF_BIT)
                continue;
            const cJSON *v = cJSON_GetObjectItemCaseSensitive(m, def->field);
            assert_int_equal(!cJSON_IsNull(v), sample_has(&d->s, (metric_id)id));
            if (cJSON_IsNumber(v))
                assert_true(d->s.v[id] == v->valuedouble);
            else if (cJSON_IsBool(v))
                assert_true(d->s.v[id] == (cJSON_IsTrue(v) ? 1 : 0));
            metrics += !cJSON_IsNull(v);
        }
    }
    assert_true(metrics > 20 * g->n); /* the scenario's GPUs have many metrics: they all came through */
    cJSON_Delete(raw);
}

static void check_procs(const gw_buf *body, const api_procs *p)
{
    cJSON *raw = raw_of(body);
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(raw, "processes");
    assert_true(p->n >= 2);
    assert_int_equal(p->n, cJSON_GetArraySize(arr));
    int i = 0;
    const cJSON *o;
    cJSON_ArrayForEach(o, arr)
    {
        const gpu_proc *d = &p->p[i++];
        assert_int_equal(d->gpu, cJSON_GetObjectItemCaseSensitive(o, "gpu")->valueint);
        assert_int_equal(d->pid, (unsigned)cJSON_GetObjectItemCaseSensitive(o, "pid")->valuedouble);
        assert_string_equal(d->name, cJSON_GetObjectItemCaseSensitive(o, "name")->valuestring);
        assert_string_equal(d->user, cJSON_GetObjectItemCaseSensitive(o, "user")->valuestring);
        assert_string_equal(d->container, cJSON_GetObjectItemCaseSensitive(o, "container")->valuestring);
        assert_string_equal(d->cmdline, cJSON_GetObjectItemCaseSensitive(o, "command")->valuestring);
        const cJSON *mem = cJSON_GetObjectItemCaseSensitive(o, "memory_mib");
        assert_int_equal(d->has_mem, cJSON_IsNumber(mem));
        if (d->has_mem)
            assert_true(d->mem_mib == mem->valuedouble);
        const cJSON *sm = cJSON_GetObjectItemCaseSensitive(o, "sm_util");
        assert_int_equal(d->has_sm, cJSON_IsNumber(sm));
        if (d->has_sm)
            assert_true(d->sm_util == sm->valuedouble);
        assert_true(d->type & PROC_COMPUTE);
    }
    cJSON_Delete(raw);
}

static void check_samples(const gw_buf *body, const api_samples *s)
{
    cJSON *raw = raw_of(body);
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(raw, "series");
    assert_int_equal(s->n, cJSON_GetArraySize(arr));
    assert_int_equal(s->left_out, 0);
    int k = 0;
    const cJSON *o;
    cJSON_ArrayForEach(o, arr)
    {
        const api_series *d = &s->s[k++];
        const cJSON *pts = cJSON_GetObjectItemCaseSensitive(o, "samples");
        assert_int_equal(d->gpu, cJSON_GetObjectItemCaseSensitive(o, "gpu")->valueint);
        assert_int_equal(d->n, cJSON_GetArraySize(pts));
        assert_true(d->n >= 2);
        int i = 0;
        const cJSON *pt;
        cJSON_ArrayForEach(pt, pts)
        {
            assert_true(d->p[i].t_us == (uint64_t)llround(cJSON_GetArrayItem(pt, 0)->valuedouble * 1e6));
            assert_true(d->p[i].v == cJSON_GetArrayItem(pt, 1)->valuedouble);
            i++;
        }
    }
    cJSON_Delete(raw);
}

/* The agent's metrics in reverse order (another encoder's): decoded to the same samples. */
static void check_any_order(const gw_buf *body, const api_context *ctx, const api_gpus *in_order)
{
    cJSON *root = cJSON_ParseWithLength(body->data, body->len);
    const cJSON *o;
    cJSON_ArrayForEach(o, cJSON_GetObjectItemCaseSensitive(root, "gpus"))
    {
        cJSON *m = cJSON_GetObjectItemCaseSensitive(o, "metrics");
        cJSON *rev = cJSON_CreateObject();
        while (m->child) {
            cJSON *last = m->child;
            while (last->next)
                last = last->next;
            cJSON_AddItemToObject(rev, last->string, cJSON_DetachItemViaPointer(m, last));
        }
        cJSON_ReplaceItemInObjectCaseSensitive((cJSON *)o, "metrics", rev);
    }
    char *text = cJSON_PrintUnformatted(root);
    api_gpus g;
    assert_int_equal(api_decode_gpus(text, strlen(text), ctx, &g, err, sizeof err), 0);
    assert_int_equal(g.n, in_order->n);
    int values = 0;
    for (int i = 0; i < g.n; i++)
        for (int id = M_STR_END; id < M_COUNT; id++) {
            double a, b;
            int has_a = sample_get(&g.gpus[i].s, (metric_id)id, &a),
                has_b = sample_get(&in_order->gpus[i].s, (metric_id)id, &b);
            assert_int_equal(has_a, has_b);
            if (has_a)
                assert_true(a == b);
            values += has_a;
        }
    assert_true(values > 20);
    api_gpus_free(&g);
    free(text);
    cJSON_Delete(root);
}

static void test_round_trip_agent(void **st)
{
    (void)st;
    const char *lib = getenv("GPUSIM_LIB");
    if (!lib || access(lib, R_OK) != 0) {
        skip();
        return;
    }
    setenv("GPUWATCH_NVML_LIB", lib, 1);
    setenv("GPUSIM_SCENARIO", GW_SOURCE_DIR "/tests/scenarios/agent_two.yaml", 1);
    gw_config *cfg = malloc(sizeof *cfg);
    config_init(cfg);
    assert_int_equal(config_load_string(cfg, "listen: 127.0.0.1:0\ninterval: 100ms\n", "t.yaml"), 0);
    agent_cli cli = {0};
    agent *a = calloc(1, sizeof *a);
    assert_int_equal(agent_init(a, cfg, &cli), 0);
    assert_int_equal(agent_start(a, err, sizeof err), 0);
    char host[64];
    snprintf(host, sizeof host, "127.0.0.1:%d", http_port(a->http));
    http_client_opts ho = {.host = host, .user_agent = "test"};
    http_client *hc = http_client_open(&ho, err, sizeof err);
    agent_client *ac = agent_client_open(&ho, err, sizeof err);
    assert_non_null(hc);
    assert_non_null(ac);
    gw_buf body;
    buf_init(&body);
    api_context ctx = ctx_now(2);
    /* wait for a few samples in the ring (generous: a loaded machine) */
    api_samples s = {0};
    for (int i = 0; i < 1500; i++) {
        assert_int_equal(http_client_get(hc, "/api/v1/samples?metric=temperature.gpu&since=1m", &body, err, sizeof err),
                         200);
        ctx.now_us = gw_now_us();
        assert_int_equal(api_decode_samples(body.data, body.len, &ctx, API_MAX_POINTS, &s, err, sizeof err), 0);
        int enough = s.n == 2 && s.s[0].n >= 3 && s.s[1].n >= 3;
        if (enough)
            break;
        api_samples_free(&s);
        usleep(20000);
    }
    check_samples(&body, &s);
    api_samples_free(&s);

    api_gpus g;
    assert_int_equal(http_client_get(hc, "/api/v1/gpus", &body, err, sizeof err), 200);
    assert_int_equal(api_decode_gpus(body.data, body.len, &ctx, &g, err, sizeof err), 0);
    check_gpus(&body, &g);
    check_any_order(&body, &ctx, &g);
    api_gpus_free(&g);

    api_procs p;
    assert_int_equal(http_client_get(hc, "/api/v1/processes", &body, err, sizeof err), 200);
    assert_int_equal(api_decode_processes(body.data, body.len, &ctx, &p, err, sizeof err), 0);
    check_procs(&body, &p);
    api_procs_free(&p);

    /* the same through the client object */
    assert_int_equal(agent_client_gpus(ac, &g, err, sizeof err), 0);
    assert_int_equal(g.n, 2);
    assert_string_equal(g.gpus[1].info.str[M_NAME], "NVIDIA H100 80GB HBM3");
    api_gpus_free(&g);
    /* ?metrics=: those metrics alone (the identity as before); a name the catalog lacks is a 400 */
    static const metric_id few[] = {M_TEMP_GPU, M_UTIL_GPU};
    assert_int_equal(agent_client_want_metrics(ac, few, 2), 0);
    assert_int_equal(agent_client_gpus(ac, &g, err, sizeof err), 0);
    assert_int_equal(g.n, 2);
    assert_string_equal(g.gpus[1].info.str[M_NAME], "NVIDIA H100 80GB HBM3");
    for (int i = 0; i < g.n; i++)
        for (int id = M_STR_END; id < M_COUNT; id++) {
            double v;
            assert_int_equal(sample_get(&g.gpus[i].s, (metric_id)id, &v), id == M_TEMP_GPU || id == M_UTIL_GPU);
        }
    api_gpus_free(&g);
    static const char *const bad[] = {"nope", "temperature.gpu,", "name", ",utilization.gpu"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char path[128];
        snprintf(path, sizeof path, "/api/v1/gpus?metrics=%s", bad[i]);
        assert_int_equal(http_client_get(hc, path, &body, err, sizeof err), 400);
        assert_non_null(strstr(body.data, "unknown metric"));
    }
    assert_int_equal(agent_client_samples(ac, M_TEMP_GPU, 60, 2, &s, err, sizeof err), 0);
    assert_int_equal(s.n, 2);
    assert_int_equal(s.s[0].n, 2); /* the newest two */
    assert_true(s.s[0].p[0].t_us < s.s[0].p[1].t_us);
    assert_true(s.s[0].p[1].v == 61);
    api_samples_free(&s);
    diag_report r;
    diag_report_init(&r);
    assert_int_equal(agent_client_findings(ac, &r, err, sizeof err), AGENT_NOT_SERVED); /* no diagnosis plugin */
    diag_report_free(&r);

    buf_release(&body);
    http_client_close(hc);
    agent_client_close(ac);
    agent_stop(a);
    free(a);
}

static void test_round_trip_findings(void **st)
{
    (void)st;
    uint64_t now = gw_now_us() / 1000 * 1000; /* the encoder writes milliseconds */
    diag_report r;
    diag_report_init(&r);
    r.from_us = now - 1800000000ull;
    r.to_us = now;
    int nf = diag_detector_count() < 5 ? diag_detector_count() : 5;
    for (int k = 0; k < nf; k++) {
        diag_finding *f = diag_report_add(&r, diag_detector_id(k), (diag_severity)(k % 3));
        assert_non_null(f);
        for (int gpu = 0; gpu <= k; gpu++)
            diag_finding_gpu(f, gpu);
        diag_finding_pid(f, 4242u + (unsigned)k);
        f->from_us = now - (uint64_t)(k + 1) * 60000000ull;
        f->to_us = now - (uint64_t)k * 1000000ull;
        diag_finding_summary(f,
                             "GPU %d at 88 \xc2\xb0"
                             "C for %d s",
                             k, 60 * (k + 1));
        diag_finding_num(f, "peak_c", 88.5 + k, "");
        diag_finding_num(f, "share", 0.25, "");
        diag_finding_str(f, "reason", "hw thermal slowdown %d", k);
        diag_finding_advice(f, "check the airflow of GPU %d", k);
        diag_finding_advice(f, "nvidia-smi -q -d PERFORMANCE");
        diag_chart *ch = &f->chart;
        snprintf(ch->metric, sizeof ch->metric, "temperature.gpu");
        snprintf(ch->unit, sizeof ch->unit, "C");
        ch->gpu = k;
        ch->from_us = f->from_us;
        ch->to_us = f->to_us;
        ch->n = DIAG_CHART_POINTS;
        for (int i = 0; i < ch->n; i++)
            ch->v[i] = (float)(40 + i * 0.5 + k);
    }
    char *json = diag_report_json(&r, 0);
    assert_non_null(json);
    api_context ctx = ctx_now(8);
    diag_report d;
    diag_report_init(&d);
    assert_int_equal(api_decode_findings(json, strlen(json), &ctx, &d, err, sizeof err), 0);
    assert_int_equal(d.n, r.n);
    assert_true(d.from_us == r.from_us && d.to_us == r.to_us);
    for (int k = 0; k < r.n; k++) {
        const diag_finding *a = &r.f[k], *b = &d.f[k];
        assert_ptr_equal(a->detector, b->detector); /* the table's own string */
        assert_int_equal(a->severity, b->severity);
        assert_int_equal(a->n_gpus, b->n_gpus);
        assert_memory_equal(a->gpus, b->gpus, sizeof a->gpus[0] * (size_t)a->n_gpus);
        assert_int_equal(a->n_pids, b->n_pids);
        assert_int_equal(a->pids[0], b->pids[0]);
        assert_true(a->from_us == b->from_us && a->to_us == b->to_us);
        assert_string_equal(a->summary, b->summary);
        assert_int_equal(a->n_evidence, b->n_evidence);
        for (int e = 0; e < a->n_evidence; e++) {
            const diag_evidence *x = &a->evidence[e], *y = diag_finding_get(b, x->key);
            assert_non_null(y);
            assert_int_equal(x->is_str, y->is_str);
            if (x->is_str)
                assert_string_equal(x->str, y->str);
            else
                assert_true(x->num == y->num);
        }
        assert_int_equal(a->n_advice, b->n_advice);
        for (int i = 0; i < a->n_advice; i++)
            assert_string_equal(a->advice[i], b->advice[i]);
        assert_string_equal(a->chart.metric, b->chart.metric);
        assert_string_equal(a->chart.unit, b->chart.unit);
        assert_int_equal(a->chart.gpu, b->chart.gpu);
        assert_int_equal(a->chart.n, b->chart.n);
        assert_memory_equal(a->chart.v, b->chart.v, sizeof a->chart.v[0] * (size_t)a->chart.n);
    }
    free(json);
    diag_report_free(&r);
    diag_report_free(&d);
}

static void test_round_trip_alerts(void **st)
{
    (void)st;
    alert_engine *e = alert_engine_new();
    const char *rules = "groups:\n- name: g\n  interval: 10s\n  rules:\n"
                        "  - alert: Hot\n    condition: {metric: temperature.gpu, op: \">\", threshold: 85}\n"
                        "    labels: {severity: critical}\n"
                        "    annotations: {summary: \"GPU {{ $labels.gpu }} at {{ $value }} \xc2\xb0"
                        "C\"}\n"
                        "  - alert: Warm\n    condition: {metric: temperature.gpu, op: \">\", threshold: 80}\n"
                        "    for: 10m\n    labels: {severity: warning}\n";
    assert_int_equal(alert_engine_load_text(e, "t.yaml", rules, stderr), 0);
    int64_t step = 10 * 1000000LL, start = (int64_t)(gw_now_us() / 1000 * 1000) - 6 * step;
    synth y;
    assert_int_equal(synth_init(&y, 2, start, step), 0);
    for (int k = 0; k <= 6; k++) {
        synth_set(&y, 0, k, M_TEMP_GPU, 90);
        synth_set(&y, 1, k, M_TEMP_GPU, k < 3 ? 70 : 82);
    }
    sample_source src;
    synth_source(&y, &src);
    for (int k = 0; k <= 6; k++)
        alert_engine_eval(e, &src, start + k * step, 0);
    char *json = alert_engine_json(e);
    assert_non_null(json);
    api_context ctx = ctx_now(2);
    api_alerts a;
    assert_int_equal(api_decode_alerts(json, strlen(json), &ctx, &a, err, sizeof err), 0);
    /* Hot firing on GPU 0 since the start; Warm pending on GPU 0 since the start and GPU 1 since step 3 */
    int hot = 0, warm = 0;
    for (int i = 0; i < a.n; i++) {
        if (strcmp(a.a[i].name, "Hot") == 0) {
            hot++;
            assert_true(a.a[i].firing);
            assert_string_equal(a.a[i].severity, "critical");
            assert_string_equal(a.a[i].summary, "GPU 0 at 90 \xc2\xb0"
                                                "C");
            assert_true(a.a[i].active_at_us == start);
        } else {
            assert_string_equal(a.a[i].name, "Warm");
            warm++;
            assert_false(a.a[i].firing);
            assert_string_equal(a.a[i].severity, "warning");
            assert_true(a.a[i].active_at_us == start || a.a[i].active_at_us == start + 3 * step);
        }
    }
    assert_int_equal(hot, 1);
    assert_int_equal(warm, 2);
    assert_int_equal(a.left_out, 0);
    api_alerts_free(&a);
    free(json);
    alert_engine_free(e);
    synth_free(&y);
}

/* ---- hostile answers ---- */

/* The body of a /api/v1/gpus answer of n GPUs, each with the given JSON for its index (NULL: its
 * position) and timestamp. */
static char *gpus_answer(int n, const char *index, const char *timestamp, const char *name)
{
    gw_buf b;
    buf_init(&b);
    buf_printf(&b, "{\"hostname\":\"%s\",\"driver_version\":\"590\",\"interval_seconds\":1,\"gpus\":[", name);
    for (int i = 0; i < n; i++) {
        buf_printf(&b, "%s{\"index\":", i ? "," : "");
        if (index)
            buf_puts(&b, index);
        else
            buf_printf(&b, "%d", i);
        buf_printf(&b,
                   ",\"name\":\"%s\",\"uuid\":\"GPU-%d\",\"lost\":false,\"timestamp\":%s,"
                   "\"metrics\":{\"temperature.gpu\":61,\"utilization.gpu\":1e400,\"power.draw\":-1e400,"
                   "\"memory.used\":1e300}}",
                   name, i, timestamp);
    }
    buf_puts(&b, "]}");
    assert_false(b.oom);
    return b.data;
}

static void test_times_far_from_now(void **st)
{
    (void)st;
    api_context ctx = ctx_now(0);
    double now = (double)ctx.now_us / 1e6;
    char t[64];
    /* out of the window: the sample has no time, the findings and alerts none either */
    const double bad[] = {now + 2 * 3600, now + 1e6, 9.2e12, 1e15, 1e300, 0, -5, now - 400 * 86400.0, INFINITY};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(t, sizeof t, "%.17g", bad[i]);
        if (isinf(bad[i]))
            snprintf(t, sizeof t, "1e400");
        char *body = gpus_answer(2, NULL, t, "h100");
        api_gpus g;
        assert_int_equal(api_decode_gpus(body, strlen(body), &ctx, &g, err, sizeof err), 0);
        assert_int_equal(g.n, 2);
        assert_true(g.gpus[0].s.t_us == 0 && g.gpus[1].s.t_us == 0);
        api_gpus_free(&g);
        free(body);
        char sm[512];
        snprintf(sm, sizeof sm, "{\"series\":[{\"gpu\":0,\"samples\":[[%s,1],[%.3f,2]]}]}", t, now - 1);
        api_samples s;
        assert_int_equal(api_decode_samples(sm, strlen(sm), &ctx, 100, &s, err, sizeof err), 0);
        assert_int_equal(s.n, 1);
        assert_int_equal(s.s[0].n, 1);
        assert_true(s.s[0].p[0].v == 2);
        api_samples_free(&s);
    }
    /* within it: kept to the microsecond */
    const double good[] = {now, now - 3600, now + 1800, now - 300 * 86400.0};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        snprintf(t, sizeof t, "%.6f", good[i]);
        char *body = gpus_answer(1, NULL, t, "h100");
        api_gpus g;
        assert_int_equal(api_decode_gpus(body, strlen(body), &ctx, &g, err, sizeof err), 0);
        assert_true(g.gpus[0].s.t_us == (uint64_t)llround(good[i] * 1e6));
        api_gpus_free(&g);
        free(body);
    }
    /* RFC 3339 times of findings and alerts */
    const char *bad_dates[] = {
        "9999-12-31T00:00:00Z", "2400-01-01T00:00:00Z", "1970-01-01T00:00:00Z", "5m", "now", "1764673200", "",
        "2025-13-45T99:99:99Z"};
    for (size_t i = 0; i < sizeof bad_dates / sizeof bad_dates[0]; i++) {
        char body[1024];
        snprintf(body, sizeof body,
                 "{\"from\":\"%s\",\"to\":\"%s\",\"findings\":[{\"detector\":\"thermal\",\"severity\":\"warning\","
                 "\"gpus\":[0],\"from\":\"%s\",\"to\":\"%s\",\"summary\":\"hot\"}]}",
                 bad_dates[i], bad_dates[i], bad_dates[i], bad_dates[i]);
        diag_report r;
        diag_report_init(&r);
        assert_int_equal(api_decode_findings(body, strlen(body), &ctx, &r, err, sizeof err), 0);
        assert_int_equal(r.n, 1);
        assert_true(r.from_us == 0 && r.f[0].from_us == 0 && r.f[0].to_us == 0);
        diag_report_free(&r);
        snprintf(
            body, sizeof body,
            "{\"data\":{\"alerts\":[{\"labels\":{\"alertname\":\"Hot\"},\"state\":\"firing\",\"activeAt\":\"%s\"}]}}",
            bad_dates[i]);
        api_alerts a;
        assert_int_equal(api_decode_alerts(body, strlen(body), &ctx, &a, err, sizeof err), 0);
        assert_int_equal(a.n, 1);
        assert_true(a.a[0].active_at_us == 0);
        api_alerts_free(&a);
    }
}

static void test_huge_counts(void **st)
{
    (void)st;
    api_context ctx = ctx_now(2);
    gw_buf b;
    buf_init(&b);
    /* 100 000 findings: at most API_MAX_FINDINGS kept, memory bounded by that */
    buf_puts(&b, "{\"findings\":[");
    for (int i = 0; i < 100000; i++)
        buf_printf(&b, "%s{\"detector\":\"thermal\",\"gpus\":[%d],\"summary\":\"s\"}", i ? "," : "", i % 2);
    buf_puts(&b, "]}");
    diag_report r;
    diag_report_init(&r);
    assert_int_equal(api_decode_findings(b.data, b.len, &ctx, &r, err, sizeof err), 0);
    assert_int_equal(r.n, API_MAX_FINDINGS);
    assert_true(r.cap <= API_MAX_FINDINGS);
    diag_report_free(&r);
    /* 10 000 processes */
    buf_clear(&b);
    buf_puts(&b, "{\"processes\":[");
    for (int i = 0; i < 10000; i++)
        buf_printf(&b, "%s{\"gpu\":%d,\"pid\":%d,\"name\":\"p\"}", i ? "," : "", i % 2, 1000 + i);
    buf_puts(&b, "]}");
    api_procs p;
    assert_int_equal(api_decode_processes(b.data, b.len, &ctx, &p, err, sizeof err), 0);
    assert_int_equal(p.n, API_MAX_PROCS);
    assert_int_equal(p.left_out, 10000 - API_MAX_PROCS);
    api_procs_free(&p);
    /* 1000 GPUs: the first API_MAX_GPUS */
    char *body = gpus_answer(1000, NULL, "null", "x");
    api_gpus g;
    assert_int_equal(api_decode_gpus(body, strlen(body), &ctx, &g, err, sizeof err), 0);
    assert_int_equal(g.n, API_MAX_GPUS);
    assert_int_equal(g.left_out, 1000 - API_MAX_GPUS);
    api_gpus_free(&g);
    free(body);
    /* 200 000 points of one series: the newest max_points, in order */
    buf_clear(&b);
    double now = (double)ctx.now_us / 1e6;
    buf_puts(&b, "{\"series\":[{\"gpu\":1,\"samples\":[");
    for (int i = 0; i < 200000; i++)
        buf_printf(&b, "%s[%.3f,%d]", i ? "," : "", now - 200 + i * 0.001, i);
    buf_puts(&b, "]}]}");
    api_samples s;
    assert_int_equal(api_decode_samples(b.data, b.len, &ctx, 600, &s, err, sizeof err), 0);
    assert_int_equal(s.n, 1);
    assert_int_equal(s.s[0].n, 600);
    for (int i = 0; i < 600; i++)
        assert_true(s.s[0].p[i].v == 200000 - 600 + i);
    api_samples_free(&s);
    /* answers past the caps are refused before they are parsed */
    buf_clear(&b);
    buf_puts(&b, "{\"findings\":[");
    for (int i = 0; i <= API_MAX_VALUES; i++)
        buf_puts(&b, i ? ",0" : "0");
    buf_puts(&b, "]}");
    assert_int_equal(api_decode_findings(b.data, b.len, &ctx, &r, err, sizeof err), -1);
    assert_non_null(strstr(err, "values"));
    assert_int_equal(api_decode_gpus(b.data, API_MAX_BODY + 1ul, &ctx, &g, err, sizeof err), -1);
    assert_non_null(strstr(err, "bytes"));
    buf_release(&b);
}

static void test_indexes_out_of_range(void **st)
{
    (void)st;
    api_context ctx = ctx_now(2);
    /* GPU indexes: only whole numbers in [0, GPUs listed), each once */
    const char *bad_index[] = {"-1", "2", "1e300", "0.5", "\"0\"", "null", "true", "[0]", "9223372036854775807"};
    for (size_t i = 0; i < sizeof bad_index / sizeof bad_index[0]; i++) {
        char *body = gpus_answer(2, bad_index[i], "null", "x"); /* the same bad index for every GPU */
        api_gpus g;
        assert_int_equal(api_decode_gpus(body, strlen(body), &ctx, &g, err, sizeof err), 0);
        assert_int_equal(g.n, 0);
        assert_int_equal(g.left_out, 2);
        api_gpus_free(&g);
        free(body);
    }
    char *dup = gpus_answer(3, "1", "null", "x"); /* every GPU says index 1: the first is kept */
    api_gpus g;
    assert_int_equal(api_decode_gpus(dup, strlen(dup), &ctx, &g, err, sizeof err), 0);
    assert_int_equal(g.n, 1);
    assert_int_equal(g.gpus[0].info.index, 1);
    api_gpus_free(&g);
    free(dup);
    /* processes, series and findings naming GPUs the agent does not have */
    const char *procs = "{\"processes\":[{\"gpu\":2,\"pid\":1},{\"gpu\":-1,\"pid\":2},{\"gpu\":1e20,\"pid\":3},"
                        "{\"gpu\":0,\"pid\":0},{\"gpu\":0,\"pid\":99999999},{\"gpu\":1,\"pid\":7,\"sm_util\":1e9,"
                        "\"memory_mib\":-5,\"cpu_percent\":12.5}]}";
    api_procs p;
    assert_int_equal(api_decode_processes(procs, strlen(procs), &ctx, &p, err, sizeof err), 0);
    assert_int_equal(p.n, 1);
    assert_int_equal(p.left_out, 5);
    assert_int_equal(p.p[0].pid, 7);
    assert_false(p.p[0].has_sm);
    assert_false(p.p[0].has_mem);
    assert_true(p.p[0].has_cpu && p.p[0].cpu_percent == 12.5);
    api_procs_free(&p);
    const char *series = "{\"series\":[{\"gpu\":5,\"samples\":[]},{\"gpu\":0,\"samples\":[]},{\"gpu\":0,"
                         "\"samples\":[]},{\"gpu\":-3,\"samples\":[]}]}";
    api_samples s;
    assert_int_equal(api_decode_samples(series, strlen(series), &ctx, 10, &s, err, sizeof err), 0);
    assert_int_equal(s.n, 1);
    assert_int_equal(s.left_out, 3);
    api_samples_free(&s);
    const char *find = "{\"findings\":[{\"detector\":\"thermal\",\"gpus\":[0,7,-1,1e300,1.5,1,1],"
                       "\"pids\":[0,-4,5000000000,42],\"signal\":{\"gpu\":9,\"values\":[1,2]}},"
                       "{\"detector\":\"no_such_detector\",\"gpus\":[0]}]}";
    diag_report r;
    diag_report_init(&r);
    assert_int_equal(api_decode_findings(find, strlen(find), &ctx, &r, err, sizeof err), 0);
    assert_int_equal(r.n, 1);
    assert_int_equal(r.f[0].n_gpus, 2);
    assert_int_equal(r.f[0].gpus[0], 0);
    assert_int_equal(r.f[0].gpus[1], 1);
    assert_int_equal(r.f[0].n_pids, 1);
    assert_int_equal(r.f[0].pids[0], 42);
    assert_int_equal(r.f[0].chart.gpu, -1);
    diag_report_free(&r);
}

/* Escape sequences (ESC, CSI, BEL, C1), and bytes that are not UTF-8, in every string. */
static void test_strings_cleaned(void **st)
{
    (void)st;
    api_context ctx = ctx_now(1);
    const char *hostile[] = {
        "\\u001b[2J\\u001b[H", "\\u001b]0;pwned\\u0007", "\\u009b31m", "a\\u0000b", "\\u007f", "\xff\xfe", "\xc0\xaf",
        "\xed\xa0\x80",        "ok\\r\\nfake: line"};
    for (size_t i = 0; i < sizeof hostile / sizeof hostile[0]; i++) {
        const char *h = hostile[i];
        char *body = gpus_answer(1, NULL, "null", h);
        api_gpus g;
        assert_int_equal(api_decode_gpus(body, strlen(body), &ctx, &g, err, sizeof err), 0);
        assert_true(gw_text_is_clean(g.hostname));
        assert_true(gw_text_is_clean(g.gpus[0].info.str[M_NAME]));
        api_gpus_free(&g);
        free(body);
        char text[2048];
        snprintf(text, sizeof text,
                 "{\"processes\":[{\"gpu\":0,\"pid\":1,\"name\":\"%s\",\"command\":\"%s\",\"user\":\"%s\","
                 "\"container\":\"%s\"}]}",
                 h, h, h, h);
        api_procs p;
        assert_int_equal(api_decode_processes(text, strlen(text), &ctx, &p, err, sizeof err), 0);
        assert_true(gw_text_is_clean(p.p[0].name) && gw_text_is_clean(p.p[0].cmdline));
        assert_true(gw_text_is_clean(p.p[0].user) && gw_text_is_clean(p.p[0].container));
        api_procs_free(&p);
        snprintf(text, sizeof text,
                 "{\"data\":{\"alerts\":[{\"labels\":{\"alertname\":\"x%s\",\"severity\":\"%s\"},\"state\":"
                 "\"firing\",\"annotations\":{\"summary\":\"%s\"}}]}}",
                 h, h, h);
        api_alerts a;
        assert_int_equal(api_decode_alerts(text, strlen(text), &ctx, &a, err, sizeof err), 0);
        assert_int_equal(a.n, 1);
        assert_true(gw_text_is_clean(a.a[0].name) && gw_text_is_clean(a.a[0].severity));
        assert_true(gw_text_is_clean(a.a[0].summary));
        api_alerts_free(&a);
        snprintf(text, sizeof text,
                 "{\"findings\":[{\"detector\":\"thermal\",\"summary\":\"%s\",\"advice\":[\"%s\"],"
                 "\"evidence\":{\"k%s\":\"%s\"},\"signal\":{\"metric\":\"%s\",\"unit\":\"%s\",\"values\":[1]}}]}",
                 h, h, h, h, h, h);
        diag_report r;
        diag_report_init(&r);
        assert_int_equal(api_decode_findings(text, strlen(text), &ctx, &r, err, sizeof err), 0);
        assert_int_equal(r.n, 1);
        const diag_finding *f = &r.f[0];
        assert_true(gw_text_is_clean(f->summary) && gw_text_is_clean(f->advice[0]));
        assert_true(gw_text_is_clean(f->evidence[0].key) && gw_text_is_clean(f->evidence[0].str));
        assert_true(gw_text_is_clean(f->chart.metric) && gw_text_is_clean(f->chart.unit));
        diag_report_free(&r);
    }
    /* a long string is cut at a character, never inside one */
    gw_buf b;
    buf_init(&b);
    buf_puts(&b, "{\"findings\":[{\"detector\":\"thermal\",\"summary\":\"");
    for (int i = 0; i < 400; i++)
        buf_puts(&b, "\xc2\xb0");
    buf_puts(&b, "\"}]}");
    diag_report r;
    diag_report_init(&r);
    assert_int_equal(api_decode_findings(b.data, b.len, &ctx, &r, err, sizeof err), 0);
    assert_true(gw_text_is_clean(r.f[0].summary));
    assert_int_equal(strlen(r.f[0].summary), sizeof r.f[0].summary - 2); /* 159 whole characters */
    diag_report_free(&r);
    buf_release(&b);
}

static void test_not_numbers(void **st)
{
    (void)st;
    api_context ctx = ctx_now(1);
    char *body = gpus_answer(1, NULL, "null", "x");
    api_gpus g;
    assert_int_equal(api_decode_gpus(body, strlen(body), &ctx, &g, err, sizeof err), 0);
    assert_true(sample_has(&g.gpus[0].s, M_TEMP_GPU) && g.gpus[0].s.v[M_TEMP_GPU] == 61);
    assert_false(sample_has(&g.gpus[0].s, M_UTIL_GPU));   /* 1e400: infinite */
    assert_false(sample_has(&g.gpus[0].s, M_POWER_DRAW)); /* -1e400 */
    assert_false(sample_has(&g.gpus[0].s, M_MEM_USED));   /* 1e300: over API_MAX_NUMBER */
    api_gpus_free(&g);
    free(body);
    /* NaN and Infinity are not JSON: the answer is refused */
    const char *texts[] = {"{\"gpus\":[{\"index\":0,\"metrics\":{\"temperature.gpu\":NaN}}]}",
                           "{\"gpus\":[{\"index\":0,\"timestamp\":Infinity}]}",
                           "{\"gpus\":[",
                           "[]",
                           "\"gpus\"",
                           "",
                           "{\"gpus\":{}}",
                           "{\"gpus\":null}"};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        err[0] = 0;
        assert_int_equal(api_decode_gpus(texts[i], strlen(texts[i]), &ctx, &g, err, sizeof err), -1);
        assert_true(err[0] != 0);
        assert_int_equal(g.n, 0);
    }
    const char *find = "{\"findings\":[{\"detector\":\"thermal\",\"evidence\":{\"a\":1e400,\"b\":-1e400,\"c\":2.5,"
                       "\"d\":1e300},\"signal\":{\"values\":[1e39,-1e400,3,null,\"x\"]}}]}";
    diag_report r;
    diag_report_init(&r);
    assert_int_equal(api_decode_findings(find, strlen(find), &ctx, &r, err, sizeof err), 0);
    assert_int_equal(r.f[0].n_evidence, 1);
    assert_string_equal(r.f[0].evidence[0].key, "c");
    assert_int_equal(r.f[0].chart.n, 1); /* 1e39 does not fit a float */
    assert_true(r.f[0].chart.v[0] == 3);
    diag_report_free(&r);
}

static void test_deep_nesting(void **st)
{
    (void)st;
    api_context ctx = ctx_now(1);
    const int depths[] = {API_MAX_DEPTH + 1, 1000, 100000, 1000000};
    for (size_t k = 0; k < sizeof depths / sizeof depths[0]; k++) {
        int d = depths[k];
        char *t = malloc((size_t)d * 2 + 32);
        assert_non_null(t);
        size_t len = (size_t)sprintf(t, "{\"findings\":");
        for (int i = 1; i < d; i++)
            t[len++] = '[';
        for (int i = 1; i < d; i++)
            t[len++] = ']';
        t[len++] = '}';
        diag_report r;
        diag_report_init(&r);
        assert_int_equal(api_decode_findings(t, len, &ctx, &r, err, sizeof err), -1);
        assert_non_null(strstr(err, "nested"));
        diag_report_free(&r);
        free(t);
    }
    /* at the limit it parses */
    char t[256];
    size_t len = (size_t)sprintf(t, "{\"findings\":");
    for (int i = 2; i < API_MAX_DEPTH; i++)
        t[len++] = '[';
    for (int i = 2; i < API_MAX_DEPTH; i++)
        t[len++] = ']';
    t[len++] = '}';
    diag_report r;
    diag_report_init(&r);
    assert_int_equal(api_decode_findings(t, len, &ctx, &r, err, sizeof err), 0);
    assert_int_equal(r.n, 0);
    diag_report_free(&r);
}

/* What the checks still let through (a time up to an hour ahead of ours, from another host's clock)
 * and worse, fed to top's chart history: nothing is written outside the buckets. */
static void test_charts_take_what_remains(void **st)
{
    (void)st;
    top_history *h = history_new(1, 16);
    assert_non_null(h);
    uint64_t now = gw_now_us();
    const uint64_t ahead[] = {now + 3600000000ull, now + 10000000000000ull, UINT64_MAX / 2, UINT64_MAX};
    for (size_t k = 0; k < sizeof ahead / sizeof ahead[0]; k++) {
        top_history *hk = history_new(1, 16);
        gpu_sample s;
        memset(&s, 0, sizeof s);
        s.t_us = now - 2000000;
        sample_set(&s, M_UTIL_GPU, 10);
        history_push(hk, 0, &s);
        s.t_us = ahead[k];
        sample_set(&s, M_UTIL_GPU, 90);
        history_push(hk, 0, &s);
        double out[8];
        for (double bucket = 0.001; bucket < 100; bucket *= 7) {
            series_fill(hk, 0, SER_UTIL, now, bucket, 8, out);
            assert_true(out[7] == 90 || isnan(out[7]) || out[7] == 50); /* the future sample: last bucket */
        }
        series_fill(hk, 0, SER_UTIL, now, 1, 8, out);
        assert_true(out[7] == 90);
        history_free(hk);
    }
    history_free(h);
}

int main(void)
{
    backend_register(&nvml_backend_ops);
    curl_global_init(CURL_GLOBAL_DEFAULT);
    gw_log_set_level(GW_LOG_ERROR);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_findings),
        cmocka_unit_test(test_round_trip_alerts),
        cmocka_unit_test(test_times_far_from_now),
        cmocka_unit_test(test_huge_counts),
        cmocka_unit_test(test_indexes_out_of_range),
        cmocka_unit_test(test_strings_cleaned),
        cmocka_unit_test(test_not_numbers),
        cmocka_unit_test(test_deep_nesting),
        cmocka_unit_test(test_charts_take_what_remains),
        cmocka_unit_test(test_round_trip_agent),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    curl_global_cleanup();
    return rc;
}
