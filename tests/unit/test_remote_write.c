/* test_remote_write.c - remote write's parts without a network: the series converted from samples
 * are exactly /metrics' ones (plus the external labels), with stale markers when a process or a
 * GPU's value series ends; requests of both versions decode (snappy, then protobuf-c) into sorted,
 * non-empty, unique labels, samples in time order and 2.0's symbol table; the section's checks;
 * keep/drop rules; the ring's overflow; Retry-After; the progress file. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <snappy-c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "config.h"
#include "expo_text.h"
#include "remote_write_v1.pb-c.h"
#include "remote_write_v2.pb-c.h"
#include "rw_client.h"
#include "rw_encode.h"
#include "rw_progress.h"
#include "rw_ring.h"
#include "rw_series.h"
#include "rw_settings.h"

/* ---- settings from text ---- */

static int load(gw_config *c, const char *yaml, rw_settings *s)
{
    config_init(c);
    config_load_string(c, yaml, "t.yaml");
    return rw_settings_read(&c->doc, c->series, s);
}

static int has_error(const gw_config *c, const char *part)
{
    for (int i = 0; i < c->errs.n; i++)
        if (strstr(c->errs.msg[i], part))
            return 1;
    return 0;
}

static void test_settings(void **state)
{
    (void)state;
    gw_config c;
    rw_settings s;
    assert_int_equal(load(&c, "interval: 1s\n", &s), 0);
    assert_int_equal(s.nendpoints, 0);
    config_free(&c);
    /* Prometheus' own shape: a list of endpoints */
    assert_int_equal(
        load(&c, "remote_write:\n  - url: http://m:9009/api/v1/push\n    headers: {X-Scope-OrgID: t1}\n", &s), 0);
    assert_int_equal(s.nendpoints, 1);
    assert_string_equal(s.ep[0].name, "m-9009-api-v1-push");
    assert_string_equal(s.ep[0].headers[0], "X-Scope-OrgID: t1");
    assert_int_equal(s.ep[0].protocol, RW_PROTO_AUTO);
    assert_int_equal(s.ep[0].max_samples_per_send, 10000);
    rw_settings_free(&s);
    config_free(&c);
    const char *ok = "remote_write:\n"
                     "  series: native\n"
                     "  external_labels: {cluster: a, region: eu}\n"
                     "  queue_capacity: 5000\n"
                     "  endpoints:\n"
                     "    - url: https://r/api/v1/write\n"
                     "      name: main\n"
                     "      protocol: \"1.0\"\n"
                     "      remote_timeout: 5s\n"
                     "      tls_config: {insecure_skip_verify: true}\n"
                     "      write_relabel_configs:\n"
                     "        - {source_labels: [__name__], regex: 'DCGM_.*', action: drop}\n"
                     "      queue_config: {max_samples_per_send: 500, batch_send_deadline: 1s, min_backoff: 10ms,"
                     " max_backoff: 1s, retry_on_http_429: false}\n";
    assert_int_equal(load(&c, ok, &s), 0);
    assert_int_equal(s.nexternal, 2);
    assert_int_equal(s.ep[0].protocol, RW_PROTO_V1);
    assert_int_equal(s.ep[0].nrules, 1);
    assert_int_equal(s.ep[0].retry_on_429, 0);
    assert_true(s.ep[0].batch_send_deadline_s == 1 && s.ep[0].max_samples_per_send == 500);
    rw_settings_free(&s);
    config_free(&c);
    /* every problem, each with its line */
    static const struct {
        const char *yaml, *error;
    } bad[] = {
        {"remote_write:\n  - url: ftp://x\n", "is not an http(s) URL"},
        {"remote_write:\n  - name: x\n", "a url is needed"},
        {"remote_write:\n  - url: http://x\n    headers: {Content-Type: x}\n", "is set by gpuwatch"},
        {"remote_write:\n  - url: http://x\n    headers: {Authorization: x}\n", "is set by gpuwatch"},
        {"remote_write:\n  - url: http://x\n    headers: {\"a b\": x}\n", "is not a header name"},
        {"remote_write:\n  - url: http://x\n    protocol: \"3.0\"\n", "protocol"},
        {"remote_write:\n  - url: http://x\n    basic_auth: {username: u, password: p}\n    authorization: "
         "{credentials_file: /etc/hostname}\n",
         "not both"},
        {"remote_write:\n  - url: http://x\n    authorization: {credentials: secret}\n", "credentials_file"},
        {"remote_write:\n  - url: http://x\n    bearer_token_file: /nonexistent/token\n", "cannot be read"},
        {"remote_write:\n  - url: http://x\n    write_relabel_configs: [{regex: '(', action: keep}]\n", "regex"},
        {"remote_write:\n  - url: http://x\n    write_relabel_configs: [{action: replace}]\n", "keep or drop"},
        {"remote_write:\n  - {url: http://x, name: a}\n  - {url: http://y, name: a}\n", "two endpoints named"},
        {"remote_write:\n  endpoints: [{url: http://x}]\n  external_labels: {__x: y}\n", "is not a label name"},
        {"remote_write:\n  endpoints: [{url: http://x}]\n  series: all\n", "remote_write.series"},
        {"remote_write:\n  endpoints: [{url: http://x, unknown_key: 1}]\n", "unknown_key"},
        {"remote_write:\n  endpoints: [{url: http://x, queue_config: {min_backoff: 2s, max_backoff: 1s}}]\n",
         "min_backoff"},
        {"remote_write:\n  external_labels: {a: b}\n", "no endpoints"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(load(&c, bad[i].yaml, &s), -1);
        if (!has_error(&c, bad[i].error) || !has_error(&c, "t.yaml:"))
            fail_msg("%s: no error with '%s' (first: %s)", bad[i].yaml, bad[i].error,
                     c.errs.n ? c.errs.msg[0] : "none");
        config_free(&c);
    }
}

/* ---- conversion and encoding ---- */

static rw_settings settings;
static gw_config cfg;

static void sample_of(gpu_sample *s, uint64_t t_us, double temp)
{
    memset(s, 0, sizeof *s);
    s->t_us = t_us;
    sample_set(s, M_TEMP_GPU, temp);
    sample_set(s, M_MEM_USED, 1000 + temp);
    sample_set(s, M_POWER_DRAW, 300.5);
    sample_set(s, M_ENERGY, 1e6 + temp);
    sample_set(s, M_UTIL_GPU, 97);
}

static void info_of(gpu_info *i, int gpu)
{
    memset(i, 0, sizeof *i);
    i->index = gpu;
    snprintf(i->str[M_UUID], GW_STR_LEN, "GPU-%d", gpu);
    snprintf(i->str[M_NAME], GW_STR_LEN, "NVIDIA H100");
    mset_add(&i->str_present, M_UUID);
    mset_add(&i->str_present, M_NAME);
}

typedef struct decoded_series {
    char key[1024]; /* name{a="b",...} sorted */
    int nsamples;
    int64_t t[16];
    double v[16];
} decoded_series;

static decoded_series got[512];
static int ngot;

static decoded_series *find_series(const char *key)
{
    for (int i = 0; i < ngot; i++)
        if (strcmp(got[i].key, key) == 0)
            return &got[i];
    assert_true(ngot < 512);
    snprintf(got[ngot].key, sizeof got[ngot].key, "%s", key);
    got[ngot].nsamples = 0;
    return &got[ngot++];
}

/* Checks what the protocol wants of a label set and makes its key. */
static void labels_key(const char **names, const char **values, size_t n, char *key, size_t keyn)
{
    const char *metric = NULL;
    for (size_t i = 0; i < n; i++) {
        assert_true(names[i][0] && values[i][0]); /* no empty name or value */
        if (i)
            assert_true(strcmp(names[i - 1], names[i]) < 0); /* sorted, no repeat */
        if (strcmp(names[i], "__name__") == 0)
            metric = values[i];
    }
    assert_non_null(metric);
    int k = snprintf(key, keyn, "%s{", metric ? metric : "");
    for (size_t i = 0; i < n; i++)
        if (strcmp(names[i], "__name__") != 0)
            k += snprintf(key + k, keyn - (size_t)k, "%s=\"%s\",", names[i], values[i]);
    snprintf(key + k, keyn - (size_t)k, "}");
}

static void add_sample(decoded_series *d, int64_t t, double v)
{
    if (d->nsamples)
        assert_true(t > d->t[d->nsamples - 1]); /* time order */
    assert_true(d->nsamples < 16);
    d->t[d->nsamples] = t;
    d->v[d->nsamples++] = v;
}

static uint8_t *uncompress(const gw_buf *body, size_t *len)
{
    assert_int_equal(snappy_uncompressed_length(body->data, body->len, len), SNAPPY_OK);
    uint8_t *raw = malloc(*len + 1);
    assert_non_null(raw);
    assert_int_equal(snappy_uncompress(body->data, body->len, (char *)raw, len), SNAPPY_OK);
    return raw;
}

static void decode_v1(const gw_buf *body)
{
    size_t len;
    uint8_t *raw = uncompress(body, &len);
    Prometheus__WriteRequest *req = prometheus__write_request__unpack(NULL, len, raw);
    assert_non_null(req);
    ngot = 0;
    for (size_t i = 0; i < req->n_timeseries; i++) {
        const Prometheus__TimeSeries *ts = req->timeseries[i];
        const char *names[64], *values[64];
        for (size_t k = 0; k < ts->n_labels; k++) {
            names[k] = ts->labels[k]->name;
            values[k] = ts->labels[k]->value;
        }
        char key[1024];
        labels_key(names, values, ts->n_labels, key, sizeof key);
        decoded_series *d = find_series(key);
        assert_int_equal(d->nsamples, 0); /* a series once per request */
        for (size_t k = 0; k < ts->n_samples; k++)
            add_sample(d, ts->samples[k]->timestamp, ts->samples[k]->value);
    }
    prometheus__write_request__free_unpacked(req, NULL);
    free(raw);
}

static void decode_v2(const gw_buf *body)
{
    size_t len;
    uint8_t *raw = uncompress(body, &len);
    Io__Prometheus__Write__V2__Request *req = io__prometheus__write__v2__request__unpack(NULL, len, raw);
    assert_non_null(req);
    assert_true(req->n_symbols > 0 && req->symbols[0][0] == 0); /* symbols[0] is "" */
    for (size_t i = 1; i < req->n_symbols; i++)
        for (size_t k = 0; k < i; k++)
            assert_string_not_equal(req->symbols[i], req->symbols[k]); /* each string once */
    ngot = 0;
    for (size_t i = 0; i < req->n_timeseries; i++) {
        const Io__Prometheus__Write__V2__TimeSeries *ts = req->timeseries[i];
        assert_true(ts->n_labels_refs % 2 == 0);
        const char *names[64], *values[64];
        for (size_t k = 0; k < ts->n_labels_refs / 2; k++) {
            assert_true(ts->labels_refs[2 * k] < req->n_symbols && ts->labels_refs[2 * k + 1] < req->n_symbols);
            names[k] = req->symbols[ts->labels_refs[2 * k]];
            values[k] = req->symbols[ts->labels_refs[2 * k + 1]];
        }
        char key[1024];
        labels_key(names, values, ts->n_labels_refs / 2, key, sizeof key);
        assert_non_null(ts->metadata);
        assert_true(ts->metadata->help_ref < req->n_symbols && req->symbols[ts->metadata->help_ref][0]);
        int counter = 0;
        for (int m = 0; m < M_COUNT; m++) {
            const metric_def *def = catalog_get((metric_id)m);
            size_t len = strlen(key) - strlen(strchr(key, '{'));
            if ((def->dcgm && strlen(def->dcgm) == len && strncmp(def->dcgm, key, len) == 0) ||
                (def->prom && strlen(def->prom) == len && strncmp(def->prom, key, len) == 0))
                counter = def->kind == MK_COUNTER;
        }
        assert_int_equal(ts->metadata->type, counter
                                                 ? IO__PROMETHEUS__WRITE__V2__METADATA__METRIC_TYPE__METRIC_TYPE_COUNTER
                                                 : IO__PROMETHEUS__WRITE__V2__METADATA__METRIC_TYPE__METRIC_TYPE_GAUGE);
        decoded_series *d = find_series(key);
        for (size_t k = 0; k < ts->n_samples; k++)
            add_sample(d, ts->samples[k]->timestamp, ts->samples[k]->value);
    }
    io__prometheus__write__v2__request__free_unpacked(req, NULL);
    free(raw);
}

/* The /metrics text of one GPU's sample and processes, as keys like the decoded ones (sorted labels,
 * empty ones left out, plus the external ones). */
static int metrics_keys(const gpu_info *info, const gpu_sample *s, const gpu_proc *p, int np, char keys[][1024],
                        double *values)
{
    agent_gpu_view g;
    memset(&g, 0, sizeof g);
    g.info = *info;
    g.have_info = 1;
    g.sample = *s;
    g.has_sample = 1;
    g.lost = s->status == GPU_LOST;
    agent_snapshot snap;
    memset(&snap, 0, sizeof snap);
    snap.ngpus = 1;
    snap.gpus = &g;
    snap.procs = (gpu_proc *)p;
    snap.nprocs = np;
    expo_options o;
    expo_options_default(&o);
    o.hostname = "node1";
    gw_buf b;
    buf_init(&b);
    expo_write_gpus(&b, &snap, &o);
    int n = 0;
    char *save = NULL;
    for (char *line = strtok_r(b.data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (line[0] == '#')
            continue;
        char name[128], rest[1024];
        const char *names[64], *vals[64];
        char store[64][256];
        int nl = 0;
        char *brace = strchr(line, '{'), *space = strrchr(line, ' ');
        snprintf(name, sizeof name, "%.*s", (int)((brace ? brace : space) - line), line);
        names[nl] = "__name__";
        vals[nl++] = name;
        if (brace) {
            snprintf(rest, sizeof rest, "%.*s", (int)(strrchr(line, '}') - brace - 1), brace + 1);
            for (char *q = rest; *q;) {
                char *eq = strchr(q, '='), *end = strstr(eq, "\",");
                size_t vl = end ? (size_t)(end - eq - 2) : strlen(eq + 2) - 1;
                snprintf(store[nl], sizeof store[nl], "%.*s", (int)(eq - q), q);
                names[nl] = store[nl];
                char *vs = store[nl] + strlen(store[nl]) + 1;
                snprintf(vs, 100, "%.*s", (int)vl, eq + 2);
                vals[nl] = vs;
                if (*vs)
                    nl++;
                q = end ? end + 2 : q + strlen(q);
            }
        }
        names[nl] = "cluster", vals[nl++] = "test";
        names[nl] = "instance", vals[nl++] = "node1";
        names[nl] = "job", vals[nl++] = "gpuwatch";
        for (int i = 1; i < nl; i++) /* sort by name */
            for (int k = i; k > 0 && strcmp(names[k - 1], names[k]) > 0; k--) {
                const char *t = names[k];
                names[k] = names[k - 1], names[k - 1] = t;
                t = vals[k];
                vals[k] = vals[k - 1], vals[k - 1] = t;
            }
        labels_key(names, vals, (size_t)nl, keys[n], 1024);
        values[n++] = strtod(space + 1, NULL);
    }
    buf_release(&b);
    return n;
}

static void test_convert_and_encode(void **state)
{
    (void)state;
    config_init(&cfg);
    config_load_string(&cfg,
                       "remote_write:\n  external_labels: {cluster: test}\n  endpoints:\n"
                       "    - {url: http://a, name: all}\n"
                       "    - url: http://b\n      name: nodcgm\n"
                       "      write_relabel_configs: [{source_labels: [__name__], regex: 'DCGM_.*', action: drop}]\n",
                       "t.yaml");
    assert_int_equal(rw_settings_read(&cfg.doc, cfg.series, &settings), 0);
    rw_table *t = rw_table_new(&settings, "node1");
    rw_converter *c = rw_converter_new(t);
    assert_non_null(t);
    assert_non_null(c);
    expo_options o;
    expo_options_default(&o);
    o.hostname = "node1";
    rw_walk_context ctx = {.expo = &o};
    gpu_info info;
    info_of(&info, 3);
    gpu_proc p[2];
    memset(p, 0, sizeof p);
    for (int i = 0; i < 2; i++) {
        p[i].gpu = 3;
        p[i].pid = 500 + (unsigned)i;
        p[i].has_mem = 1;
        p[i].mem_mib = 100 * (i + 1);
        snprintf(p[i].user, sizeof p[i].user, "u%d", i);
        snprintf(p[i].container, sizeof p[i].container, "k8s:ns%d/pod%d/c", i, i);
    }
    rw_entry *out = NULL;
    size_t n = 0, cap = 0;
    gpu_sample s[4];
    uint64_t t0 = 1800000000000000ull;
    for (int k = 0; k < 4; k++) {
        sample_of(&s[k], t0 + (uint64_t)k * 1000000, 60 + k);
        /* the second process ends after the second sample; the GPU is lost at the last one */
        if (k == 3)
            s[k].status = GPU_LOST;
        assert_int_equal(rw_convert(c, &ctx, 3, &info, &s[k], p, k < 2 ? 2 : 1, &out, &n, &cap), 0);
    }
    gw_buf body;
    buf_init(&body);
    rw_encoded enc1, enc2;
    rw_table_lock(t);
    assert_int_equal(rw_encode(t, out, n, 2, &body, &enc2), 0);
    decode_v2(&body);
    int nseries_v2 = ngot;
    assert_int_equal(rw_encode(t, out, n, 1, &body, &enc1), 0);
    rw_table_unlock(t);
    decode_v1(&body);
    assert_int_equal(ngot, nseries_v2);
    assert_int_equal(enc1.samples, n);
    assert_int_equal(enc2.samples, n);
    /* every series of each sample's /metrics text, with its value at that time */
    char(*keys)[1024] = malloc(512 * sizeof *keys);
    double values[512];
    for (int k = 0; k < 4; k++) {
        int m = metrics_keys(&info, &s[k], p, k < 2 ? 2 : 1, keys, values);
        assert_true(m >= (k < 3 ? 10 : 3)); /* a lost GPU keeps its info, lost and hung series */
        for (int i = 0; i < m; i++) {
            decoded_series *d = NULL;
            for (int j = 0; j < ngot && !d; j++)
                if (strcmp(got[j].key, keys[i]) == 0)
                    d = &got[j];
            if (!d)
                fail_msg("sample %d: /metrics series %s not sent", k, keys[i]);
            int found = 0;
            for (int j = 0; j < d->nsamples; j++)
                if (d->t[j] == (int64_t)(s[k].t_us / 1000))
                    found = fabs(d->v[j] - values[i]) <= 1e-12 * fabs(values[i]); /* text: %.15g */
            if (!found)
                fail_msg("sample %d: %s: no value %g at its time", k, keys[i], values[i]);
        }
    }
    /* stale markers: the ended process's series at the third sample, the lost GPU's values at the fourth */
    int stale_proc = 0, stale_temp = 0;
    for (int j = 0; j < ngot; j++) {
        decoded_series *d = &got[j];
        int last_stale = rw_is_stale(d->v[d->nsamples - 1]);
        if (strstr(d->key, "gpuwatch_process_memory_bytes{") && strstr(d->key, "pid=\"501\"")) {
            stale_proc = last_stale && d->t[d->nsamples - 1] == (int64_t)(s[2].t_us / 1000) && d->nsamples == 3;
        }
        if (strstr(d->key, "gpuwatch_temperature_celsius{"))
            stale_temp = last_stale && d->t[d->nsamples - 1] == (int64_t)(s[3].t_us / 1000);
        for (int k = 0; k + 1 < d->nsamples; k++)
            assert_false(rw_is_stale(d->v[k])); /* a marker only when the series ends */
    }
    assert_true(stale_proc);
    assert_true(stale_temp);
    /* the second endpoint drops the dcgm series: its keep bit */
    rw_table_lock(t);
    int dcgm = 0, kept_for_b = 0;
    for (size_t i = 0; i < n; i++) {
        const rw_series *ser = rw_table_get(t, &out[i]);
        assert_non_null(ser);
        assert_true(ser->keep & 1);
        dcgm += strncmp(ser->name, "DCGM_", 5) == 0;
        kept_for_b += strncmp(ser->name, "DCGM_", 5) == 0 && (ser->keep & 2);
    }
    rw_table_unlock(t);
    assert_true(dcgm > 0);
    assert_int_equal(kept_for_b, 0);
    /* forgetting: nothing is forgotten within the hour; a forgotten id's entries read as gone */
    assert_int_equal(rw_table_evict(t, INT64_MAX, 1000), 0);
    size_t count, bytes;
    rw_table_stats(t, &count, &bytes);
    assert_int_equal(rw_table_evict(t, INT64_MAX, UINT64_C(1) << 62), count);
    rw_table_lock(t);
    assert_null(rw_table_get(t, &out[0]));
    rw_table_unlock(t);
    free(keys);
    free(out);
    buf_release(&body);
    rw_converter_free(c);
    rw_table_free(t);
    rw_settings_free(&settings);
    config_free(&cfg);
}

/* ---- the ring ---- */

static void test_ring(void **state)
{
    (void)state;
    rw_ring *r = rw_ring_new(10);
    rw_entry e[25], out[25];
    for (int i = 0; i < 25; i++)
        e[i] = (rw_entry){.series = (uint32_t)i, .gpu = (uint16_t)(i % 3), .t_us = 1000 + i};
    uint64_t seq = 0, lost;
    rw_ring_push(r, e, 4);
    assert_int_equal(rw_ring_read(r, &seq, out, 2, &lost), 2);
    assert_int_equal(lost, 0);
    rw_ring_push(r, e + 4, 21); /* 25 pushed, 10 kept: from 15 on */
    assert_int_equal(rw_ring_pending(r, seq), 10);
    int64_t first[4];
    rw_ring_first_times(r, seq, first, 4);
    assert_true(first[0] == 1015 && first[1] == 1016 && first[2] == 1017 && first[3] == INT64_MAX);
    assert_int_equal(rw_ring_read(r, &seq, out, 25, &lost), 10);
    assert_int_equal(lost, 13);
    assert_int_equal(out[0].series, 15);
    assert_int_equal(seq, 25);
    assert_int_equal(rw_ring_read(r, &seq, out, 25, &lost), 0);
    rw_ring_free(r);
}

/* ---- Retry-After, progress ---- */

static void test_retry_after(void **state)
{
    (void)state;
    assert_true(rw_parse_retry_after("120", 0) == 120);
    assert_true(rw_parse_retry_after(" 5 ", 0) == 5);
    /* Sun, 06 Nov 1994 08:49:37 GMT is 784111777 */
    assert_true(rw_parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", 784111770) == 7);
    assert_true(rw_parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", 784111800) == 0);
    assert_true(rw_parse_retry_after("soon", 0) < 0);
    assert_true(rw_parse_retry_after("5x", 0) < 0);
    assert_true(rw_parse_retry_after("", 0) < 0);
}

static void test_progress(void **state)
{
    (void)state;
    char dir[] = "/tmp/gw-rwprog-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char db[256], path[300], err[256];
    snprintf(db, sizeof db, "%s/history.db", dir);
    rw_progress_path(db, "main", path, sizeof path);
    assert_non_null(strstr(path, "/remote-write-main.progress"));
    rw_progress p, q;
    assert_int_equal(rw_progress_load(path, "http://a", &p, err, sizeof err), 0); /* none yet */
    memset(&p, 0, sizeof p);
    p.acked_us[0] = 1800000000123456;
    p.acked_us[7] = 1800000000654321;
    assert_int_equal(rw_progress_save(path, "http://a", &p, err, sizeof err), 0);
    assert_int_equal(rw_progress_load(path, "http://a", &q, err, sizeof err), 1);
    assert_memory_equal(&p, &q, sizeof p);
    assert_int_equal(rw_progress_load(path, "http://b", &q, err, sizeof err), 0); /* another receiver */
    /* a link in its place is never followed; garbage is refused */
    char target[300];
    snprintf(target, sizeof target, "%s/elsewhere", dir);
    rename(path, target);
    assert_int_equal(symlink(target, path), 0);
    assert_int_equal(rw_progress_load(path, "http://a", &q, err, sizeof err), -1);
    unlink(path);
    FILE *f = fopen(path, "w");
    fputs("not a progress file\n", f);
    fclose(f);
    assert_int_equal(rw_progress_load(path, "http://a", &q, err, sizeof err), -1);
    unlink(path);
    unlink(target);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_settings),    cmocka_unit_test(test_convert_and_encode), cmocka_unit_test(test_ring),
        cmocka_unit_test(test_retry_after), cmocka_unit_test(test_progress),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
