/* test_history_format1.c - a file of format 1 (the previous versions': one chunks row per column, one
 * roll-up row per metric and window, checkpoint pieces one row per column) is read as it is, its
 * pieces left by a killed writer are sealed by the next one, its roll-up rows are merged into the
 * window's bundle when new minutes come, and retention deletes both kinds of rows. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "codec.h"
#include "history.h"
#include "query.h"
#include "rollup.h"
#include "store.h"
#include "hsynth.h"

#define T0 1764673200000000ll
#define SEC 1000000ll
#define OLD_SEALED 1200 /* two sealed groups of 600 s */
#define OLD_PIECE 60    /* then a checkpoint piece of the next group, left open */
#define TOTAL 2000
#define WINDOW (T0 - T0 % ROLLUP_SPAN_US) /* the 6-hour roll-up window of the data */

static char dir[64], path[128];
static gpu_sample want[TOTAL];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/gw-fmt1-test-XXXXXX");
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/h.db", dir);
    hsynth_gpu sg;
    hsynth_init(&sg, 0);
    for (int i = 0; i < TOTAL; i++)
        hsynth_sample(&sg, 0, T0 + i * SEC, &want[i]);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* Samples [from, to) of GPU 0 written as format 1 rows: a timeline row and one row per metric (final:
 * chunks, with one roll-up row per metric; else a piece in open_chunks). */
static void write_format1(store *st, int from, int to, int final)
{
    size_t n = (size_t)(to - from);
    int64_t t[OLD_SEALED];
    double v[OLD_SEALED];
    uint8_t pres[OLD_SEALED];
    rmin r[OLD_SEALED];
    for (size_t i = 0; i < n; i++)
        t[i] = (int64_t)want[from + (int)i].t_us;
    gw_buf b = {0};
    codec_put_times(&b, t, n);
    assert_int_equal(store_put_chunk(st, final, 0, STORE_TIMELINE, t[0], t[n - 1], (int64_t)n, &b), SQLITE_OK);
    sqlite3_stmt *ins = NULL;
    sqlite3_prepare_v2(store_db(st), "INSERT INTO rollups VALUES(0,?,?,?,?,?)", -1, &ins, NULL);
    for (int m = M_STR_END; m < M_COUNT; m++) {
        if (catalog_get((metric_id)m)->flags & MF_BIT)
            continue;
        int any = 0;
        for (size_t i = 0; i < n; i++) {
            pres[i] = (uint8_t)sample_has(&want[from + (int)i], (metric_id)m);
            v[i] = want[from + (int)i].v[m];
            any |= pres[i];
        }
        if (!any)
            continue;
        int dbid = store_metric_id(st, (metric_id)m);
        buf_clear(&b);
        codec_put_column(&b, v, pres, n);
        assert_int_equal(store_put_chunk(st, final, 0, dbid, t[0], t[n - 1], (int64_t)n, &b), SQLITE_OK);
        size_t k = rollup_minutes(t, v, pres, n, r);
        if (!final || !k)
            continue;
        /* the previous writer merged each group into the metric's row of the window */
        sqlite3_stmt *get = NULL;
        rmin *old = NULL, *merged = malloc((n + 400) * sizeof *merged);
        size_t nold = 0;
        sqlite3_prepare_v2(store_db(st), "SELECT blob FROM rollups WHERE gpu=0 AND metric=? AND t_start=?", -1, &get,
                           NULL);
        sqlite3_bind_int(get, 1, dbid);
        sqlite3_bind_int64(get, 2, WINDOW);
        if (sqlite3_step(get) == SQLITE_ROW)
            assert_int_equal(
                rollup_decode(sqlite3_column_blob(get, 0), (size_t)sqlite3_column_bytes(get, 0), &old, &nold), 0);
        sqlite3_finalize(get);
        size_t mm = rollup_merge(old, nold, r, k, merged);
        buf_clear(&b);
        rollup_encode(&b, merged, mm);
        char del[160];
        snprintf(del, sizeof del, "DELETE FROM rollups WHERE gpu=0 AND metric=%d AND t_start=%lld", dbid, WINDOW);
        sqlite3_exec(store_db(st), del, NULL, NULL, NULL);
        sqlite3_bind_int(ins, 1, dbid);
        sqlite3_bind_int64(ins, 2, WINDOW);
        sqlite3_bind_int64(ins, 3, merged[mm - 1].t);
        sqlite3_bind_int64(ins, 4, (int64_t)mm);
        sqlite3_bind_blob(ins, 5, b.data, (int)b.len, SQLITE_STATIC);
        assert_int_equal(sqlite3_step(ins), SQLITE_DONE);
        sqlite3_reset(ins);
        free(old);
        free(merged);
    }
    sqlite3_finalize(ins);
    buf_release(&b);
}

static void make_format1_file(void)
{
    char err[256];
    store *st = store_open(path, 0, err, sizeof err);
    assert_non_null(st);
    assert_int_equal(store_exec(st, "BEGIN; UPDATE meta SET value='1' WHERE key='format'"), SQLITE_OK);
    write_format1(st, 0, 600, 1);
    write_format1(st, 600, OLD_SEALED, 1);
    write_format1(st, OLD_SEALED, OLD_SEALED + OLD_PIECE, 0);
    assert_int_equal(store_exec(st, "COMMIT"), SQLITE_OK);
    store_close(st);
}

static hq_result query(store *st, metric_id m, int64_t step, hq_agg agg, hq_source src, int upto)
{
    unsigned char sel[HQ_MAX_GPUS] = {1};
    hq_request rq = {.metrics = &m,
                     .nmetrics = 1,
                     .gpus = sel,
                     .from_us = T0,
                     .to_us = T0 + upto * SEC - 1,
                     .step_us = step,
                     .agg = agg,
                     .source = src};
    hq_result r;
    char err[256];
    assert_int_equal(hq_run(st, &rq, &r, err, sizeof err), 0);
    return r;
}

/* Every sample up to `upto` read back bit for bit; roll-ups equal to the raw samples' minutes. */
static void check_file(int upto)
{
    char err[256];
    store *st = store_open(path, 1, err, sizeof err);
    assert_non_null(st);
    for (int m = M_STR_END; m < M_COUNT; m++) {
        hq_result r = query(st, (metric_id)m, 0, AGG_AVG, HQ_RAW, upto);
        size_t k = 0;
        for (int i = 0; i < upto; i++) {
            double v;
            if (!sample_get(&want[i], (metric_id)m, &v))
                continue;
            assert_true(r.n == 1 && k < r.s[0].n);
            assert_int_equal(r.s[0].t[k], (int64_t)want[i].t_us);
            assert_memory_equal(&r.s[0].v[k], &v, sizeof v);
            k++;
        }
        assert_int_equal(r.n ? r.s[0].n : 0, k);
        hq_free(&r);
    }
    const metric_id ms[] = {M_TEMP_GPU, M_POWER_DRAW, M_UTIL_GPU, M_GPM_SM_ACTIVE};
    for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++)
        for (int agg = AGG_AVG; agg <= AGG_LAST; agg++) {
            int minutes = upto / 60 * 60; /* the roll-ups of whole minutes */
            hq_result raw = query(st, ms[i], 60 * SEC, (hq_agg)agg, HQ_RAW, minutes);
            hq_result roll = query(st, ms[i], 60 * SEC, (hq_agg)agg, HQ_ROLLUP, minutes);
            assert_int_equal(roll.n, 1);
            if (roll.s[0].n != raw.s[0].n || roll.s[0].t[0] != raw.s[0].t[0])
                fail_msg("%s agg %d: %zu roll-up points from %lld s, %zu raw from %lld s", catalog_get(ms[i])->field,
                         agg, roll.s[0].n, (long long)((roll.s[0].t[0] - T0) / SEC), raw.s[0].n,
                         (long long)((raw.s[0].t[0] - T0) / SEC));
            for (size_t k = 0; k < raw.s[0].n; k++) {
                assert_int_equal(roll.s[0].t[k], raw.s[0].t[k]);
                assert_float_equal(roll.s[0].v[k], raw.s[0].v[k], 1e-9 * (1 + raw.s[0].v[k]));
            }
            hq_free(&raw);
            hq_free(&roll);
        }
    store_close(st);
}

static int count(const char *sql);

/* The first column of the first row of sql, as text, into out. */
static void text_of(const char *sql, char *out, size_t n)
{
    char err[256];
    store *st = store_open(path, 1, err, sizeof err);
    assert_non_null(st);
    sqlite3_stmt *q = NULL;
    assert_int_equal(sqlite3_prepare_v2(store_db(st), sql, -1, &q, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(q), SQLITE_ROW);
    snprintf(out, n, "%s", (const char *)sqlite3_column_text(q, 0));
    sqlite3_finalize(q);
    store_close(st);
}

static int count(const char *sql)
{
    char err[256];
    store *st = store_open(path, 1, err, sizeof err);
    assert_non_null(st);
    sqlite3_stmt *q = NULL;
    assert_int_equal(sqlite3_prepare_v2(store_db(st), sql, -1, &q, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(q), SQLITE_ROW);
    int n = sqlite3_column_int(q, 0);
    sqlite3_finalize(q);
    store_close(st);
    return n;
}

static void test_format1_file(void **state)
{
    (void)state;
    make_format1_file();
    /* read as it is (a reader does not seal the open piece: it reads it) */
    check_file(OLD_SEALED + OLD_PIECE);
    assert_int_equal(count("SELECT count(*) FROM chunks WHERE metric=-1"), 0);

    /* a writer of this version: seals the piece the killed writer left, merges the window's roll-up
     * rows into its bundle as new minutes come, writes its own groups as bundles */
    history_config cfg;
    history_config_defaults(&cfg);
    cfg.path = path;
    cfg.no_thread = 1;
    char err[256];
    history *h = history_open(&cfg, err, sizeof err);
    assert_non_null(h);
    for (int i = OLD_SEALED + OLD_PIECE; i < TOTAL; i++) {
        history_record_sample(h, 0, NULL, &want[i]);
        if (i % 10 == 9)
            assert_int_equal(history_flush(h), 0);
    }
    history_close(h);
    check_file(TOTAL);
    assert_int_equal(count("SELECT count(*) FROM open_chunks"), 0);
    assert_true(count("SELECT count(*) FROM chunks WHERE metric=-1") > 0);
    assert_true(count("SELECT count(*) FROM chunks WHERE metric>=0") > 0); /* format 1 groups stay as they are */
    assert_int_equal(count("SELECT count(*) FROM rollups WHERE metric>=0"), 0);
    assert_int_equal(count("SELECT count(*) FROM rollups WHERE metric=-1"), 1);
    char ok[256];
    text_of("PRAGMA integrity_check", ok, sizeof ok);
    assert_string_equal(ok, "ok");

    /* retention: both kinds of rows go */
    h = history_open(&cfg, err, sizeof err);
    assert_non_null(h);
    assert_int_equal(history_prune(h, (uint64_t)(T0 + 100ll * 86400 * SEC)), 0);
    history_close(h);
    assert_int_equal(count("SELECT count(*) FROM chunks"), 0);
    assert_int_equal(count("SELECT count(*) FROM rollups"), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_format1_file, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
