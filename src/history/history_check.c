/* history_check.c - `gpuwatch history check FILE`: SQLite's integrity check, then every row of every
 * table read and every coded column decoded, GPU by GPU, so that damage in one place hides nothing
 * else: what is intact (groups, samples and time span per GPU, roll-up windows, process series,
 * events) and what is not. */
#include "history_check.h"
#include "bundle.h"
#include "codec.h"
#include "query.h"
#include "rollup.h"
#include "store.h"
#include "timeparse.h"
#include <stdlib.h>
#include <string.h>

/* What one table holds for one GPU. */
typedef struct tally {
    long rows, bad_rows; /* rows read (decoded or not), rows whose bytes do not decode */
    long good;           /* rows decoded */
    int blocked;         /* SQLite's error when not even the first row could be read */
    long unreadable;     /* stretches SQLite could not read (damaged pages) */
    long long values;    /* samples (chunks), minutes (roll-ups) */
    int64_t t_min, t_max;
} tally;

enum { T_CHUNKS, T_OPEN, T_ROLLUPS, T_PROCS, T_NTABLES };
static const char *const table_names[T_NTABLES] = {"chunks", "open_chunks", "rollups", "proc_chunks"};
static const char *const table_what[T_NTABLES] = {"sealed chunk groups", "open checkpoint pieces", "roll-up windows",
                                                  "process series chunks"};

/* Decodes a timeline and ncols columns of n slots each (ncols < 0: as many as there are bytes);
 * returns the count of timestamps, or -1 when corrupt. */
static long decode_series(const uint8_t *p, size_t len, int ncols)
{
    byte_cursor rd = {p, len, 0, 0};
    size_t cnt = codec_peek_count(&rd), n = 0;
    if (cnt > CODEC_MAX_COUNT)
        return -1;
    int64_t *t = malloc((cnt + 1) * sizeof *t);
    double *v = malloc((cnt + 1) * sizeof *v);
    long rc = t && v && codec_get_times(&rd, t, cnt, &n) == 0 ? (long)n : -1;
    for (int i = 0; rc >= 0 && i < ncols; i++)
        if (codec_get_column(&rd, v, NULL, n) != 0)
            rc = -1;
    free(t);
    free(v);
    return rc;
}

/* A chunk row: a bundle (metric -1: a timeline and columns) or, in format 1, one column (metric 0:
 * the timeline). Returns the samples it holds, or -1 when corrupt. */
static long decode_chunk(int metric, int64_t n, const uint8_t *p, size_t len)
{
    if (metric != STORE_BUNDLE) {
        if (metric == STORE_TIMELINE)
            return decode_series(p, len, 0);
        byte_cursor rd = {p, len, 0, 0};
        double *v = n >= 0 && n <= CODEC_MAX_COUNT ? malloc(((size_t)n + 1) * sizeof *v) : NULL;
        int ok = v && codec_get_column(&rd, v, NULL, (size_t)n) == 0;
        free(v);
        return ok ? 0 : -1;
    }
    bundle_col *cols = malloc(BUNDLE_MAX_COLS * sizeof *cols);
    int nc = cols ? bundle_read(p, len, cols, BUNDLE_MAX_COLS) : -1;
    long count = -1;
    for (int i = 0; i < nc; i++)
        if (cols[i].dbid == STORE_TIMELINE)
            count = decode_series(cols[i].p, cols[i].len, 0);
    for (int i = 0; count >= 0 && i < nc; i++) {
        if (cols[i].dbid == STORE_TIMELINE)
            continue;
        byte_cursor rd = {cols[i].p, cols[i].len, 0, 0};
        double *v = malloc(((size_t)count + 1) * sizeof *v);
        if (!v || codec_get_column(&rd, v, NULL, (size_t)count) != 0)
            count = -1;
        free(v);
    }
    free(cols);
    return count;
}

/* A roll-up row: a window's bundle of every metric's minutes, or (format 1) one metric's. Returns
 * the minute records it holds, or -1 when corrupt. */
static long decode_rollup(int metric, const uint8_t *p, size_t len)
{
    bundle_col *cols = metric == STORE_BUNDLE ? malloc(BUNDLE_MAX_COLS * sizeof *cols) : NULL;
    int nc = cols ? bundle_read(p, len, cols, BUNDLE_MAX_COLS) : metric == STORE_BUNDLE ? -1 : 1;
    long count = nc < 0 ? -1 : 0;
    for (int i = 0; i < nc && count >= 0; i++) {
        rmin *r = NULL;
        size_t n = 0;
        if (rollup_decode(cols ? cols[i].p : p, cols ? cols[i].len : len, &r, &n) != 0)
            count = -1;
        else
            count += (long)n;
        free(r);
    }
    free(cols);
    return count;
}

static long decode_row(int table, int metric, int64_t n, const uint8_t *p, size_t len)
{
    switch (table) {
    case T_CHUNKS:
    case T_OPEN: return decode_chunk(metric, n, p, len);
    case T_ROLLUPS: return decode_rollup(metric, p, len);
    default: return decode_series(p, len, 2);
    }
}

/* Reads every row of one GPU in a table, in key order. Where SQLite cannot read on (a damaged page),
 * it seeks past the damage, a minute further and then twice as far each time, up to a year. */
static void scan_gpu(sqlite3_stmt *q, int table, int gpu, tally *t, FILE *out)
{
    int64_t after = INT64_MIN, jump = MINUTE_US;
    for (;;) {
        sqlite3_bind_int(q, 1, gpu);
        sqlite3_bind_int64(q, 2, after);
        int rc;
        while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
            int metric = sqlite3_column_int(q, 0);
            int64_t t0 = sqlite3_column_int64(q, 1), t1 = sqlite3_column_int64(q, 2);
            const uint8_t *p = sqlite3_column_blob(q, 4);
            size_t len = (size_t)sqlite3_column_bytes(q, 4);
            long k = decode_row(table, metric, sqlite3_column_int64(q, 3), p, len);
            t->rows++;
            after = t0;
            jump = MINUTE_US;
            if (k < 0) {
                char a[40];
                tp_format_rfc3339(t0, a, sizeof a);
                fprintf(out, "  damaged: %s gpu %d %s %d from %s does not decode\n", table_names[table], gpu,
                        table == T_PROCS ? "pid" : "metric", metric, a);
                t->bad_rows++;
                continue;
            }
            t->values += k;
            t->t_min = !t->good || t0 < t->t_min ? t0 : t->t_min;
            t->t_max = !t->good || t1 > t->t_max ? t1 : t->t_max;
            t->good++;
        }
        sqlite3_reset(q);
        if (rc == SQLITE_DONE)
            break;
        if (after == INT64_MIN) { /* the way in is damaged: the caller tells, once for every GPU */
            t->blocked = rc;
            break;
        }
        if (jump == MINUTE_US) {
            char a[40];
            tp_format_rfc3339(after, a, sizeof a);
            t->unreadable++;
            fprintf(out, "  damaged: %s gpu %d: rows after %s cannot be read (%s)\n", table_names[table], gpu, a,
                    sqlite3_errstr(rc));
        }
        if (jump > 366 * 86400ll * 1000000)
            break; /* nothing readable after it */
        after += jump;
        jump *= 2;
    }
}

/* Rows of a small table, and whether all of them could be read. */
static long count_rows(store *st, const char *table, int *damaged)
{
    char sql[80];
    snprintf(sql, sizeof sql, "SELECT * FROM %s", table);
    sqlite3_stmt *q = NULL;
    long n = 0;
    int rc = sqlite3_prepare_v2(store_db(st), sql, -1, &q, NULL);
    if (rc == SQLITE_OK)
        while ((rc = sqlite3_step(q)) == SQLITE_ROW)
            n++;
    sqlite3_finalize(q);
    *damaged = rc != SQLITE_DONE;
    return n;
}

/* SQLite's own check: its first problems, printed; returns how many it found. */
static int integrity(store *st, FILE *out)
{
    sqlite3_stmt *q = NULL;
    int problems = 0;
    if (sqlite3_prepare_v2(store_db(st), "PRAGMA integrity_check(20)", -1, &q, NULL) != SQLITE_OK) {
        fprintf(out, "  sqlite integrity check: cannot run (%s)\n", sqlite3_errmsg(store_db(st)));
        return 1;
    }
    int rc;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        const char *msg = (const char *)sqlite3_column_text(q, 0);
        if (msg && strcmp(msg, "ok") == 0)
            continue;
        if (problems++ < 10)
            fprintf(out, "  sqlite: %s\n", msg ? msg : "?");
    }
    if (rc != SQLITE_DONE) {
        fprintf(out, "  sqlite integrity check stopped: %s\n", sqlite3_errstr(rc));
        problems++;
    }
    sqlite3_finalize(q);
    return problems;
}

int history_check(const char *path, FILE *out)
{
    char err[512];
    store *st = store_open(path, 1, err, sizeof err);
    if (!st) {
        fprintf(out, "%s: cannot be read as a history file: %s\n", path, err);
        return -1;
    }
    fprintf(out, "%s:\n", path);
    int problems = integrity(st, out);
    int damaged = problems > 0;
    for (int table = 0; table < T_NTABLES; table++) {
        tally all = {0};
        char lines[HQ_MAX_GPUS][160];
        int nlines = 0;
        /* Every GPU index, not only those the file lists: the lists may be what is damaged. */
        int blocked = 0, why = 0;
        char sql[200];
        snprintf(sql, sizeof sql,
                 "SELECT %s, t_start, t_end, n, blob FROM %s WHERE gpu=?1 AND t_start>?2 ORDER BY t_start",
                 table == T_PROCS ? "pid" : "metric", table_names[table]);
        sqlite3_stmt *q = NULL;
        if (sqlite3_prepare_v2(store_db(st), sql, -1, &q, NULL) != SQLITE_OK) {
            fprintf(out, "  damaged: %s cannot be read (%s)\n", table_names[table], sqlite3_errmsg(store_db(st)));
            damaged = 1;
            continue;
        }
        for (int g = 0; g < HQ_MAX_GPUS; g++) {
            tally t = {0};
            scan_gpu(q, table, g, &t, out);
            if (t.blocked) {
                blocked++;
                why = t.blocked;
            }
            if (!t.rows)
                continue;
            char a[40] = "-", b[40] = "-";
            if (t.good) {
                tp_format_rfc3339(t.t_min, a, sizeof a);
                tp_format_rfc3339(t.t_max, b, sizeof b);
            }
            snprintf(lines[nlines++], sizeof lines[0], "    gpu %d: %ld intact, %lld %s, %s .. %s", g,
                     t.rows - t.bad_rows, t.values, table == T_ROLLUPS ? "minute records" : "samples", a, b);
            all.rows += t.rows;
            all.bad_rows += t.bad_rows;
            all.unreadable += t.unreadable;
        }
        sqlite3_finalize(q);
        if (blocked) {
            fprintf(out, "  damaged: %s cannot be read for %s (%s)\n", table_names[table],
                    blocked == HQ_MAX_GPUS ? "any GPU" : "some GPUs", sqlite3_errstr(why));
            all.unreadable += blocked == HQ_MAX_GPUS ? 1 : blocked;
        }
        if (all.bad_rows || all.unreadable)
            damaged = 1;
        fprintf(out, "  %s (%s): %ld intact", table_names[table], table_what[table], all.rows - all.bad_rows);
        if (all.bad_rows || all.unreadable)
            fprintf(out, ", %ld damaged, %ld unreadable stretches", all.bad_rows, all.unreadable);
        fprintf(out, "\n");
        for (int i = 0; i < nlines; i++)
            fprintf(out, "%s\n", lines[i]);
    }
    static const char *const small[] = {"events", "gpus", "procs", "metrics", "meta"};
    for (int i = 0; i < 5; i++) {
        int bad;
        long n = count_rows(st, small[i], &bad);
        fprintf(out, "  %s: %ld rows%s\n", small[i], n, bad ? ", then unreadable" : "");
        damaged |= bad;
    }
    fprintf(out, "%s\n",
            damaged ? "damaged: the parts listed as intact can still be read (gpuwatch history reads them)"
                    : "ok: every part of the file reads back");
    store_close(st);
    return damaged ? 1 : 0;
}
