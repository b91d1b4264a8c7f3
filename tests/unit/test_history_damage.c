/* test_history_damage.c - damaged history files: reads return what is intact with a warning (raw
 * samples standing in for damaged roll-ups), roll-ups never repeat raw samples, `history check`
 * reports the damage and what is intact, and a writer whose file is damaged moves it aside and
 * records into a new one. The files are real ones (tests/support/hfile.c) with pages overwritten. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "hfile.h"
#include "history.h"
#include "history_check.h"
#include "history_commands.h"
#include "hsynth.h"
#include "query.h"
#include "util.h"

#define T0 1764673200000000ll /* 2025-12-02T11:00:00Z, a whole minute */
#define SEC 1000000ll
#define SECONDS 1500 /* two sealed 10-minute groups and 5 minutes of open pieces per GPU */

static char dir[64], path[128], damaged[160];

static int setup(void **state)
{
    (void)state;
    gw_log_set_level(GW_LOG_ERROR);
    snprintf(dir, sizeof dir, "/tmp/gw-hist-damage-XXXXXX");
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/h.db", dir);
    snprintf(damaged, sizeof damaged, "%s/d.db", dir);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* The pages of a table (dbstat), at most max; returns how many. */
static int table_pages(const char *file, const char *table, int *pages, int max)
{
    sqlite3 *db;
    sqlite3_stmt *q;
    int n = 0;
    assert_int_equal(sqlite3_open_v2(file, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT pageno FROM dbstat WHERE name=?", -1, &q, NULL), SQLITE_OK);
    sqlite3_bind_text(q, 1, table, -1, SQLITE_STATIC);
    while (sqlite3_step(q) == SQLITE_ROW && n < max)
        pages[n++] = sqlite3_column_int(q, 0);
    sqlite3_finalize(q);
    sqlite3_close(db);
    return n;
}

/* Copies src to dst with every page of table overwritten by byte (after the first 8 bytes of each
 * page: a page whose header survives and whose cells are garbage). */
static void copy_damaged(const char *src, const char *dst, const char *table, int byte)
{
    int pages[256];
    int n = table_pages(src, table, pages, 256);
    assert_true(n > 0);
    FILE *in = fopen(src, "rb"), *out = fopen(dst, "wb");
    assert_non_null(in);
    assert_non_null(out);
    char buf[4096];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, in)) > 0)
        assert_int_equal(fwrite(buf, 1, got, out), got);
    fclose(in);
    char junk[4096 - 8];
    memset(junk, byte, sizeof junk);
    for (int i = 0; i < n; i++) {
        assert_int_equal(fseek(out, (long)(pages[i] - 1) * 4096 + 8, SEEK_SET), 0);
        assert_int_equal(fwrite(junk, 1, sizeof junk, out), sizeof junk);
    }
    fclose(out);
}

static int run_query(const char *file, hq_source src, int64_t from, int64_t to, int64_t step, hq_agg agg,
                     hq_result *res)
{
    static const metric_id metrics[] = {M_POWER_DRAW, M_UTIL_GPU};
    char err[300];
    store *st = store_open(file, 1, err, sizeof err);
    assert_non_null(st);
    hq_request rq = {
        .metrics = metrics, .nmetrics = 2, .from_us = from, .to_us = to, .step_us = step, .agg = agg, .source = src};
    int rc = hq_run(st, &rq, res, err, sizeof err);
    store_close(st);
    return rc;
}

static void assert_same(const hq_result *a, const hq_result *b)
{
    assert_int_equal(a->n, b->n);
    for (size_t i = 0; i < a->n; i++) {
        assert_int_equal(a->s[i].gpu, b->s[i].gpu);
        assert_int_equal(a->s[i].metric, b->s[i].metric);
        assert_int_equal(a->s[i].n, b->s[i].n);
        for (size_t k = 0; k < a->s[i].n; k++) {
            assert_true(a->s[i].t[k] == b->s[i].t[k]);
            assert_true(fabs(a->s[i].v[k] - b->s[i].v[k]) <= 1e-9 * (1 + fabs(b->s[i].v[k])));
        }
    }
}

/* Roll-up pages damaged (their cells, or the overflow pages holding the minutes): a query over a
 * range whose raw samples are kept gives, for every step and aggregate, what the raw samples give,
 * and says the file is damaged; the undamaged file gives the same without a word. */
static void test_rollups_damaged_raw_stands_in(void **state)
{
    (void)state;
    assert_int_equal(hfile_build(path, 2, T0, SECONDS), 0);
    static const int bytes[] = {0xA5, 0x00, 0xFF};
    static const int64_t steps[] = {60 * SEC, 120 * SEC, 300 * SEC};
    for (int b = 0; b < 3; b++) {
        copy_damaged(path, damaged, "rollups", bytes[b]);
        for (int s = 0; s < 3; s++)
            for (int agg = AGG_AVG; agg <= AGG_LAST; agg++) {
                int64_t from = T0 + 7 * s * SEC, to = T0 + (SECONDS - 1 - 13 * s) * SEC;
                hq_result whole, raw, got;
                assert_int_equal(run_query(path, HQ_AUTO, from, to, steps[s], (hq_agg)agg, &whole), 0);
                assert_int_equal(whole.damaged, 0);
                assert_int_equal(run_query(path, HQ_RAW, from, to, steps[s], (hq_agg)agg, &raw), 0);
                assert_int_equal(run_query(damaged, HQ_AUTO, from, to, steps[s], (hq_agg)agg, &got), 0);
                assert_int_equal(got.n, 4); /* 2 GPUs x 2 metrics */
                assert_true(got.damaged > 0);
                assert_same(&got, &raw);
                hq_free(&whole);
                hq_free(&raw);
                hq_free(&got);
            }
    }
}

/* `gpuwatch history` on such a file prints the intact answer, warns and exits 1 (it printed nothing
 * and exited 0 before); on the whole file it exits 0. */
static void test_history_command_warns(void **state)
{
    (void)state;
    assert_int_equal(hfile_build(path, 2, T0, SECONDS), 0);
    copy_damaged(path, damaged, "rollups", 0xA5);
    char *argv_ok[] = {"history",
                       "--db",
                       path,
                       "--metric",
                       "power.draw",
                       "--from",
                       "2025-12-02T11:00:00Z",
                       "--to",
                       "2025-12-02T11:20:00Z",
                       "--step",
                       "2m",
                       "--format",
                       "csv",
                       NULL};
    char *argv_bad[] = {"history",
                        "--db",
                        damaged,
                        "--metric",
                        "power.draw",
                        "--from",
                        "2025-12-02T11:00:00Z",
                        "--to",
                        "2025-12-02T11:20:00Z",
                        "--step",
                        "2m",
                        "--format",
                        "csv",
                        NULL};
    fflush(stdout);
    int saved = dup(1);
    char out[200];
    snprintf(out, sizeof out, "%s/out.csv", dir);
    assert_non_null(freopen(out, "w", stdout));
    int rc_ok = cmd_history(13, argv_ok);
    fflush(stdout);
    long ok_size = ftell(stdout);
    int rc_bad = cmd_history(13, argv_bad);
    fflush(stdout);
    long all_size = ftell(stdout);
    dup2(saved, 1);
    close(saved);
    assert_int_equal(rc_ok, 0);
    assert_int_equal(rc_bad, 1);
    assert_true(ok_size > 100);                     /* header and 11 x 2 rows */
    assert_true(all_size - ok_size >= ok_size / 2); /* the damaged file's answer was printed too */
}

/* The JSON of /api/v1/query_range carries the warning (Prometheus's "warnings") with status 200. */
static void test_query_range_warning(void **state)
{
    (void)state;
    assert_int_equal(hfile_build(path, 2, T0, SECONDS), 0);
    copy_damaged(path, damaged, "rollups", 0x00);
    int status = 0;
    char *json = history_query_range_json(damaged, "power.draw", "0", NULL, "2025-12-02T11:00:00Z",
                                          "2025-12-02T11:20:00Z", "1m", "avg", &status);
    assert_non_null(json);
    assert_int_equal(status, 200);
    assert_non_null(strstr(json, "\"warnings\":[\"the history file is damaged"));
    assert_non_null(strstr(json, "\"values\":[[1764673200,"));
    free(json);
    json = history_query_range_json(path, "power.draw", "0", NULL, "2025-12-02T11:00:00Z", "2025-12-02T11:20:00Z", "1m",
                                    "avg", &status);
    assert_int_equal(status, 200);
    assert_null(strstr(json, "warnings"));
    free(json);
}

/* Chunks damaged: what is left (the open pieces) is returned, with the warning. */
static void test_chunks_damaged_rest_returned(void **state)
{
    (void)state;
    assert_int_equal(hfile_build(path, 2, T0, SECONDS), 0);
    copy_damaged(path, damaged, "chunks", 0x5A);
    hq_result got;
    assert_int_equal(run_query(damaged, HQ_RAW, T0, T0 + SECONDS * SEC, 0, AGG_AVG, &got), 0);
    assert_true(got.damaged > 0);
    assert_true(got.n >= 1);
    for (size_t i = 0; i < got.n; i++) /* the open pieces: the last 5 minutes, every second */
        for (size_t k = 0; k < got.s[i].n; k++)
            assert_true(got.s[i].t[k] >= T0 + 1200 * SEC);
    hq_free(&got);
}

/* The agent started mid-minute: the roll-up minute it started in holds only samples the raw data
 * holds too. For every step below a minute, no bucket counts a sample twice: the points are the raw
 * samples' (step 0) or their buckets', never a roll-up point before them. */
static void test_rollups_never_repeat_raw(void **state)
{
    (void)state;
    static const int starts[] = {1, 30, 59};
    static const int64_t steps[] = {0, 10 * SEC, 30 * SEC};
    for (int i = 0; i < 3; i++) {
        int64_t t_start = T0 + starts[i] * SEC;
        assert_int_equal(hfile_build(path, 1, t_start, 700), 0); /* sealed 11:00-11:10, open after */
        for (int s = 0; s < 3; s++) {
            hq_result autos, raw;
            int64_t from = T0 - 300 * SEC, to = T0 + 650 * SEC;
            assert_int_equal(run_query(path, HQ_AUTO, from, to, steps[s], AGG_AVG, &autos), 0);
            assert_int_equal(run_query(path, HQ_RAW, from, to, steps[s], AGG_AVG, &raw), 0);
            assert_same(&autos, &raw);
            assert_true(autos.s[0].t[0] >= from);
            if (steps[s] == 0)
                assert_true(autos.s[0].t[0] == t_start);
            hq_free(&autos);
            hq_free(&raw);
        }
    }
}

/* history_check: 0 and "ok" for a whole file; 1 with the damage and what is intact for a damaged
 * one; -1 for a file that is not a history at all. */
static void test_check(void **state)
{
    (void)state;
    assert_int_equal(hfile_build(path, 2, T0, SECONDS), 0);
    char report[200];
    snprintf(report, sizeof report, "%s/report.txt", dir);
    FILE *f = fopen(report, "w+");
    assert_non_null(f);
    assert_int_equal(history_check(path, f), 0);
    static const char *const tables[] = {"rollups", "chunks", "open_chunks", "proc_chunks"};
    for (int t = 0; t < 4; t++) {
        copy_damaged(path, damaged, tables[t], 0xA5);
        assert_int_equal(ftruncate(fileno(f), 0), 0);
        rewind(f);
        assert_int_equal(history_check(damaged, f), 1);
        fflush(f);
        rewind(f);
        char text[8192] = "";
        size_t got = fread(text, 1, sizeof text - 1, f);
        text[got] = 0;
        char want[80];
        snprintf(want, sizeof want, "damaged: %s", tables[t]);
        assert_non_null(strstr(text, want));
        if (t != 1) /* the sealed groups are intact unless they are the damage */
            assert_non_null(strstr(text, "chunks (sealed chunk groups): 4 intact"));
        assert_non_null(strstr(text, "events: 49 rows"));
    }
    FILE *junk = fopen(damaged, "wb");
    fputs("not a database, not at all, but long enough to look at", junk);
    fclose(junk);
    assert_int_equal(history_check(damaged, f), -1);
    fclose(f);
}

static history *open_writer(void)
{
    history_config cfg;
    history_config_defaults(&cfg);
    cfg.path = path;
    cfg.no_thread = 1;
    char err[256];
    history *h = history_open(&cfg, err, sizeof err);
    assert_non_null(h);
    return h;
}

static void record(history *h, hsynth_gpu *sg, int from, int to)
{
    for (int i = from; i < to; i++) {
        gpu_sample s;
        gpu_info info;
        hsynth_sample(sg, 0, T0 + i * SEC, &s);
        hsynth_info(0, &info);
        history_record_sample(h, 0, &info, &s);
    }
}

/* The files in dir whose name starts with h.db.damaged- (and not -wal). */
static int moved_aside(void)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    while ((e = readdir(d)))
        n += strncmp(e->d_name, "h.db.damaged-", 13) == 0 && !strstr(e->d_name, "-wal");
    closedir(d);
    return n;
}

/* A writer whose file is damaged, in its header (not a database any more) or in the pages its
 * writes go through: the flush moves the file aside, logs, counts it, and writes into a new file,
 * which then holds the new samples and the GPU's identity. */
static void test_writer_moves_damaged_file(void **state)
{
    (void)state;
    for (int mode = 0; mode < 2; mode++) {
        unlink(path);
        history *h = open_writer();
        hsynth_gpu sg;
        hsynth_init(&sg, 0);
        record(h, &sg, 0, 700);
        assert_int_equal(history_flush(h), 0);
        history_close(h);
        if (mode == 0) {
            FILE *f = fopen(path, "r+b");
            fwrite("garbage garbage!", 1, 16, f); /* the header: "SQLite format 3\0" */
            fclose(f);
        } else {
            copy_damaged(path, damaged, "chunks", 0xA5);
            assert_int_equal(rename(damaged, path), 0);
        }
        int before = moved_aside();
        h = open_writer();
        record(h, &sg, 700, 1400);
        int rc = history_flush(h);
        history_stats st;
        history_get_stats(h, &st);
        history_close(h);
        assert_int_equal(rc, 0);
        assert_int_equal(st.damaged_files, 1);
        assert_int_equal(moved_aside(), before + 1);
        hq_result res;
        assert_int_equal(run_query(path, HQ_RAW, T0 + 700 * SEC, T0 + 1400 * SEC, 0, AGG_AVG, &res), 0);
        assert_int_equal(res.damaged, 0);
        assert_int_equal(res.n, 2);
        assert_int_equal(res.s[0].n, 700); /* every new sample */
        hq_free(&res);
        char out[200];
        snprintf(out, sizeof out, "%s/check.txt", dir);
        FILE *f = fopen(out, "w");
        assert_int_equal(history_check(path, f), 0);
        fclose(f);
        int status;
        char *json = history_query_range_json(path, "power.draw", "0", NULL, "2025-12-02T11:12:00Z",
                                              "2025-12-02T11:13:00Z", NULL, NULL, &status);
        assert_non_null(strstr(json, "\"UUID\":\"GPU-")); /* the identity was written again */
        free(json);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_rollups_damaged_raw_stands_in, setup, teardown),
        cmocka_unit_test_setup_teardown(test_history_command_warns, setup, teardown),
        cmocka_unit_test_setup_teardown(test_query_range_warning, setup, teardown),
        cmocka_unit_test_setup_teardown(test_chunks_damaged_rest_returned, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rollups_never_repeat_raw, setup, teardown),
        cmocka_unit_test_setup_teardown(test_check, setup, teardown),
        cmocka_unit_test_setup_teardown(test_writer_moves_damaged_file, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
