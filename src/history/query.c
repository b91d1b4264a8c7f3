/* query.c - range queries: decodes the chunks (or roll-up rows) overlapping [from, to] and folds
 * their points into step-wide buckets with min/max/avg/last; expressions and percentiles are read
 * sample by sample from the raw chunks. */
#include "query.h"
#include "bundle.h"
#include "codec.h"
#include "rollup.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HQ_LOOKBACK_US (86400ll * 1000000) /* no chunk spans more than a day */

static const char *const agg_names[] = {"avg", "min", "max", "last", "p50", "p90", "p95", "p99"};
#define NAGG ((int)(sizeof agg_names / sizeof *agg_names))

int hq_parse_agg(const char *s, hq_agg *out)
{
    for (int i = 0; i < NAGG; i++)
        if (strcmp(s, agg_names[i]) == 0) {
            *out = (hq_agg)i;
            return 0;
        }
    return -1;
}

const char *hq_agg_name(hq_agg a)
{
    return (int)a >= 0 && (int)a < NAGG ? agg_names[a] : "avg";
}

int hq_agg_needs_samples(hq_agg a)
{
    return a >= AGG_P50;
}

int hq_item_needs_samples(const hq_request *rq, int i)
{
    return hq_agg_needs_samples(rq->agg) || (rq->exprs && !mexpr_is_field(&rq->exprs[i]));
}

static metric_id item_metric(const hq_request *rq, int i)
{
    return rq->exprs ? rq->exprs[i].metrics[0] : rq->metrics[i];
}

const char *hq_series_name(const hq_request *rq, const hq_series *s)
{
    if (rq->exprs && !mexpr_is_field(&rq->exprs[s->item]))
        return rq->exprs[s->item].text;
    return catalog_get(s->metric)->field;
}

const char *hq_series_unit(const hq_request *rq, const hq_series *s)
{
    if (rq->exprs && !mexpr_is_field(&rq->exprs[s->item]))
        return NULL;
    return catalog_get(s->metric)->unit;
}

/* Start of the step-wide bucket holding t: a multiple of step in Unix time. */
static int64_t bucket_of(int64_t t, int64_t step)
{
    if (step <= 0)
        return t;
    int64_t q = t / step;
    if (t % step < 0)
        q--;
    return q * step;
}

/* Folds points (or minute records) into buckets of one series. */
typedef struct folder {
    const hq_request *rq;
    int64_t lo, hi; /* the part of [from, to] this pass may fill */
    hq_series *out;
    int open;
    int64_t bucket;
    double n, min, max, sum, last;
    int oom;
    long damaged; /* rows of [lo, hi] that could not be read or decoded */
} folder;

static void emit(folder *f, int64_t t, double v)
{
    hq_series *s = f->out;
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 256;
        int64_t *nt = realloc(s->t, cap * sizeof *nt);
        if (nt)
            s->t = nt;
        double *nv = nt ? realloc(s->v, cap * sizeof *nv) : NULL;
        if (!nv) {
            f->oom = 1;
            return;
        }
        s->v = nv;
        s->cap = cap;
    }
    s->t[s->n] = t;
    s->v[s->n++] = v;
}

static void fold_close(folder *f)
{
    if (!f->open)
        return;
    double v = f->rq->agg == AGG_MIN    ? f->min
               : f->rq->agg == AGG_MAX  ? f->max
               : f->rq->agg == AGG_LAST ? f->last
                                        : f->sum / f->n;
    emit(f, f->bucket, v);
    f->open = 0;
}

static void fold(folder *f, int64_t t, double n, double min, double max, double sum, double last)
{
    if (t < f->lo || t > f->hi)
        return;
    int64_t step = f->rq->step_us;
    int64_t b = bucket_of(t, step);
    if (f->open && b != f->bucket)
        fold_close(f);
    if (!f->open) {
        f->open = 1;
        f->bucket = b;
        f->n = n;
        f->min = min;
        f->max = max;
        f->sum = sum;
        f->last = last;
        return;
    }
    f->n += n;
    if (min < f->min)
        f->min = min;
    if (max > f->max)
        f->max = max;
    f->sum += sum;
    f->last = last;
}

/* Value of metric m from a stored column value (bit metrics are read from their bitmask). */
static double derive(metric_id m, double v)
{
    const metric_def *d = catalog_get(m);
    return d->flags & MF_BIT ? (((uint64_t)v & d->bit) ? 1.0 : 0.0) : v;
}

/* Two columns of a sealed group's bundle (row id rowid of chunks) read through an incremental blob
 * handle (*bh, opened on first use, reopened per row): only the pages of the directory and of the
 * columns, not the whole group's (in an auto-vacuum file, SQLite finds an overflow page from the
 * pointer map without reading the pages before it). Returns 1, 0 when the group lacks the metric,
 * -1 on an error. */
static int read_sealed(sqlite3 *db, sqlite3_blob **bh, int64_t rowid, int dbid, gw_buf *tb, gw_buf *cb)
{
    int rc = *bh ? sqlite3_blob_reopen(*bh, rowid) : sqlite3_blob_open(db, "main", "chunks", "blob", rowid, 0, bh);
    if (rc != SQLITE_OK) {
        sqlite3_blob_close(*bh);
        *bh = NULL;
        return -1;
    }
    size_t total = (size_t)sqlite3_blob_bytes(*bh), head = 512, off[2], len[2];
    int ids[2] = {STORE_TIMELINE, dbid};
    gw_buf *out[2] = {tb, cb};
    for (;;) { /* the directory: a few hundred bytes */
        if (head > total)
            head = total;
        buf_clear(tb);
        if (buf_reserve(tb, head) != 0 || sqlite3_blob_read(*bh, tb->data, (int)head, 0) != SQLITE_OK)
            return -1;
        int a = bundle_locate(tb->data, head, ids[0], &off[0], &len[0]);
        if (a == BUNDLE_SHORT && head < total) {
            head *= 4;
            continue;
        }
        int b = a == 1 ? bundle_locate(tb->data, head, ids[1], &off[1], &len[1]) : a;
        if (b != 1)
            return b == 0 ? 0 : -1;
        break;
    }
    for (int i = 0; i < 2; i++) {
        buf_clear(out[i]);
        if (off[i] > total || len[i] > total - off[i] || buf_reserve(out[i], len[i]) != 0 ||
            sqlite3_blob_read(*bh, out[i]->data, (int)len[i], (int)off[i]) != SQLITE_OK)
            return -1;
        out[i]->len = len[i];
    }
    return 1;
}

/* Which raw rows fold_raw reads. */
enum { RAW_ALL, RAW_OPEN_ONLY, RAW_SEALED_ONLY };

/* Raw chunk groups of (gpu, stored metric) overlapping the range, sealed ones and checkpoints of
 * open ones (or only one kind), folded in time order. */
static int fold_raw(store *st, int gpu, metric_id m, int which, folder *f)
{
    const metric_def *d = catalog_get(m);
    int dbid = store_metric_id(st, d->flags & MF_BIT ? d->parent : m);
    if (!dbid)
        return 0;
        /* format 2: a bundle row per group or piece (its timeline and columns); format 1: a timeline row
     * joined with the metric's row */
#define RAW_OLD(table)                                                                                        \
    "SELECT t.blob, c.blob, t.t_start, NULL FROM " table " t JOIN " table " c ON c.gpu=t.gpu AND c.metric=?2" \
    " AND c.t_start=t.t_start WHERE t.gpu=?1 AND t.metric=0 AND t.t_start>=?3 AND t.t_start<=?4 AND t.t_end>=?5"
#define RAW_WHERE " WHERE gpu=?1 AND metric=-1 AND t_start>=?3 AND t_start<=?4 AND t_end>=?5"
#define RAW_SEALED "SELECT NULL, NULL, t_start, id FROM chunks" RAW_WHERE
#define RAW_PIECES "SELECT blob, NULL, t_start, NULL FROM open_chunks" RAW_WHERE
    static const char *const sql[3] = {
        RAW_SEALED " UNION ALL " RAW_OLD("chunks") " UNION ALL " RAW_PIECES
                                                   " UNION ALL " RAW_OLD("open_chunks") " ORDER BY 3",
        RAW_PIECES " UNION ALL " RAW_OLD("open_chunks") " ORDER BY 3",
        RAW_SEALED " UNION ALL " RAW_OLD("chunks") " ORDER BY 3"};
    static const store_query ids[3] = {SQ_RAW, SQ_RAW_OPEN, SQ_RAW_SEALED};
    sqlite3_stmt *q = store_query_stmt(st, ids[which], sql[which]);
    if (!q)
        return -1;
    sqlite3_bind_int(q, 1, gpu);
    sqlite3_bind_int(q, 2, dbid);
    sqlite3_bind_int64(q, 3, f->lo - HQ_LOOKBACK_US);
    sqlite3_bind_int64(q, 4, f->hi);
    sqlite3_bind_int64(q, 5, f->lo);
    int64_t *t = NULL;
    double *v = NULL;
    uint8_t *pres = NULL;
    size_t cap = 0;
    int rc = 0;
    sqlite3_blob *bh = NULL;
    gw_buf tb = {0}, cb = {0};
    int step;
    while ((step = sqlite3_step(q)) == SQLITE_ROW && !f->oom) {
        byte_cursor tr = {sqlite3_column_blob(q, 0), (size_t)sqlite3_column_bytes(q, 0), 0, 0};
        byte_cursor cr = {sqlite3_column_blob(q, 1), (size_t)sqlite3_column_bytes(q, 1), 0, 0};
        if (sqlite3_column_type(q, 3) != SQLITE_NULL) { /* a sealed group's bundle */
            int found = read_sealed(store_db(st), &bh, sqlite3_column_int64(q, 3), dbid, &tb, &cb);
            if (found != 1) {
                f->damaged += found < 0;
                continue;
            }
            tr = (byte_cursor){(const uint8_t *)tb.data, tb.len, 0, 0};
            cr = (byte_cursor){(const uint8_t *)cb.data, cb.len, 0, 0};
        } else if (sqlite3_column_type(q, 1) == SQLITE_NULL) { /* a piece's bundle */
            const void *b = tr.p;
            size_t blen = tr.len;
            int a = bundle_find(b, blen, STORE_TIMELINE, &tr.p, &tr.len);
            int c = a == 1 ? bundle_find(b, blen, dbid, &cr.p, &cr.len) : a;
            if (c != 1) {
                f->damaged += a != 1 || c < 0; /* a group without the metric is not damage */
                continue;
            }
        }
        size_t cnt = codec_peek_count(&tr), n = 0;
        if (cnt > CODEC_MAX_COUNT) {
            f->damaged++;
            continue;
        }
        if (cnt > cap) {
            cap = cnt;
            free(t);
            free(v);
            free(pres);
            t = malloc(cap * sizeof *t);
            v = malloc(cap * sizeof *v);
            pres = malloc(cap);
            if (!t || !v || !pres) {
                rc = -1;
                cap = 0;
                break;
            }
        }
        if (codec_get_times(&tr, t, cnt, &n) != 0 || codec_get_column(&cr, v, pres, n) != 0) {
            f->damaged++;
            continue;
        }
        for (size_t i = 0; i < n; i++)
            if (pres[i]) {
                double x = derive(m, v[i]);
                fold(f, t[i], 1, x, x, x, x);
            }
    }
    int unreadable = step != SQLITE_ROW && step != SQLITE_DONE;
    sqlite3_reset(q);
    sqlite3_blob_close(bh);
    buf_release(&tb);
    buf_release(&cb);
    free(t);
    free(v);
    free(pres);
    if (unreadable) { /* SQLite could not read on: a damaged page */
        f->damaged++;
        if (rc == 0 && which == RAW_ALL && f->out->n == 0 && !f->open) {
            /* The sorted union failed before its first row: the sealed groups and the open pieces
             * each on their own, so that the damage in one hides nothing of the other. */
            rc = fold_raw(st, gpu, m, RAW_SEALED_ONLY, f);
            if (rc == 0)
                rc = fold_raw(st, gpu, m, RAW_OPEN_ONLY, f);
        }
    }
    return rc;
}

/* Roll-up rows of (gpu, metric) overlapping the range. */
static int fold_rollup_rows(store *st, int gpu, metric_id m, folder *f)
{
    int dbid = store_metric_id(st, m);
    if (dbid) {
        /* the window's bundle (format 2) or the metric's own row (format 1) */
        sqlite3_stmt *q = store_query_stmt(st, SQ_ROLLUP_ROWS,
                                           "SELECT blob, metric FROM rollups WHERE gpu=?1 AND metric IN (?2, -1)"
                                           " AND t_start>=?3 AND t_start<=?4 ORDER BY t_start");
        if (!q)
            return -1;
        sqlite3_bind_int(q, 1, gpu);
        sqlite3_bind_int(q, 2, dbid);
        sqlite3_bind_int64(q, 3, f->lo - ROLLUP_SPAN_US);
        sqlite3_bind_int64(q, 4, f->hi);
        int step;
        while ((step = sqlite3_step(q)) == SQLITE_ROW) {
            rmin *r = NULL;
            size_t n = 0;
            const uint8_t *p = sqlite3_column_blob(q, 0);
            size_t len = (size_t)sqlite3_column_bytes(q, 0);
            if (sqlite3_column_int(q, 1) == STORE_BUNDLE) {
                int found = bundle_find(p, len, dbid, &p, &len);
                if (found != 1) {
                    f->damaged += found < 0;
                    continue;
                }
            }
            if (rollup_decode(p, len, &r, &n) != 0) {
                f->damaged++;
                continue;
            }
            for (size_t i = 0; i < n; i++)
                fold(f, r[i].t, r[i].n, r[i].min, r[i].max, r[i].sum, r[i].last);
            free(r);
        }
        if (step != SQLITE_DONE)
            f->damaged++;
        sqlite3_reset(q);
    }
    return 0;
}

/* Sealed groups of the range whose 6-hour window has no roll-up row: a group's minutes are merged
 * into its window's row in the transaction that writes the group, so a missing row is a damaged one
 * (pages wiped to zeros read as rows of NULLs, which no look-up finds, rather than as an error).
 * Returns how many windows are missing. */
static long missing_rollups(store *st, int gpu, const folder *f)
{
    sqlite3_stmt *q =
        store_query_stmt(st, SQ_ROLLUP_WINDOWS,
                         "SELECT DISTINCT t_start - t_start % ?5 FROM chunks WHERE gpu=?1 AND metric IN (0, -1)"
                         " AND t_start>=?2 AND t_start<=?3 AND t_end>=?4");
    sqlite3_stmt *has = store_query_stmt(st, SQ_ROLLUP_HAS, "SELECT 1 FROM rollups WHERE gpu=?1 AND t_start=?2");
    if (!q || !has)
        return 1;
    sqlite3_bind_int(q, 1, gpu);
    sqlite3_bind_int64(q, 2, f->lo - HQ_LOOKBACK_US);
    sqlite3_bind_int64(q, 3, f->hi);
    sqlite3_bind_int64(q, 4, f->lo);
    sqlite3_bind_int64(q, 5, ROLLUP_SPAN_US);
    long missing = 0;
    int step;
    while ((step = sqlite3_step(q)) == SQLITE_ROW) {
        sqlite3_bind_int(has, 1, gpu);
        sqlite3_bind_int64(has, 2, sqlite3_column_int64(q, 0));
        missing += sqlite3_step(has) != SQLITE_ROW;
        sqlite3_reset(has);
    }
    missing += step != SQLITE_DONE;
    sqlite3_reset(q);
    return missing;
}

/* Roll-ups, completed with the open chunks (not rolled up yet). */
static int fold_rollups(store *st, int gpu, metric_id m, folder *f)
{
    int rc = fold_rollup_rows(st, gpu, m, f);
    return rc == 0 ? fold_raw(st, gpu, m, RAW_OPEN_ONLY, f) : rc;
}

/* Process series: proc_chunks of (gpu, pid); memory.used and utilization.gpu are its two columns. */
static int fold_proc(store *st, int gpu, unsigned pid, metric_id m, folder *f)
{
    sqlite3_stmt *q = store_query_stmt(st, SQ_PROC,
                                       "SELECT blob FROM proc_chunks WHERE gpu=? AND pid=? AND t_start>=?"
                                       " AND t_start<=? AND t_end>=? ORDER BY t_start");
    if (!q)
        return -1;
    sqlite3_bind_int(q, 1, gpu);
    sqlite3_bind_int64(q, 2, pid);
    sqlite3_bind_int64(q, 3, f->lo - HQ_LOOKBACK_US);
    sqlite3_bind_int64(q, 4, f->hi);
    sqlite3_bind_int64(q, 5, f->lo);
    int rc = 0, step;
    while ((step = sqlite3_step(q)) == SQLITE_ROW) {
        byte_cursor rd = {sqlite3_column_blob(q, 0), (size_t)sqlite3_column_bytes(q, 0), 0, 0};
        size_t cnt = codec_peek_count(&rd), n = 0;
        if (cnt > CODEC_MAX_COUNT) {
            f->damaged++;
            continue;
        }
        int64_t *t = malloc((cnt + 1) * sizeof *t);
        double *v = malloc((cnt + 1) * sizeof *v);
        uint8_t *pres = malloc(cnt + 1);
        int ok = t && v && pres && codec_get_times(&rd, t, cnt, &n) == 0 && codec_get_column(&rd, v, pres, n) == 0;
        if (ok && m == M_UTIL_GPU)
            ok = codec_get_column(&rd, v, pres, n) == 0;
        f->damaged += t && v && pres && !ok;
        for (size_t i = 0; ok && i < n; i++)
            if (pres[i])
                fold(f, t[i], 1, v[i], v[i], v[i], v[i]);
        free(t);
        free(v);
        free(pres);
    }
    if (step != SQLITE_DONE)
        f->damaged++;
    sqlite3_reset(q);
    return rc;
}

int hq_gpu_names_read(store *st, hq_gpu_names *out)
{
    unsigned char sel[HQ_MAX_GPUS];
    memset(out, 0, HQ_MAX_GPUS * sizeof *out);
    if (hq_gpus(st, sel) < 0)
        return -1;
    int n = 0;
    for (int g = 0; g < HQ_MAX_GPUS; g++)
        n = sel[g] ? g + 1 : n;
    sqlite3_stmt *q = NULL;
    if (sqlite3_prepare_v2(store_db(st), "SELECT idx, uuid, pci_bus_id FROM gpus", -1, &q, NULL) != SQLITE_OK)
        return n;
    while (sqlite3_step(q) == SQLITE_ROW) {
        int g = sqlite3_column_int(q, 0);
        const char *uuid = (const char *)sqlite3_column_text(q, 1), *bus = (const char *)sqlite3_column_text(q, 2);
        if (g < 0 || g >= HQ_MAX_GPUS)
            continue;
        snprintf(out[g].uuid, sizeof out[g].uuid, "%s", uuid ? uuid : "");
        snprintf(out[g].bus_id, sizeof out[g].bus_id, "%s", bus ? bus : "");
    }
    sqlite3_finalize(q);
    return n;
}

int hq_gpus(store *st, unsigned char *sel)
{
    memset(sel, 0, HQ_MAX_GPUS);
    int n = 0;
    /* The next GPU after ?1 with anything recorded: one index seek per table (every chunk group and
     * checkpoint has a timeline row, so any row of a GPU's says it has one), repeated per GPU. */
    sqlite3_stmt *q = store_query_stmt(st, SQ_GPUS,
                                       "SELECT min(x) FROM (SELECT min(idx) AS x FROM gpus WHERE idx>?1"
                                       " UNION ALL SELECT min(gpu) FROM chunks WHERE gpu>?1"
                                       " UNION ALL SELECT min(gpu) FROM open_chunks WHERE gpu>?1"
                                       " UNION ALL SELECT min(gpu) FROM rollups WHERE gpu>?1"
                                       " UNION ALL SELECT min(gpu) FROM procs WHERE gpu>?1)");
    if (!q)
        return 0;
    int g = -1;
    for (;;) {
        sqlite3_bind_int(q, 1, g);
        int step = sqlite3_step(q);
        if (step != SQLITE_ROW) {
            n = -1; /* a damaged page on the way */
            break;
        }
        if (sqlite3_column_type(q, 0) == SQLITE_NULL)
            break;
        g = sqlite3_column_int(q, 0);
        sqlite3_reset(q);
        if (g >= HQ_MAX_GPUS)
            break;
        if (g >= 0 && !sel[g]) {
            sel[g] = 1;
            n++;
        }
    }
    sqlite3_reset(q);
    return n;
}

/* Start of the oldest raw data of a GPU (sealed or open), INT64_MAX when there is none, INT64_MIN
 * when it cannot be read (damage). */
static int64_t oldest_raw(store *st, int gpu)
{
    int64_t t = INT64_MIN;
    sqlite3_stmt *q =
        store_query_stmt(st, SQ_OLDEST_RAW,
                         "SELECT min(x) FROM (SELECT min(t_start) AS x FROM chunks WHERE gpu=?1"
                         " AND metric=0 UNION ALL SELECT min(t_start) FROM chunks WHERE gpu=?1 AND metric=-1"
                         " UNION ALL SELECT min(t_start) FROM open_chunks WHERE gpu=?1 AND metric=0"
                         " UNION ALL SELECT min(t_start) FROM open_chunks WHERE gpu=?1 AND metric=-1)");
    if (q) {
        sqlite3_bind_int(q, 1, gpu);
        if (sqlite3_step(q) == SQLITE_ROW)
            t = sqlite3_column_type(q, 0) != SQLITE_NULL ? sqlite3_column_int64(q, 0) : INT64_MAX;
        sqlite3_reset(q);
    }
    return t;
}

/* Roll-ups for the part of the range before the raw data kept, raw samples for the rest. A roll-up
 * minute holds every sample of its minute, so the minute in which the raw data starts is left to
 * the raw samples (a bucket never counts a sample twice); what of that minute was before the raw
 * data (a group retention deleted) is then not shown. */
static int fold_split(store *st, const hq_request *rq, int g, metric_id m, folder *f, int *used_rollups)
{
    int64_t raw_start = oldest_raw(st, g);
    if (raw_start == INT64_MIN) { /* cannot tell where the raw data starts: read it all */
        f->damaged++;
        return fold_raw(st, g, m, RAW_ALL, f);
    }
    if (rq->from_us < raw_start) {
        int64_t minute = raw_start == INT64_MAX ? 0 : raw_start - (raw_start % MINUTE_US + MINUTE_US) % MINUTE_US;
        f->hi = raw_start == INT64_MAX ? rq->to_us : (minute - 1 < rq->to_us ? minute - 1 : rq->to_us);
        size_t before = f->out->n + (size_t)f->open;
        int rc = fold_rollup_rows(st, g, m, f);
        if (rc)
            return rc;
        if (f->out->n + (size_t)f->open > before)
            *used_rollups = 1;
        f->lo = raw_start > rq->from_us ? raw_start : rq->from_us;
        f->hi = rq->to_us;
    }
    return raw_start == INT64_MAX ? 0 : fold_raw(st, g, m, RAW_ALL, f);
}

/* One series: per-process, roll-ups, raw, or (auto, short steps) roll-ups for the part of the
 * range older than the raw data kept and raw samples for the rest. Auto with steps of a minute or
 * more reads the roll-ups; where they are damaged, it reads again as for short steps, so that the
 * raw samples kept stand in for them. */
static int fold_series(store *st, const hq_request *rq, int g, metric_id m, folder *f, int *used_rollups)
{
    if (rq->pid)
        return fold_proc(st, g, rq->pid, m, f);
    if (rq->source == HQ_RAW)
        return fold_raw(st, g, m, RAW_ALL, f);
    if (rq->source == HQ_ROLLUP || rq->step_us >= MINUTE_US) {
        int rc = fold_rollups(st, g, m, f);
        if (rc == 0)
            f->damaged += missing_rollups(st, g, f);
        if (rc != 0 || f->oom || !f->damaged || rq->source == HQ_ROLLUP) {
            *used_rollups = 1;
            return rc;
        }
        f->out->n = 0; /* again, raw samples standing in for the damaged roll-ups (still counted) */
        f->open = 0;
        f->lo = rq->from_us;
        f->hi = rq->to_us;
    }
    return fold_split(st, rq, g, m, f, used_rollups);
}

/* Every raw sample of (gpu, metric) in the range (or of the request's process), into pts. */
static int collect(store *st, const hq_request *rq, int g, metric_id m, hq_series *pts, long *damaged)
{
    hq_request each = *rq;
    each.step_us = 0;
    each.agg = AGG_LAST;
    folder f = {.rq = &each, .out = pts, .lo = rq->from_us, .hi = rq->to_us};
    int rc = rq->pid ? fold_proc(st, g, rq->pid, m, &f) : fold_raw(st, g, m, RAW_ALL, &f);
    fold_close(&f);
    *damaged += f.damaged;
    return rc != 0 || f.oom ? -1 : 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The aggregate of a bucket's values v[0..n) (n > 0, in time order; percentiles sort v). */
static double reduce(hq_agg a, double *v, size_t n)
{
    double r = v[0];
    switch (a) {
    case AGG_MIN:
        for (size_t i = 1; i < n; i++)
            r = v[i] < r ? v[i] : r;
        return r;
    case AGG_MAX:
        for (size_t i = 1; i < n; i++)
            r = v[i] > r ? v[i] : r;
        return r;
    case AGG_LAST: return v[n - 1];
    case AGG_P50:
    case AGG_P90:
    case AGG_P95:
    case AGG_P99: {
        double q = a == AGG_P50 ? 0.5 : a == AGG_P90 ? 0.9 : a == AGG_P95 ? 0.95 : 0.99;
        qsort(v, n, sizeof *v, cmp_double);
        double rank = q * (double)(n - 1);
        size_t lo = (size_t)floor(rank), hi = (size_t)ceil(rank);
        return v[lo] + (v[hi] - v[lo]) * (rank - (double)lo);
    }
    case AGG_AVG: break;
    }
    for (size_t i = 1; i < n; i++)
        r += v[i];
    return r / (double)n;
}

/* Item i of the request on GPU g, sample by sample: its fields' raw samples joined on time, the
 * expression evaluated on each (NaN where a field has no value), then bucketed (a bucket's NaN
 * values left out; a bucket of NaN only is NaN). */
static int fold_samples(store *st, const hq_request *rq, int g, int i, hq_series *s, long *damaged)
{
    metric_expr one;
    const metric_expr *e = rq->exprs ? &rq->exprs[i] : &one;
    if (!rq->exprs) {
        memset(&one, 0, sizeof one);
        one.metrics[0] = rq->metrics[i];
        one.nmetrics = 1;
        one.code[0] = (mexpr_op){'m', 0, 0};
        one.ncode = 1;
    }
    hq_series pts[MEXPR_MAX_METRICS];
    size_t pos[MEXPR_MAX_METRICS] = {0};
    double vals[MEXPR_MAX_METRICS];
    memset(pts, 0, sizeof pts);
    folder fo = {.rq = rq, .out = s};
    double *bv = NULL;
    size_t bn = 0, bcap = 0;
    int64_t bucket = 0;
    int open = 0, rc = 0;
    for (int k = 0; k < e->nmetrics && rc == 0; k++)
        rc = collect(st, rq, g, e->metrics[k], &pts[k], damaged);
    while (rc == 0 && !fo.oom) {
        int64_t t = INT64_MAX;
        for (int k = 0; k < e->nmetrics; k++)
            if (pos[k] < pts[k].n && pts[k].t[pos[k]] < t)
                t = pts[k].t[pos[k]];
        if (t == INT64_MAX)
            break;
        int all = 1;
        for (int k = 0; k < e->nmetrics; k++) {
            if (pos[k] < pts[k].n && pts[k].t[pos[k]] == t)
                vals[k] = pts[k].v[pos[k]++];
            else
                all = 0;
        }
        double x = all ? mexpr_eval(e, vals) : NAN;
        if (!rq->step_us) {
            emit(&fo, t, x);
            continue;
        }
        int64_t b = bucket_of(t, rq->step_us);
        if (open && b != bucket) {
            emit(&fo, bucket, bn ? reduce(rq->agg, bv, bn) : NAN);
            bn = 0;
        }
        open = 1;
        bucket = b;
        if (isnan(x))
            continue;
        if (bn == bcap) {
            size_t cap = bcap ? bcap * 2 : 64;
            double *nb = realloc(bv, cap * sizeof *nb);
            if (!nb) {
                rc = -1;
                break;
            }
            bv = nb;
            bcap = cap;
        }
        bv[bn++] = x;
    }
    if (rc == 0 && open)
        emit(&fo, bucket, bn ? reduce(rq->agg, bv, bn) : NAN);
    if (fo.oom)
        rc = -1;
    for (int k = 0; k < e->nmetrics; k++) {
        free(pts[k].t);
        free(pts[k].v);
    }
    free(bv);
    return rc;
}

/* 1 when roll-up rows of gpu may hold minutes of [lo, hi]. */
static int has_rollups(store *st, int gpu, int64_t lo, int64_t hi)
{
    sqlite3_stmt *q = store_query_stmt(st, SQ_ROLLUP_ANY,
                                       "SELECT 1 FROM rollups WHERE gpu=?1 AND t_start>=?2 AND t_start<=?3 LIMIT 1");
    if (!q)
        return 0;
    sqlite3_bind_int(q, 1, gpu);
    sqlite3_bind_int64(q, 2, lo - ROLLUP_SPAN_US);
    sqlite3_bind_int64(q, 3, hi);
    int found = sqlite3_step(q) == SQLITE_ROW;
    sqlite3_reset(q);
    return found;
}

/* Notes in out when the range starts before GPU g's raw samples and roll-ups cover that part. */
static void note_rollups_only(store *st, const hq_request *rq, int g, hq_result *out)
{
    int64_t raw_start = oldest_raw(st, g);
    if (raw_start == INT64_MIN || rq->from_us >= raw_start)
        return;
    int64_t hi = raw_start == INT64_MAX || raw_start - 1 > rq->to_us ? rq->to_us : raw_start - 1;
    if (!has_rollups(st, g, rq->from_us, hi))
        return;
    if (!out->rollups_only || raw_start > out->raw_start_us)
        out->raw_start_us = raw_start;
    out->rollups_only = 1;
}

void hq_free(hq_result *r)
{
    for (size_t i = 0; i < r->n; i++) {
        free(r->s[i].t);
        free(r->s[i].v);
    }
    free(r->s);
    memset(r, 0, sizeof *r);
}

int hq_run(store *st, const hq_request *rq, hq_result *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (rq->from_us > rq->to_us) {
        snprintf(err, errlen, "the range is empty (from is after to)");
        return -1;
    }
    if (rq->step_us < 0) {
        snprintf(err, errlen, "step must not be negative");
        return -1;
    }
    int samples = 0;
    for (int i = 0; i < rq->nmetrics; i++) {
        samples |= hq_item_needs_samples(rq, i);
        if (rq->exprs) {
            const metric_expr *e = &rq->exprs[i];
            for (int k = 0; k < e->nmetrics; k++)
                if (rq->pid && e->metrics[k] != M_MEM_USED && e->metrics[k] != M_UTIL_GPU) {
                    snprintf(err, errlen, "per-process history has memory.used and utilization.gpu, not %s",
                             catalog_get(e->metrics[k])->field);
                    return -1;
                }
            continue;
        }
        metric_id m = rq->metrics[i];
        if (metric_is_string(m)) {
            snprintf(err, errlen, "%s is a text field; history keeps numbers", catalog_get(m)->field);
            return -1;
        }
        if (rq->pid && m != M_MEM_USED && m != M_UTIL_GPU) {
            snprintf(err, errlen, "per-process history has memory.used and utilization.gpu, not %s",
                     catalog_get(m)->field);
            return -1;
        }
    }
    if (samples && rq->source == HQ_ROLLUP) {
        snprintf(err, errlen, "%s are computed from raw samples; 1-minute roll-ups do not have them",
                 hq_agg_needs_samples(rq->agg) ? "percentiles" : "expressions");
        return -1;
    }
    unsigned char all[HQ_MAX_GPUS];
    /* A GPU the file does not have gives an empty series, dropped below: when the list of the
     * file's GPUs cannot be read to its end, every index is tried. */
    if (rq->gpus || hq_gpus(st, all) < 0)
        memset(all, 1, sizeof all);
    out->s = calloc((size_t)rq->nmetrics * HQ_MAX_GPUS, sizeof *out->s);
    if (!out->s) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (int g = 0; g < HQ_MAX_GPUS; g++) {
        if (!all[g] || (rq->gpus && !rq->gpus[g]))
            continue;
        if (samples && !rq->pid)
            note_rollups_only(st, rq, g, out);
        for (int i = 0; i < rq->nmetrics; i++) {
            hq_series *s = &out->s[out->n];
            s->gpu = g;
            s->item = i;
            s->metric = item_metric(rq, i);
            s->pid = rq->pid;
            int rc, oom = 0;
            if (hq_item_needs_samples(rq, i)) {
                rc = fold_samples(st, rq, g, i, s, &out->damaged);
                size_t k = 0;
                while (k < s->n && isnan(s->v[k]))
                    k++;
                if (k == s->n)
                    s->n = 0; /* no value at all: no series */
            } else {
                folder f = {.rq = rq, .out = s, .lo = rq->from_us, .hi = rq->to_us};
                rc = fold_series(st, rq, g, s->metric, &f, &out->used_rollups);
                fold_close(&f);
                out->damaged += f.damaged;
                oom = f.oom;
            }
            if (rc != 0 || oom) {
                snprintf(err, errlen, "reading the history failed: %s", sqlite3_errmsg(store_db(st)));
                out->n++;
                hq_free(out);
                return -1;
            }
            if (s->n)
                out->n++;
            else {
                free(s->t);
                free(s->v);
                memset(s, 0, sizeof *s);
            }
        }
    }
    return 0;
}

void hq_damage_warning(const hq_result *r, char *out, size_t n)
{
    snprintf(out, n,
             "the history file is damaged: %ld part%s of this range could not be read; the result holds what is "
             "intact, raw samples standing in for damaged roll-ups where they are kept (gpuwatch history check "
             "FILE tells what is intact)",
             r->damaged, r->damaged == 1 ? "" : "s");
}
