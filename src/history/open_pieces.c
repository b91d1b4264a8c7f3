/* open_pieces.c - open chunk groups and process series kept mostly in the file, not in memory.
 * At each flush, the slots memory holds of an open group, [base, n), are written as one piece
 * (an open_chunks row holding the piece's columns as a bundle; proc_chunks rows for a series), and once
 * committed memory drops them (hist_*_drop): a 10-minute group costs the seconds since the last
 * flush, not ten minutes of values kept beside the agent's ring, and a flush writes what is new,
 * not the whole open chunk again. The sealed chunk is merged from the pieces and what memory
 * kept, on the writer thread. Pieces read back in time order; a slot already given by an earlier
 * piece is not taken twice, and a missing piece (the file was replaced) leaves only its gap.
 * Dropping the slots a committed piece holds is ingest.c's (hist_group_drop, hist_proc_drop). */
#include "hist_internal.h"
#include "bundle.h"
#include "codec.h"
#include "util.h"
#include <stdlib.h>
#include <string.h>

/* ---------- encoding what memory holds ---------- */

pend *hist_encode_group(const hgroup *grp, int gpu, int final)
{
    size_t lo = grp->base, n = grp->n - lo;
    if (n == 0)
        return NULL;
    pend *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->kind = PEND_GROUP;
    p->gpu = gpu;
    p->final = final;
    p->t_end = grp->t_last;
    p->n = (int64_t)n;
    p->ids = malloc(M_COUNT * sizeof *p->ids);
    p->blobs = calloc(M_COUNT + 1, sizeof *p->blobs);
    /* With coded slots, each column is decoded whole into these for a moment (at absolute slots). */
    int coded = grp->zn > grp->base;
    int64_t *tt = coded ? malloc(grp->n * sizeof *tt) : NULL;
    double *tv = coded ? malloc(grp->n * sizeof *tv) : NULL;
    uint8_t *tp = coded ? malloc(grp->n) : NULL;
    if (!p->ids || !p->blobs || (coded && (!tt || !tv || !tp || hist_unspill_times(grp, tt) != 0)))
        goto fail;
    const int64_t *times = coded ? tt + lo : grp->t;
    p->t_start = times[0];
    codec_put_times(&p->blobs[0], times, n);
    p->bytes = sizeof *p + p->blobs[0].len;
    for (int m = M_STR_END; m < M_COUNT; m++) {
        const hcol *c = &grp->col[m];
        if (c->state == HCOL_NONE)
            continue;
        gw_buf *b = &p->blobs[1 + p->ncols];
        if (c->state == HCOL_CONST) {
            size_t from = c->from > lo ? c->from : lo, end = c->end > lo ? c->end : lo;
            if (end <= from)
                continue; /* the run is all in earlier pieces */
            codec_put_const_run(b, c->cval, from - lo, end - lo, n);
        } else {
            const double *v = c->v;
            const uint8_t *pres = c->pres;
            if (coded) {
                if (hist_unspill_col(grp, c, tv, tp) != 0)
                    goto fail;
                v = tv + lo;
                pres = tp + lo;
            }
            if (!memchr(pres, 1, n))
                continue;
            codec_put_column(b, v, pres, n);
        }
        p->ids[p->ncols++] = (metric_id)m;
        p->bytes += b->len;
    }
    for (int i = 0; i <= p->ncols; i++)
        if (p->blobs[i].oom)
            goto fail;
    free(tt), free(tv), free(tp);
    return p;
fail:
    free(tt), free(tv), free(tp);
    hist_pend_free(p);
    return NULL;
}

/* A process series chunk of n slots from arrays (times, memory, SM). */
static pend *proc_pend(const hproc *p, int final, const int64_t *t, const double *mem, const uint8_t *pm,
                       const double *sm, const uint8_t *ps, size_t n)
{
    if (n == 0)
        return NULL;
    pend *q = calloc(1, sizeof *q);
    if (!q)
        return NULL;
    q->kind = PEND_PROC;
    q->gpu = p->gpu;
    q->pid = p->meta.pid;
    q->final = final;
    q->t_start = t[0];
    q->t_end = t[n - 1];
    q->n = (int64_t)n;
    q->open_from = p->t_first;
    q->blobs = calloc(1, sizeof *q->blobs);
    if (!q->blobs) {
        free(q);
        return NULL;
    }
    codec_put_times(&q->blobs[0], t, n);
    codec_put_column(&q->blobs[0], mem, pm, n);
    codec_put_column(&q->blobs[0], sm, ps, n);
    if (q->blobs[0].oom) {
        hist_pend_free(q);
        return NULL;
    }
    q->bytes = sizeof *q + q->blobs[0].len;
    return q;
}

pend *hist_encode_proc(const hproc *p, int final)
{
    return proc_pend(p, final, p->t, p->mem, p->pm, p->sm, p->ps, p->n - p->base);
}

/* ---------- merging a sealed group from its pieces ---------- */

typedef struct piece {
    int64_t t_start;
    size_t at, n; /* its slots go to [at, at + n) of the merged arrays; n 0: skipped */
    size_t skip;  /* its first slots already given by an earlier piece */
} piece;

/* The merged timeline of the pieces, and where each piece's slots go. */
typedef struct merge {
    piece *pc;
    size_t npc, cap;
    int64_t *t;
    size_t n, tcap;
    int oom;
} merge;

static void take_times(void *arg, int64_t t_start, const void *blob, size_t len)
{
    merge *x = arg;
    byte_cursor in = {blob, len, 0, 0};
    size_t cnt = codec_peek_count(&in), got = 0;
    if (x->oom || cnt == 0 || cnt > CODEC_MAX_COUNT)
        return;
    if (x->npc == x->cap) {
        size_t cap = x->cap ? x->cap * 2 : 64;
        piece *pc = realloc(x->pc, cap * sizeof *pc);
        if (!pc) {
            x->oom = 1;
            return;
        }
        x->pc = pc, x->cap = cap;
    }
    if (x->n + cnt > x->tcap) {
        size_t cap = (x->n + cnt) * 2;
        int64_t *t = realloc(x->t, cap * sizeof *t);
        if (!t) {
            x->oom = 1;
            return;
        }
        x->t = t, x->tcap = cap;
    }
    piece *p = &x->pc[x->npc++];
    *p = (piece){t_start, x->n, 0, 0};
    if (codec_get_times(&in, x->t + x->n, cnt, &got) != 0 || got != cnt)
        return; /* corrupt: skipped */
    /* times only move forward: slots at or before the last one taken are in an earlier piece */
    while (p->skip < cnt && x->n && x->t[x->n + p->skip] <= x->t[x->n - 1])
        p->skip++;
    memmove(x->t + x->n, x->t + x->n + p->skip, (cnt - p->skip) * sizeof *x->t);
    p->n = cnt;
    x->n += cnt - p->skip;
}

/* Decodes the column rows of the pieces into v/pres at their places. */
typedef struct colfill {
    const merge *x;
    double *v, *tv;
    uint8_t *pres, *tp;
    int bad;
} colfill;

static void take_column(void *arg, int64_t t_start, const void *blob, size_t len)
{
    colfill *f = arg;
    const piece *p = NULL;
    for (size_t i = 0; i < f->x->npc && !p; i++) /* pieces are few (one per flush) */
        if (f->x->pc[i].t_start == t_start && f->x->pc[i].n)
            p = &f->x->pc[i];
    if (!p)
        return;
    byte_cursor in = {blob, len, 0, 0};
    if (codec_get_column(&in, f->tv, f->tp, p->n) != 0) {
        f->bad = 1;
        return;
    }
    memcpy(f->v + p->at, f->tv + p->skip, (p->n - p->skip) * sizeof *f->v);
    memcpy(f->pres + p->at, f->tp + p->skip, p->n - p->skip);
}

/* The group's pieces as the file has them, oldest first: one bundle row each (bundle.c). */
typedef struct stored_piece {
    int64_t t_start;
    void *blob;
    bundle_col *cols;
    int ncols;
} stored_piece;

typedef struct stored {
    stored_piece *p;
    size_t n, cap;
    int oom;
} stored;

static void keep_piece(void *arg, int64_t t_start, const void *blob, size_t len)
{
    stored *x = arg;
    if (x->oom)
        return;
    if (x->n == x->cap) {
        size_t cap = x->cap ? x->cap * 2 : 64;
        stored_piece *p = realloc(x->p, cap * sizeof *p);
        if (!p) {
            x->oom = 1;
            return;
        }
        x->p = p, x->cap = cap;
    }
    stored_piece *p = &x->p[x->n];
    bundle_col cols[BUNDLE_MAX_COLS];
    p->blob = malloc(len ? len : 1);
    if (!p->blob) {
        x->oom = 1;
        return;
    }
    memcpy(p->blob, blob, len);
    p->t_start = t_start;
    p->ncols = bundle_read(p->blob, len, cols, BUNDLE_MAX_COLS);
    p->cols = p->ncols > 0 ? malloc((size_t)p->ncols * sizeof *p->cols) : NULL;
    if (p->ncols > 0 && !p->cols) {
        free(p->blob);
        x->oom = 1;
        return;
    }
    if (p->ncols > 0)
        memcpy(p->cols, cols, (size_t)p->ncols * sizeof *p->cols);
    else
        gw_log(GW_LOG_WARN, "history: corrupt checkpoint piece skipped", "t_start=%lld", (long long)t_start);
    x->n++;
}

static void stored_free(stored *x)
{
    for (size_t i = 0; i < x->n; i++) {
        free(x->p[i].blob);
        free(x->p[i].cols);
    }
    free(x->p);
}

/* fn(ctx, t_start, column) for the column dbid of each piece that has one, oldest first. */
static void each_piece_column(const stored *x, int dbid, void (*fn)(void *, int64_t, const void *, size_t), void *ctx)
{
    for (size_t i = 0; i < x->n; i++)
        for (int k = 0; k < x->p[i].ncols; k++)
            if (x->p[i].cols[k].dbid == dbid) {
                fn(ctx, x->p[i].t_start, x->p[i].cols[k].p, x->p[i].cols[k].len);
                break;
            }
}

pend *hist_encode_group_final(store *st, const hgroup *grp, int gpu)
{
    merge x = {0};
    stored pieces = {0};
    pend *p = NULL;
    int64_t *mt = NULL;
    double *v = NULL, *mv = NULL, *tv = NULL;
    uint8_t *pres = NULL, *mp = NULL, *tp = NULL;
    if (store_get_pieces(st, gpu, STORE_BUNDLE, grp->t_first, grp->t_last, keep_piece, &pieces) != SQLITE_OK ||
        pieces.oom)
        goto out;
    each_piece_column(&pieces, STORE_TIMELINE, take_times, &x);
    if (x.oom)
        goto out;
    size_t disk = x.n, maxpc = 0;
    for (size_t i = 0; i < x.npc; i++)
        if (x.pc[i].n > maxpc)
            maxpc = x.pc[i].n;
    /* memory's slots: those after the last one the pieces gave */
    mt = malloc(grp->n * sizeof *mt);
    mv = malloc(grp->n * sizeof *mv);
    mp = malloc(grp->n);
    if (!mt || !mv || !mp || hist_unspill_times(grp, mt) != 0)
        goto out;
    size_t k0 = grp->base;
    while (k0 < grp->n && disk && mt[k0] <= x.t[disk - 1])
        k0++;
    size_t n = disk + (grp->n - k0);
    if (n == 0)
        goto out;
    if (x.tcap < n) {
        int64_t *t = realloc(x.t, n * sizeof *t);
        if (!t)
            goto out;
        x.t = t;
    }
    memcpy(x.t + disk, mt + k0, (grp->n - k0) * sizeof *mt);
    v = malloc(n * sizeof *v);
    pres = malloc(n);
    tv = malloc((maxpc ? maxpc : 1) * sizeof *tv);
    tp = malloc(maxpc ? maxpc : 1);
    p = calloc(1, sizeof *p);
    if (!v || !pres || !tv || !tp || !p)
        goto fail;
    p->kind = PEND_GROUP;
    p->gpu = gpu;
    p->final = 1;
    p->t_start = x.t[0];
    p->t_end = x.t[n - 1];
    p->open_from = grp->t_first;
    p->n = (int64_t)n;
    p->ids = malloc(M_COUNT * sizeof *p->ids);
    p->blobs = calloc(M_COUNT + 1, sizeof *p->blobs);
    if (!p->ids || !p->blobs)
        goto fail;
    codec_put_times(&p->blobs[0], x.t, n);
    p->bytes = sizeof *p + p->blobs[0].len;
    for (int m = M_STR_END; m < M_COUNT; m++) {
        const hcol *c = &grp->col[m];
        memset(pres, 0, n);
        int dbid = store_metric_id(st, (metric_id)m);
        colfill f = {&x, v, tv, pres, tp, 0};
        if (dbid && disk)
            each_piece_column(&pieces, dbid, take_column, &f);
        if (f.bad)
            gw_log(GW_LOG_WARN, "history: corrupt checkpoint piece skipped", "gpu=%d metric=%s", gpu,
                   catalog_get((metric_id)m)->field);
        if (c->state == HCOL_ARRAY) {
            if (hist_unspill_col(grp, c, mv, mp) != 0)
                goto fail;
        } else {
            for (size_t i = k0; i < grp->n; i++) {
                mp[i] = c->state == HCOL_CONST && i >= c->from && i < c->end;
                mv[i] = c->cval;
            }
        }
        memcpy(v + disk, mv + k0, (grp->n - k0) * sizeof *v);
        memcpy(pres + disk, mp + k0, grp->n - k0);
        if (!memchr(pres, 1, n))
            continue;
        gw_buf *b = &p->blobs[1 + p->ncols];
        codec_put_column(b, v, pres, n);
        p->ids[p->ncols++] = (metric_id)m;
        p->bytes += b->len;
    }
    for (int i = 0; i <= p->ncols; i++)
        if (p->blobs[i].oom)
            goto fail;
    goto out;
fail:
    hist_pend_free(p);
    p = NULL;
out:
    stored_free(&pieces);
    free(x.pc), free(x.t), free(mt), free(mv), free(mp), free(v), free(pres), free(tv), free(tp);
    return p;
}

/* ---------- merging a sealed process series ---------- */

typedef struct procmerge {
    int64_t *t;
    double *mem, *sm;
    uint8_t *pm, *ps;
    size_t n, cap;
    int oom;
} procmerge;

static int pm_reserve(procmerge *x, size_t need)
{
    if (need <= x->cap)
        return 0;
    size_t cap = need * 2;
    void *a;
    if (!(a = realloc(x->t, cap * sizeof *x->t)))
        return -1;
    x->t = a;
    if (!(a = realloc(x->mem, cap * sizeof *x->mem)))
        return -1;
    x->mem = a;
    if (!(a = realloc(x->sm, cap * sizeof *x->sm)))
        return -1;
    x->sm = a;
    if (!(a = realloc(x->pm, cap)))
        return -1;
    x->pm = a;
    if (!(a = realloc(x->ps, cap)))
        return -1;
    x->ps = a;
    x->cap = cap;
    return 0;
}

/* Appends slots [k, cnt) of arrays whose times pass the last one taken. */
static void pm_append(procmerge *x, const int64_t *t, const double *mem, const uint8_t *pm, const double *sm,
                      const uint8_t *ps, size_t cnt)
{
    if (pm_reserve(x, x->n + cnt) != 0) {
        x->oom = 1;
        return;
    }
    for (size_t i = 0; i < cnt; i++) {
        if (x->n && t[i] <= x->t[x->n - 1])
            continue;
        x->t[x->n] = t[i];
        x->mem[x->n] = mem[i], x->pm[x->n] = pm[i];
        x->sm[x->n] = sm[i], x->ps[x->n] = ps[i];
        x->n++;
    }
}

static void take_proc_piece(void *arg, int64_t t_start, const void *blob, size_t len)
{
    (void)t_start;
    procmerge *x = arg;
    byte_cursor in = {blob, len, 0, 0};
    size_t cnt = codec_peek_count(&in), got = 0;
    if (x->oom || cnt == 0 || cnt > CODEC_MAX_COUNT)
        return;
    procmerge tmp = {0};
    if (pm_reserve(&tmp, cnt) != 0) {
        x->oom = 1;
        goto out;
    }
    if (codec_get_times(&in, tmp.t, cnt, &got) != 0 || got != cnt || codec_get_column(&in, tmp.mem, tmp.pm, cnt) != 0 ||
        codec_get_column(&in, tmp.sm, tmp.ps, cnt) != 0)
        goto out; /* corrupt: skipped */
    pm_append(x, tmp.t, tmp.mem, tmp.pm, tmp.sm, tmp.ps, cnt);
out:
    free(tmp.t), free(tmp.mem), free(tmp.sm), free(tmp.pm), free(tmp.ps);
}

pend *hist_encode_proc_final(store *st, const hproc *p)
{
    procmerge x = {0};
    pend *q = NULL;
    if (store_get_proc_pieces(st, p->gpu, p->meta.pid, p->t_first, p->last_t, take_proc_piece, &x) == SQLITE_OK &&
        !x.oom) {
        pm_append(&x, p->t, p->mem, p->pm, p->sm, p->ps, p->n - p->base);
        if (!x.oom)
            q = proc_pend(p, 1, x.t, x.mem, x.pm, x.sm, x.ps, x.n);
    }
    free(x.t), free(x.mem), free(x.sm), free(x.pm), free(x.ps);
    return q;
}
