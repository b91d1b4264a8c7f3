/* rollup_store.c - a sealed chunk group's minutes merged into the roll-up rows: one row per GPU and
 * 6-hour window (metric STORE_BUNDLE) holds every metric's minute records as a bundle (bundle.c),
 * rewritten as the window fills. Files of format 1 have one row per (GPU, metric, window); a
 * window's rows are merged into its bundle (and deleted) the first time the window gets new minutes,
 * and read as they are until then. */
#include "bundle.h"
#include "codec.h"
#include "rollup.h"
#include "store.h"
#include "util.h"
#include <stdlib.h>
#include <string.h>

/* The minute records of one metric in a group, waiting to be merged into their window. */
typedef struct rcol {
    int dbid;
    rmin *r;
    size_t n;
} rcol;

typedef struct rbatch {
    rcol *c;
    int n, cap;
    int oom;
} rbatch;

static void batch_add(rbatch *b, int dbid, const rmin *r, size_t n)
{
    if (!dbid || !n)
        return;
    if (b->n == b->cap) {
        int cap = b->cap ? b->cap * 2 : 64;
        rcol *c = realloc(b->c, (size_t)cap * sizeof *c);
        if (!c) {
            b->oom = 1;
            return;
        }
        b->c = c;
        b->cap = cap;
    }
    rmin *copy = malloc(n * sizeof *copy);
    if (!copy) {
        b->oom = 1;
        return;
    }
    memcpy(copy, r, n * sizeof *copy);
    b->c[b->n++] = (rcol){dbid, copy, n};
}

static void batch_free(rbatch *b)
{
    for (int i = 0; i < b->n; i++)
        free(b->c[i].r);
    free(b->c);
}

/* Minute records of one decoded column, and of the bit metrics derived from it when it is a bitmask. */
static int rollup_column(store *s, rbatch *b, metric_id m, const int64_t *t, const double *v, const uint8_t *pres,
                         size_t n, rmin *tmp)
{
    batch_add(b, store_metric_id(s, m), tmp, rollup_minutes(t, v, pres, n, tmp));
    if (catalog_get(m)->kind != MK_BITMASK || catalog_get(m)->flags & MF_STATIC)
        return b->oom ? SQLITE_NOMEM : SQLITE_OK;
    double *bits = malloc(n * sizeof *bits);
    if (!bits)
        return SQLITE_NOMEM;
    for (int c = M_STR_END; c < M_COUNT; c++) {
        const metric_def *d = catalog_get((metric_id)c);
        if (!(d->flags & MF_BIT) || d->parent != m)
            continue;
        for (size_t i = 0; i < n; i++)
            bits[i] = pres[i] && ((uint64_t)v[i] & d->bit) ? 1.0 : 0.0;
        batch_add(b, store_metric_id(s, (metric_id)c), tmp, rollup_minutes(t, bits, pres, n, tmp));
    }
    free(bits);
    return b->oom ? SQLITE_NOMEM : SQLITE_OK;
}

static int64_t window_of(int64_t t)
{
    return t - (((t % ROLLUP_SPAN_US) + ROLLUP_SPAN_US) % ROLLUP_SPAN_US);
}

/* A roll-up column of the window being rebuilt: its coded bytes (kept as they are when the group
 * brings it nothing new) or its merged records (coded into buf). */
typedef struct wcol {
    int dbid;
    gw_buf buf;
} wcol;

/* The window being rebuilt: its columns, its end, and whether the file held it as format 1 rows. */
typedef struct window {
    store *s;
    int gpu;
    int64_t w; /* its start */
    wcol *cols;
    int n, cap;
    int64_t t_end;
    int old_rows;
} window;

static wcol *wcol_get(window *win, int dbid)
{
    for (int i = 0; i < win->n; i++)
        if (win->cols[i].dbid == dbid)
            return &win->cols[i];
    if (win->n == win->cap) {
        int ncap = win->cap ? win->cap * 2 : 128;
        wcol *c = realloc(win->cols, (size_t)ncap * sizeof *c);
        if (!c)
            return NULL;
        win->cols = c;
        win->cap = ncap;
    }
    wcol *c = &win->cols[win->n++];
    c->dbid = dbid;
    memset(&c->buf, 0, sizeof c->buf);
    return c;
}

/* What the file holds for the window: its bundle, and rows of format 1 (one seek per metric). */
static int window_read(window *win)
{
    sqlite3_stmt *q = NULL;
    int rc = sqlite3_prepare_v2(store_db(win->s),
                                "SELECT r.metric, r.blob, r.t_end FROM (SELECT -1 AS id UNION ALL SELECT id FROM "
                                "metrics) m CROSS JOIN rollups r ON r.gpu=?1 AND r.metric=m.id AND r.t_start=?2",
                                -1, &q, NULL);
    if (rc != SQLITE_OK)
        return rc;
    sqlite3_bind_int(q, 1, win->gpu);
    sqlite3_bind_int64(q, 2, win->w);
    while (rc == SQLITE_OK && sqlite3_step(q) == SQLITE_ROW) {
        int dbid = sqlite3_column_int(q, 0);
        if (sqlite3_column_int64(q, 2) > win->t_end)
            win->t_end = sqlite3_column_int64(q, 2);
        const void *blob = sqlite3_column_blob(q, 1);
        size_t len = (size_t)sqlite3_column_bytes(q, 1);
        bundle_col bc[BUNDLE_MAX_COLS];
        int k = dbid == STORE_BUNDLE ? bundle_read(blob, len, bc, BUNDLE_MAX_COLS) : 1;
        if (dbid != STORE_BUNDLE) {
            bc[0] = (bundle_col){dbid, blob, len};
            win->old_rows = 1;
        }
        if (k < 0)
            gw_log(GW_LOG_WARN, "history: corrupt roll-up row replaced", "gpu=%d window=%lld", win->gpu,
                   (long long)win->w);
        for (int i = 0; i < k && rc == SQLITE_OK; i++) {
            wcol *c = wcol_get(win, bc[i].dbid);
            if (!c)
                rc = SQLITE_NOMEM;
            else if (!c->buf.len)
                buf_append(&c->buf, (const char *)bc[i].p, bc[i].len);
        }
    }
    sqlite3_finalize(q);
    return rc;
}

/* The batch's records of the window merged into its column r. */
static int window_merge(window *win, const rcol *r)
{
    size_t lo = 0, hi = 0;
    while (lo < r->n && window_of(r->r[lo].t) != win->w)
        lo++;
    for (hi = lo; hi < r->n && window_of(r->r[hi].t) == win->w;)
        hi++;
    if (hi == lo)
        return SQLITE_OK;
    wcol *c = wcol_get(win, r->dbid);
    if (!c)
        return SQLITE_NOMEM;
    rmin *old = NULL;
    size_t nold = 0;
    if (c->buf.len && rollup_decode((const uint8_t *)c->buf.data, c->buf.len, &old, &nold) != 0)
        gw_log(GW_LOG_WARN, "history: corrupt roll-up column replaced", "gpu=%d metric=%d", win->gpu, r->dbid);
    rmin *merged = malloc((nold + (hi - lo)) * sizeof *merged);
    if (!merged) {
        free(old);
        return SQLITE_NOMEM;
    }
    size_t m = rollup_merge(old, nold, r->r + lo, hi - lo, merged);
    if (merged[m - 1].t > win->t_end)
        win->t_end = merged[m - 1].t;
    buf_clear(&c->buf);
    rollup_encode(&c->buf, merged, m);
    free(old);
    free(merged);
    return SQLITE_OK;
}

/* The window's columns written as its bundle row. */
static int window_write(window *win)
{
    int n = win->n, rc = SQLITE_OK;
    if (n == 0)
        return SQLITE_OK;
    int *ids = malloc((size_t)n * sizeof *ids);
    gw_buf *bufs = malloc((size_t)n * sizeof *bufs);
    if (!ids || !bufs)
        rc = SQLITE_NOMEM;
    for (int i = 0; i < n && rc == SQLITE_OK; i++) {
        ids[i] = win->cols[i].dbid;
        bufs[i] = win->cols[i].buf;
        if (win->cols[i].buf.oom)
            rc = SQLITE_NOMEM;
    }
    gw_buf blob = {0};
    sqlite3_stmt *put = NULL;
    if (rc == SQLITE_OK) {
        bundle_put(&blob, n, ids, bufs);
        rc = blob.oom ? SQLITE_NOMEM
                      : sqlite3_prepare_v2(store_db(win->s), "INSERT OR REPLACE INTO rollups VALUES(?1,-1,?2,?3,?4,?5)",
                                           -1, &put, NULL);
    }
    if (rc == SQLITE_OK) {
        sqlite3_bind_int(put, 1, win->gpu);
        sqlite3_bind_int64(put, 2, win->w);
        sqlite3_bind_int64(put, 3, win->t_end);
        sqlite3_bind_int64(put, 4, n);
        sqlite3_bind_blob(put, 5, blob.data, (int)blob.len, SQLITE_STATIC);
        rc = sqlite3_step(put) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(store_db(win->s));
    }
    sqlite3_finalize(put);
    buf_release(&blob);
    free(ids);
    free(bufs);
    return rc;
}

/* The window's format 1 rows, now in its bundle, removed. */
static int window_drop_old_rows(window *win)
{
    sqlite3 *db = store_db(win->s);
    sqlite3_stmt *del = NULL;
    int rc = sqlite3_prepare_v2(
        db, "DELETE FROM rollups WHERE gpu=?1 AND t_start=?2 AND metric IN (SELECT id FROM metrics)", -1, &del, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_int(del, 1, win->gpu);
        sqlite3_bind_int64(del, 2, win->w);
        rc = sqlite3_step(del) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(db);
    }
    sqlite3_finalize(del);
    return rc;
}

/* Records of window w in the batch merged with what the file has for w (its bundle, or format 1
 * rows), written back as the window's bundle. */
static int merge_window(store *s, int gpu, int64_t w, const rbatch *b)
{
    window win = {.s = s, .gpu = gpu, .w = w, .t_end = w};
    int rc = window_read(&win);
    for (int i = 0; i < b->n && rc == SQLITE_OK; i++)
        rc = window_merge(&win, &b->c[i]);
    if (rc == SQLITE_OK)
        rc = window_write(&win);
    if (rc == SQLITE_OK && win.old_rows)
        rc = window_drop_old_rows(&win);
    for (int i = 0; i < win.n; i++)
        buf_release(&win.cols[i].buf);
    free(win.cols);
    return rc;
}

/* The columns of a group: from its bundle row, or (format 1) one row per metric. */
typedef struct gcols {
    int64_t *t;
    size_t n;
    double *v;
    uint8_t *pres;
    rmin *tmp;
} gcols;

static int add_column(store *s, rbatch *b, gcols *g, int gpu, int64_t t_start, int dbid, const void *blob, size_t len)
{
    byte_cursor rd = {blob, len, 0, 0};
    if (dbid == STORE_TIMELINE) {
        size_t cnt = codec_peek_count(&rd);
        if (cnt > CODEC_MAX_COUNT || g->t)
            return SQLITE_OK;
        g->t = malloc((cnt + 1) * sizeof *g->t);
        g->v = malloc((cnt + 1) * sizeof *g->v);
        g->pres = malloc(cnt + 1);
        g->tmp = malloc((cnt + 1) * sizeof *g->tmp);
        if (!g->t || !g->v || !g->pres || !g->tmp)
            return SQLITE_NOMEM;
        if (codec_get_times(&rd, g->t, cnt, &g->n) != 0)
            g->n = 0;
        return SQLITE_OK;
    }
    int m = store_metric_of(s, dbid);
    if (!g->t || g->n == 0 || m < 0)
        return SQLITE_OK;
    if (codec_get_column(&rd, g->v, g->pres, g->n) != 0) {
        gw_log(GW_LOG_WARN, "history: corrupt chunk skipped", "gpu=%d metric=%d t_start=%lld", gpu, dbid,
               (long long)t_start);
        return SQLITE_OK;
    }
    return rollup_column(s, b, (metric_id)m, g->t, g->v, g->pres, g->n, g->tmp);
}

int store_rollup_group(store *s, int gpu, int64_t t_start)
{
    sqlite3_stmt *st = NULL;
    /* metrics drive the loop so each chunk is a primary-key look-up, not a scan of the GPU's rows */
    int rc = sqlite3_prepare_v2(store_db(s),
                                "SELECT c.metric, c.blob FROM (SELECT -1 AS id UNION ALL SELECT 0 UNION ALL SELECT id"
                                " FROM metrics) m CROSS JOIN chunks c ON c.gpu=?1 AND c.metric=m.id AND c.t_start=?2"
                                " ORDER BY c.metric",
                                -1, &st, NULL);
    if (rc != SQLITE_OK)
        return rc;
    sqlite3_bind_int(st, 1, gpu);
    sqlite3_bind_int64(st, 2, t_start);
    rbatch b = {0};
    gcols g = {0};
    while (rc == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
        int dbid = sqlite3_column_int(st, 0);
        const void *blob = sqlite3_column_blob(st, 1);
        size_t len = (size_t)sqlite3_column_bytes(st, 1);
        if (dbid != STORE_BUNDLE) {
            rc = add_column(s, &b, &g, gpu, t_start, dbid, blob, len);
            continue;
        }
        bundle_col bc[BUNDLE_MAX_COLS];
        int k = bundle_read(blob, len, bc, BUNDLE_MAX_COLS);
        if (k < 0)
            gw_log(GW_LOG_WARN, "history: corrupt chunk skipped", "gpu=%d t_start=%lld", gpu, (long long)t_start);
        for (int i = 0; i < k && rc == SQLITE_OK; i++) /* the timeline comes first */
            rc = add_column(s, &b, &g, gpu, t_start, bc[i].dbid, bc[i].p, bc[i].len);
    }
    sqlite3_finalize(st);
    /* each window the minutes fall in, once (a group may straddle two), oldest first */
    int64_t w = INT64_MIN;
    while (rc == SQLITE_OK && !b.oom) {
        int64_t next = INT64_MAX;
        for (int i = 0; i < b.n; i++)
            for (size_t k = 0; k < b.c[i].n; k++) {
                int64_t x = window_of(b.c[i].r[k].t);
                if (x > w && x < next)
                    next = x;
            }
        if (next == INT64_MAX)
            break;
        w = next;
        rc = merge_window(s, gpu, w, &b);
    }
    if (rc == SQLITE_OK && b.oom)
        rc = SQLITE_NOMEM;
    batch_free(&b);
    free(g.t);
    free(g.v);
    free(g.pres);
    free(g.tmp);
    return rc;
}
