/* test_history_store.c - history round trip, roll-ups, retention, events and processes with
 * synthetic timestamps (no waiting), and what a killed writer leaves behind. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "history.h"
#include "query.h"
#include "hsynth.h"

#define T0 1764673200000000ll /* an hour boundary */
#define SEC 1000000ll
#define GPUS 2
#define SECONDS 1500 /* 25 minutes: three chunk windows */

static char dir[64], path[128];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/gw-hist-test-XXXXXX");
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

/* The i-th sample of a GPU: synthetic values; gpu 1 has no memory temperature and is lost 100-119 s. */
static void make_sample(hsynth_gpu *sg, int gpu, int i, gpu_sample *s)
{
    hsynth_sample(sg, gpu, T0 + i * SEC, s);
    if (gpu == 1)
        mset_del(&s->present, M_TEMP_MEMORY);
    if (gpu == 1 && i >= 100 && i < 120) {
        s->status = GPU_LOST;
        memset(&s->present, 0, sizeof s->present);
    }
    if (gpu == 0 && i == 300) {
        sample_set(s, M_XID_LAST, 79);
        sample_set(s, M_XID_COUNT, 1);
    }
    if (gpu == 0 && i > 300) {
        sample_set(s, M_XID_LAST, 79);
        sample_set(s, M_XID_COUNT, 1);
    }
    /* An open group keeps only its newest slots raw: a constant that starts to vary after many slots
     * were coded, a column that appears late, and a gap in a varying one, all within one chunk. */
    if (gpu == 0 && i >= 650)
        sample_set(s, M_PCIE_REPLAY, i >= 1000 ? (double)(i % 7) : 0);
    if (gpu == 0 && i >= 700 && i < 1100)
        sample_set(s, M_MIG_MODE, i < 900 ? 1 : 0);
    if (gpu == 0 && i >= 1300 && i < 1333)
        mset_del(&s->present, M_GPM_NVLINK_TX);
}

/* Each GPU's events, derived from its samples as the agent's pipeline and gpuwatch run do. */
static event_deriver derivers[8];

static void record_event(const gw_event *ev, void *h)
{
    history_record_event(h, ev);
}

/* A sample into the history, and the events it gives. */
static void record(history *h, int gpu, const gpu_info *info, const gpu_sample *s)
{
    history_record_sample(h, gpu, info, s);
    event_derive(&derivers[gpu], gpu, s, record_event, h);
}

static history *open_hist(double max_buffer)
{
    memset(derivers, 0, sizeof derivers);
    history_config cfg;
    history_config_defaults(&cfg);
    cfg.path = path;
    cfg.no_thread = 1;
    if (max_buffer > 0)
        cfg.max_buffer = (size_t)max_buffer;
    char err[256];
    history *h = history_open(&cfg, err, sizeof err);
    assert_non_null(h);
    return h;
}

/* Records SECONDS of both GPUs, flushing every `every` seconds (0: never until the close); keeps
 * every sample in want[] for the checks. After each flush, memory holds no slot the file has. */
static gpu_sample *record_every(history *h, int every)
{
    gpu_sample *want = calloc((size_t)SECONDS * GPUS, sizeof *want);
    hsynth_gpu sg[GPUS];
    gpu_info info;
    for (int g = 0; g < GPUS; g++)
        hsynth_init(&sg[g], g);
    for (int i = 0; i < SECONDS; i++)
        for (int g = 0; g < GPUS; g++) {
            gpu_sample *s = &want[i * GPUS + g];
            make_sample(&sg[g], g, i, s);
            hsynth_info(g, &info);
            record(h, g, &info, s);
            if (every && i % every == every - 1 && g == GPUS - 1) {
                assert_int_equal(history_flush(h), 0);
                assert_int_equal(history_open_slots(h), 0);
            }
        }
    return want;
}

static gpu_sample *record_all(history *h)
{
    return record_every(h, 10);
}

static hq_result run_query(store *st, metric_id m, int gpu, int64_t from, int64_t to, int64_t step, hq_agg agg,
                           hq_source src)
{
    unsigned char sel[HQ_MAX_GPUS] = {0};
    sel[gpu] = 1;
    hq_request rq = {.metrics = &m,
                     .nmetrics = 1,
                     .gpus = sel,
                     .from_us = from,
                     .to_us = to,
                     .step_us = step,
                     .agg = agg,
                     .source = src};
    hq_result r;
    char err[256];
    assert_int_equal(hq_run(st, &rq, &r, err, sizeof err), 0);
    return r;
}

/* Every value comes back bit for bit, whatever the flushes took from memory: flushes every 10 s
 * (raw slots only), every 1 s, every 100 and 150 s (coded segments and raw slots), and none. */
static void check_round_trip(int every)
{
    history *h = open_hist(0);
    gpu_sample *want = record_every(h, every);
    history_close(h);
    char err[256];
    store *st = store_open(path, 1, err, sizeof err);
    assert_non_null(st);
    for (int g = 0; g < GPUS; g++)
        for (int m = M_STR_END; m < M_COUNT; m++) {
            hq_result r = run_query(st, (metric_id)m, g, T0, T0 + SECONDS * SEC, 0, AGG_AVG, HQ_RAW);
            size_t k = 0;
            for (int i = 0; i < SECONDS; i++) {
                double v;
                if (!sample_get(&want[i * GPUS + g], (metric_id)m, &v))
                    continue;
                assert_true(r.n == 1 && k < r.s[0].n);
                assert_int_equal(r.s[0].t[k], T0 + i * SEC);
                assert_memory_equal(&r.s[0].v[k], &v, sizeof v);
                k++;
            }
            assert_int_equal(r.n ? r.s[0].n : 0, k); /* absent values are not read back (as 0 or otherwise) */
            if (g == 1 && m == M_TEMP_MEMORY)
                assert_int_equal(r.n, 0);
            hq_free(&r);
        }
    store_close(st);
    free(want);
    unlink(path);
}

static void test_round_trip(void **state)
{
    (void)state;
    const int every[] = {10, 1, 100, 150, 0};
    for (size_t k = 0; k < sizeof every / sizeof every[0]; k++)
        check_round_trip(every[k]);
}

static void test_rollups_and_aggregates(void **state)
{
    (void)state;
    history *h = open_hist(0);
    gpu_sample *want = record_all(h);
    history_close(h);
    char err[256];
    store *st = store_open(path, 1, err, sizeof err);
    const metric_id ms[] = {M_POWER_DRAW, M_UTIL_GPU, M_ENERGY, M_CER_SW_POWER_CAP};
    for (int k = 0; k < 4; k++)
        for (int agg = AGG_AVG; agg <= AGG_LAST; agg++) {
            hq_result raw = run_query(st, ms[k], 0, T0, T0 + SECONDS * SEC - 1, 60 * SEC, (hq_agg)agg, HQ_RAW);
            hq_result roll = run_query(st, ms[k], 0, T0, T0 + SECONDS * SEC - 1, 60 * SEC, (hq_agg)agg, HQ_ROLLUP);
            assert_int_equal(raw.n, 1);
            assert_int_equal(roll.n, 1);
            assert_int_equal(raw.s[0].n, SECONDS / 60);
            assert_int_equal(roll.s[0].n, SECONDS / 60);
            for (size_t b = 0; b < raw.s[0].n; b++) {
                /* the expected aggregate, computed here from the samples */
                double n = 0, mn = INFINITY, mx = -INFINITY, sum = 0, last = 0, v;
                for (int i = (int)b * 60; i < (int)b * 60 + 60; i++)
                    if (sample_get(&want[i * GPUS], ms[k], &v)) {
                        n++;
                        sum += v;
                        last = v;
                        if (v < mn)
                            mn = v;
                        if (v > mx)
                            mx = v;
                    }
                double e = agg == AGG_AVG ? sum / n : agg == AGG_MIN ? mn : agg == AGG_MAX ? mx : last;
                assert_int_equal(raw.s[0].t[b], T0 + (int64_t)b * 60 * SEC);
                assert_int_equal(roll.s[0].t[b], T0 + (int64_t)b * 60 * SEC);
                assert_true(fabs(raw.s[0].v[b] - e) <= 1e-9 * fabs(e));
                assert_true(fabs(roll.s[0].v[b] - e) <= 1e-9 * fabs(e));
            }
            hq_free(&raw);
            hq_free(&roll);
        }
    /* step 10 s from raw: 6 buckets a minute */
    hq_result r = run_query(st, M_UTIL_GPU, 0, T0, T0 + 60 * SEC - 1, 10 * SEC, AGG_MAX, HQ_AUTO);
    assert_int_equal(r.used_rollups, 0);
    assert_int_equal(r.s[0].n, 6);
    hq_free(&r);
    r = run_query(st, M_UTIL_GPU, 0, T0, T0 + 600 * SEC, 60 * SEC, AGG_MAX, HQ_AUTO);
    assert_int_equal(r.used_rollups, 1);
    hq_free(&r);
    store_close(st);
    free(want);
}

static void test_retention(void **state)
{
    (void)state;
    history *h = open_hist(0);
    free(record_all(h));
    char err[256];
    /* 8 days later: raw gone (7 d), roll-ups kept (90 d) */
    assert_int_equal(history_prune(h, (uint64_t)(T0 + 8 * 86400 * SEC)), 0);
    store *st = store_open(path, 1, err, sizeof err);
    hq_result r = run_query(st, M_POWER_DRAW, 0, T0, T0 + SECONDS * SEC, 0, AGG_AVG, HQ_RAW);
    assert_int_equal(r.n, 0);
    hq_free(&r);
    r = run_query(st, M_POWER_DRAW, 0, T0, T0 + SECONDS * SEC, 0, AGG_AVG, HQ_AUTO);
    assert_int_equal(r.used_rollups, 1); /* older than the raw data kept: roll-ups */
    assert_int_equal(r.n, 1);
    assert_int_equal(r.s[0].n, SECONDS / 60);
    hq_free(&r);
    store_close(st);
    /* 91 days later: nothing */
    assert_int_equal(history_prune(h, (uint64_t)(T0 + 91 * 86400 * SEC)), 0);
    st = store_open(path, 1, err, sizeof err);
    r = run_query(st, M_POWER_DRAW, 0, T0, T0 + SECONDS * SEC, 60 * SEC, AGG_AVG, HQ_AUTO);
    assert_int_equal(r.n, 0);
    hq_free(&r);
    store_close(st);
    history_close(h);
}

static void test_size_cap(void **state)
{
    (void)state;
    history_config cfg;
    history_config_defaults(&cfg);
    cfg.path = path;
    cfg.no_thread = 1;
    char err[256];
    history *h = history_open(&cfg, err, sizeof err);
    free(record_all(h));
    history_close(h);
    store *st = store_open(path, 1, err, sizeof err);
    int64_t used = store_used_bytes(st);
    store_close(st);
    cfg.max_size = (uint64_t)(used * 3 / 4); /* a cap a quarter below what the data takes */
    h = history_open(&cfg, err, sizeof err);
    assert_int_equal(history_prune(h, (uint64_t)(T0 + SECONDS * SEC)), 0);
    history_close(h);
    st = store_open(path, 1, err, sizeof err);
    assert_true((uint64_t)store_used_bytes(st) <= cfg.max_size);
    /* the newest data survives, the oldest went first */
    hq_result r = run_query(st, M_UTIL_GPU, 0, T0, T0 + SECONDS * SEC, 0, AGG_AVG, HQ_RAW);
    assert_int_equal(r.n, 1);
    assert_int_equal(r.s[0].t[r.s[0].n - 1], T0 + (SECONDS - 1) * SEC);
    assert_true(r.s[0].t[0] > T0);
    hq_free(&r);
    store_close(st);
}

static int count_events(store *st, const char *kind, int gpu)
{
    sqlite3_stmt *q = NULL;
    sqlite3_prepare_v2(store_db(st), "SELECT count(*) FROM events WHERE kind=? AND gpu=?", -1, &q, NULL);
    sqlite3_bind_text(q, 1, kind, -1, SQLITE_STATIC);
    sqlite3_bind_int(q, 2, gpu);
    int n = sqlite3_step(q) == SQLITE_ROW ? sqlite3_column_int(q, 0) : -1;
    sqlite3_finalize(q);
    return n;
}

static void test_events(void **state)
{
    (void)state;
    history *h = open_hist(0);
    gpu_sample *want = record_all(h);
    gw_event alert = {.kind = EV_ALERT,
                      .t_us = (uint64_t)(T0 + 5 * SEC),
                      .gpu = 0,
                      .alert = {"HighTemp", "warning", "GPU 0 at 91.5 C", 91.5, 1}};
    history_record_event(h, &alert);
    history_close(h);
    char err[256];
    store *st = store_open(path, 1, err, sizeof err);
    assert_int_equal(count_events(st, "gpu_lost", 1), 1);
    assert_int_equal(count_events(st, "gpu_back", 1), 1);
    assert_int_equal(count_events(st, "xid", 0), 1);
    assert_int_equal(count_events(st, "alert", 0), 1);
    int starts = 0; /* power-cap episodes in the synthetic data of gpu 0 */
    for (int i = 1; i < SECONDS; i++)
        starts +=
            !((uint64_t)want[(i - 1) * GPUS].v[M_CER_ACTIVE] & 4) && ((uint64_t)want[i * GPUS].v[M_CER_ACTIVE] & 4);
    assert_true(starts > 0);
    assert_int_equal(count_events(st, "throttle_start", 0), starts);
    store_close(st);
    free(want);
}

/* An XID that arrives while the GPU is lost (XID 79, fallen off the bus) shows in its first sample
 * after the loss: it becomes an event then, whatever came between (lost, error). */
static void test_xid_while_lost(void **state)
{
    (void)state;
    static const struct {
        gpu_status st;
        double count, last;
    } seq[] = {{GPU_OK, 0, 0},  {GPU_LOST, 0, 0}, {GPU_ERROR, 0, 0}, {GPU_LOST, 0, 0},
               {GPU_OK, 1, 79}, {GPU_OK, 1, 79},  {GPU_LOST, 0, 0},  {GPU_OK, 1, 79}};
    history *h = open_hist(0);
    for (size_t i = 0; i < sizeof seq / sizeof seq[0]; i++) {
        gpu_sample s;
        memset(&s, 0, sizeof s);
        s.t_us = (uint64_t)(T0 + (int64_t)i * SEC);
        s.status = seq[i].st;
        if (s.status == GPU_OK) {
            sample_set(&s, M_XID_COUNT, seq[i].count);
            sample_set(&s, M_XID_LAST, seq[i].last);
        }
        record(h, 1, NULL, &s);
    }
    history_close(h);
    char err[256];
    store *st = store_open(path, 1, err, sizeof err);
    assert_int_equal(count_events(st, "xid", 1), 1); /* once: the second return brings none */
    assert_true(count_events(st, "gpu_lost", 1) >= 2);
    sqlite3_stmt *q = NULL;
    sqlite3_prepare_v2(store_db(st), "SELECT t, detail FROM events WHERE kind='xid' AND gpu=1", -1, &q, NULL);
    assert_int_equal(sqlite3_step(q), SQLITE_ROW);
    assert_int_equal(sqlite3_column_int64(q, 0), T0 + 4 * SEC);
    assert_string_equal((const char *)sqlite3_column_text(q, 1), "xid=79");
    sqlite3_finalize(q);
    store_close(st);
}

static void check_processes(int every)
{
    history *h = open_hist(0);
    gpu_proc p[2];
    memset(p, 0, sizeof p);
    for (int k = 0; k < 2; k++) {
        p[k].gpu = 0;
        p[k].pid = 4000 + (unsigned)k;
        snprintf(p[k].name, sizeof p[k].name, "python3");
        snprintf(p[k].user, sizeof p[k].user, "alice");
        snprintf(p[k].container, sizeof p[k].container, "slurm-job-1");
        p[k].has_mem = p[k].has_sm = 1;
    }
    for (int i = 0; i < 900; i++) {
        p[0].mem_mib = 1000 + i;
        p[0].sm_util = i % 100;
        p[1].mem_mib = 500;
        p[1].has_sm = 0;
        history_record_processes(h, 0, (uint64_t)(T0 + i * SEC), p, i < 400 ? 2 : 1);
        if (i % every == 0) {
            assert_int_equal(history_flush(h), 0);
            assert_int_equal(history_open_slots(h), 0); /* the pieces hold them */
        }
    }
    history_close(h);
    char err[256];
    store *st = store_open(path, 1, err, sizeof err);
    metric_id ms[2] = {M_MEM_USED, M_UTIL_GPU};
    hq_request rq = {.metrics = ms, .nmetrics = 2, .pid = 4000, .from_us = T0, .to_us = T0 + 900 * SEC};
    hq_result r;
    assert_int_equal(hq_run(st, &rq, &r, err, sizeof err), 0);
    assert_int_equal(r.n, 2);
    assert_int_equal(r.s[0].n, 900);
    for (int i = 0; i < 900; i++) {
        assert_int_equal(r.s[0].t[i], T0 + i * SEC);
        assert_true(r.s[0].v[i] == 1000 + i && r.s[1].v[i] == i % 100);
    }
    hq_free(&r);
    rq.pid = 4001;
    assert_int_equal(hq_run(st, &rq, &r, err, sizeof err), 0);
    assert_int_equal(r.n, 1); /* no SM values: no series */
    assert_int_equal(r.s[0].n, 400);
    hq_free(&r);
    metric_id bad = M_TEMP_GPU;
    rq.metrics = &bad;
    rq.nmetrics = 1;
    assert_int_equal(hq_run(st, &rq, &r, err, sizeof err), -1);
    store_close(st);
    unlink(path);
}

static void test_processes(void **state)
{
    (void)state;
    const int every[] = {10, 1, 97, 1000};
    for (size_t k = 0; k < sizeof every / sizeof every[0]; k++)
        check_processes(every[k]);
}

/* The checkpoint of an open chunk deleted behind the writer's back (the file replaced, say):
 * what memory still holds is written as a chunk of its own, nothing else is lost or left open. */
static void test_checkpoint_lost(void **state)
{
    (void)state;
    history *h = open_hist(0);
    hsynth_gpu sg;
    hsynth_init(&sg, 0);
    gpu_sample s;
    double want[600];
    for (int i = 0; i < 600; i++) {
        make_sample(&sg, 0, i, &s);
        want[i] = s.v[M_UTIL_GPU];
        record(h, 0, NULL, &s);
        if (i % 10 == 9)
            assert_int_equal(history_flush(h), 0);
        if (i == 299) {
            sqlite3 *db;
            assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
            assert_int_equal(sqlite3_exec(db, "DELETE FROM open_chunks", NULL, NULL, NULL), SQLITE_OK);
            sqlite3_close(db);
        }
    }
    history_close(h);
    char err[256];
    store *st = store_open(path, 1, err, sizeof err);
    assert_non_null(st);
    hq_result r = run_query(st, M_UTIL_GPU, 0, T0, T0 + 600 * SEC, 0, AGG_AVG, HQ_RAW);
    assert_int_equal(r.n, 1);
    assert_int_equal(r.s[0].n, 300);
    for (int i = 0; i < 300; i++) {
        assert_int_equal(r.s[0].t[i], T0 + (300 + i) * SEC);
        assert_memory_equal(&r.s[0].v[i], &want[300 + i], sizeof(double));
    }
    hq_free(&r);
    sqlite3_stmt *q = NULL;
    sqlite3_prepare_v2(store_db(st), "SELECT count(*) FROM open_chunks", -1, &q, NULL);
    assert_int_equal(sqlite3_step(q), SQLITE_ROW);
    assert_int_equal(sqlite3_column_int(q, 0), 0);
    sqlite3_finalize(q);
    store_close(st);
}

/* A writer killed with SIGKILL after some flushes: the file passes integrity_check, holds every
 * flushed sample, and the next open seals what was left open. */
static void test_kill9(void **state)
{
    (void)state;
    for (int round = 0; round < 3; round++) {
        int flushed_until = 200 * (round + 1);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            history *h = open_hist(0);
            hsynth_gpu sg;
            hsynth_init(&sg, 0);
            gpu_sample s;
            int start = 200 * round;
            for (int i = start; i < flushed_until + 7; i++) {
                make_sample(&sg, 0, i, &s);
                record(h, 0, NULL, &s);
                if (i == flushed_until - 1)
                    history_flush(h);
            }
            kill(getpid(), SIGKILL);
        }
        int status;
        waitpid(pid, &status, 0);
        assert_true(WIFSIGNALED(status));
        char err[256];
        store *st = store_open(path, 1, err, sizeof err);
        assert_non_null(st);
        sqlite3_stmt *q = NULL;
        sqlite3_prepare_v2(store_db(st), "PRAGMA integrity_check", -1, &q, NULL);
        assert_int_equal(sqlite3_step(q), SQLITE_ROW);
        assert_string_equal((const char *)sqlite3_column_text(q, 0), "ok");
        sqlite3_finalize(q);
        hq_result r = run_query(st, M_UTIL_GPU, 0, T0, T0 + 10000 * SEC, 0, AGG_AVG, HQ_RAW);
        assert_int_equal(r.n, 1);
        assert_int_equal(r.s[0].n, (size_t)flushed_until);
        for (size_t i = 0; i < r.s[0].n; i++)
            assert_int_equal(r.s[0].t[i], T0 + (int64_t)i * SEC);
        hq_free(&r);
        store_close(st);
    }
    /* the next writer seals the leftovers into roll-ups */
    history *h = open_hist(0);
    history_close(h);
    char err[256];
    store *st = store_open(path, 1, err, sizeof err);
    hq_result r = run_query(st, M_UTIL_GPU, 0, T0, T0 + 600 * SEC - 1, 60 * SEC, AGG_AVG, HQ_ROLLUP);
    assert_int_equal(r.n, 1);
    assert_int_equal(r.s[0].n, 10);
    hq_free(&r);
    store_close(st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rollups_and_aggregates, setup, teardown),
        cmocka_unit_test_setup_teardown(test_retention, setup, teardown),
        cmocka_unit_test_setup_teardown(test_size_cap, setup, teardown),
        cmocka_unit_test_setup_teardown(test_events, setup, teardown),
        cmocka_unit_test_setup_teardown(test_xid_while_lost, setup, teardown),
        cmocka_unit_test_setup_teardown(test_processes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_kill9, setup, teardown),
        cmocka_unit_test_setup_teardown(test_checkpoint_lost, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
