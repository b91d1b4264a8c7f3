/* engine_window.c - the engine's decoded recent values (see engine_window.h).
 *
 * An operand a rule reduces over a window (xid.count over 10m, gpu.lost over 1m...) is a tap; one
 * used only with `last` keeps only its newest value. Per GPU, the times of the samples in the
 * longest window are kept once, and each tap's values as runs of equal values over those rows
 * (a counter that stays at 0 for ten minutes is one run). Each evaluation appends the samples taken
 * since the previous one and drops what fell out of the windows; a reduction expands its window's
 * runs and reduces them as the source's samples would be, in the same order: results are the same
 * bit for bit. The source is assumed to only grow at its newest end; a GPU whose sample times go
 * back, or whose source lost samples, starts over from the source. */
#include "engine_window.h"
#include "condition.h"
#include <stdlib.h>
#include <string.h>

#define ROW_LIMIT 0x40000000u /* row ids restart (the GPU starts over) before they grow this large */

static int term_equal(const term *a, const term *b)
{
    return a->kind == b->kind && a->id == b->id && memcmp(&a->c, &b->c, sizeof a->c) == 0;
}

static int operand_equal(const operand *a, const operand *b)
{
    return a->op == b->op && term_equal(&a->a, &b->a) && (!a->op || term_equal(&a->b, &b->b));
}

/* The tap of an operand (from 1), added when new; its span or look-back grows to cover this use. */
static int tap_for(engine_window *w, const operand *o, reduce_kind r, int64_t window_us)
{
    if (!operand_keepable(o))
        return 0;
    int i = 0;
    while (i < w->noperands && !operand_equal(&w->operands[i].o, o))
        i++;
    if (i == w->noperands) {
        window_operand *t = realloc(w->operands, (size_t)(w->noperands + 1) * sizeof *t);
        if (!t)
            return 0;
        w->operands = t;
        memset(&t[i], 0, sizeof t[i]);
        t[i].o = *o;
        w->noperands++;
    }
    window_operand *t = &w->operands[i];
    if (window_us && r != RED_LAST) {
        if (window_us > t->span_us)
            t->span_us = window_us;
    } else {
        int64_t lookback = window_us ? window_us : COND_LOOKBACK_US;
        if (lookback > t->lookback_us)
            t->lookback_us = lookback;
    }
    return i + 1;
}

static void plan_cond(engine_window *w, cond *c)
{
    if (c->kind == COND_LEAF) {
        c->tap_metric = tap_for(w, &c->metric, c->reduce, c->window_us);
        c->tap_threshold = tap_for(w, &c->threshold, RED_LAST, 0);
        return;
    }
    for (int i = 0; i < c->nkids; i++)
        plan_cond(w, &c->kids[i]);
}

static void gpu_clear(const engine_window *w, window_gpu *g)
{
    g->valid = 0;
    g->unordered = 0;
    g->hi = 0;
    g->newest_t = 0;
    g->newest_dups = 0;
    g->tfirst = g->tn = 0;
    g->row0 = g->next_row = 0;
    g->held_row = 0;
    for (int i = 0; i < w->noperands; i++) {
        g->operands[i].have_last = 0;
        g->operands[i].first = g->operands[i].n = 0;
    }
}

static void gpus_free(engine_window *w)
{
    for (int k = 0; k < w->ngpus; k++) {
        for (int i = 0; i < w->noperands; i++)
            free(w->gpus[k].operands[i].runs);
        free(w->gpus[k].operands);
        free(w->gpus[k].t);
    }
    free(w->gpus);
    w->gpus = NULL;
    w->ngpus = 0;
}

void window_plan(engine_window *w, ruleset *rs) /* w->capacity stays */
{
    gpus_free(w);
    free(w->operands);
    w->operands = NULL;
    w->noperands = 0;
    for (int g = 0; g < rs->ngroups; g++)
        for (int r = 0; r < rs->groups[g].nrules; r++)
            plan_cond(w, &rs->groups[g].rules[r].cond);
    w->fetch_us = w->keep_us = 0;
    for (int i = 0; i < w->noperands; i++) {
        const window_operand *t = &w->operands[i];
        if (t->span_us > w->keep_us)
            w->keep_us = t->span_us;
        if (t->span_us > w->fetch_us)
            w->fetch_us = t->span_us;
        if (t->lookback_us > w->fetch_us)
            w->fetch_us = t->lookback_us;
    }
}

/* Makes room for one more element at the end of a[first .. first + n): slides the elements to the
 * front once a quarter of them has gone from it, else grows. */
static int room(void **a, int *first, int n, int *cap, size_t size)
{
    if (*first + n < *cap)
        return 0;
    if (*first > 0 && *first >= n / 4) {
        memmove(*a, (char *)*a + (size_t)*first * size, (size_t)n * size);
        *first = 0;
        return 0;
    }
    int ncap = *cap ? *cap * 2 : 8;
    void *p = realloc(*a, (size_t)ncap * size);
    if (!p)
        return -1;
    *a = p;
    *cap = ncap;
    return 0;
}

/* Index into g->t of row id `row`. */
static int row_index(const window_gpu *g, uint32_t row)
{
    return g->tfirst + (int)(row - g->row0);
}

/* First row id whose time is after t (next_row when none). */
static uint32_t row_after(const window_gpu *g, int64_t t)
{
    int lo = 0, hi = g->tn;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (g->t[g->tfirst + mid] <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return g->row0 + (uint32_t)lo;
}

typedef struct fill {
    engine_window *w;
    window_gpu *g;
    int64_t now;
    int skip;   /* samples at newest_t already taken */
    int ahead;  /* samples after now (the source holds them; they are taken next time) */
    int failed; /* out of memory: the GPU starts over next time */
} fill;

static void take(const gpu_sample *s, void *arg)
{
    fill *f = arg;
    window_gpu *g = f->g;
    engine_window *w = f->w;
    int64_t t = (int64_t)s->t_us;
    if (t > f->now)
        f->ahead++;
    if (t > f->now || g->unordered || f->failed)
        return;
    if (t == g->newest_t && f->skip > 0) {
        f->skip--;
        return;
    }
    if (g->newest_t && t < g->newest_t) {
        g->unordered = 1;
        return;
    }
    g->newest_dups = t == g->newest_t ? g->newest_dups + 1 : 1;
    g->newest_t = t;
    uint32_t row = g->next_row;
    if (w->keep_us) {
        if (room((void **)&g->t, &g->tfirst, g->tn, &g->tcap, sizeof *g->t) != 0) {
            f->failed = 1;
            return;
        }
        g->t[g->tfirst + g->tn++] = t;
    }
    g->next_row++;
    if (!w->keep_us)
        g->row0 = g->next_row; /* no row times kept */
    for (int i = 0; i < w->noperands; i++) {
        double v;
        if (!operand_at(&w->operands[i].o, s, &v))
            continue;
        operand_values *tg = &g->operands[i];
        tg->have_last = 1;
        tg->last_t = t;
        tg->last_v = v;
        tg->last_row = row;
        if (!w->operands[i].span_us)
            continue;
        value_run *last = tg->n ? &tg->runs[tg->first + tg->n - 1] : NULL;
        if (last && last->row + last->len == row && memcmp(&last->v, &v, sizeof v) == 0) {
            last->len++;
            continue;
        }
        if (room((void **)&tg->runs, &tg->first, tg->n, &tg->cap, sizeof *tg->runs) != 0) {
            f->failed = 1;
            return;
        }
        tg->runs[tg->first + tg->n++] = (value_run){v, row, 1};
    }
}

/* The first row a window of span reaches that the source still holds. */
static uint32_t first_kept(const window_gpu *g, int64_t now, int64_t span)
{
    uint32_t cut = row_after(g, now - span);
    return (int64_t)cut < g->held_row ? (uint32_t)g->held_row : cut;
}

/* Drops the rows and runs that no window reaches any more, or that the source no longer holds. */
static void drop_old(const engine_window *w, window_gpu *g, int64_t now)
{
    for (int i = 0; i < w->noperands; i++) {
        if (!w->operands[i].span_us)
            continue;
        operand_values *tg = &g->operands[i];
        uint32_t cut = first_kept(g, now, w->operands[i].span_us);
        while (tg->n && tg->runs[tg->first].row + tg->runs[tg->first].len <= cut) {
            tg->first++;
            tg->n--;
        }
        value_run *r = tg->n ? &tg->runs[tg->first] : NULL;
        if (r && r->row < cut) {
            r->len -= cut - r->row;
            r->row = cut;
        }
    }
    if (!w->keep_us)
        return;
    uint32_t cut = first_kept(g, now, w->keep_us);
    int drop = (int)(cut - g->row0);
    g->tfirst += drop;
    g->tn -= drop;
    g->row0 = cut;
}

static void fetch(engine_window *w, const sample_source *src, int gpu, window_gpu *g, uint64_t since, int64_t now)
{
    fill f = {w, g, now, g->newest_t ? g->newest_dups : 0, 0, 0};
    src->each(src->ctx, gpu, since, take, &f);
    g->hi = now;
    g->valid = !f.failed && !g->unordered;
    /* a source that keeps its newest `capacity` samples holds rows from here (counting those after now) */
    int64_t held = w->capacity > 0 ? (int64_t)g->next_row + f.ahead - w->capacity : 0;
    g->held_row = held < 0 ? 0 : held > (int64_t)g->next_row ? (int64_t)g->next_row : held;
}

static void start_over(engine_window *w, const sample_source *src, int gpu, window_gpu *g, int64_t now)
{
    gpu_clear(w, g);
    int64_t from = now - w->fetch_us;
    fetch(w, src, gpu, g, from > 0 ? (uint64_t)from + 1 : 0, now);
}

static void update_gpu(engine_window *w, const sample_source *src, int gpu, window_gpu *g, int64_t now)
{
    for (int i = 0; i < w->noperands; i++)
        g->operands[i].memo = 0;
    if (!g->valid || now < g->hi || !g->newest_t || g->next_row >= ROW_LIMIT) {
        start_over(w, src, gpu, g, now);
    } else {
        gpu_sample *latest = src->latest ? malloc(sizeof *latest) : NULL;
        int have = latest && src->latest(src->ctx, gpu, now, latest);
        int64_t lt = have ? (int64_t)latest->t_us : 0;
        int checked = latest != NULL;
        free(latest);
        if (checked && (!have || lt < g->newest_t)) /* the source lost samples, or its times went back */
            start_over(w, src, gpu, g, now);
        else /* from the newest sample taken: one pushed since with the same time is taken too */
            fetch(w, src, gpu, g, (uint64_t)g->newest_t, now);
        if (!g->valid)
            start_over(w, src, gpu, g, now);
    }
    if (g->valid)
        drop_old(w, g, now);
}

void window_update(engine_window *w, const sample_source *src, int64_t now_us)
{
    if (!w->noperands)
        return;
    int n = src->gpu_count(src->ctx);
    if (n > w->ngpus) {
        window_gpu *p = realloc(w->gpus, (size_t)n * sizeof *p);
        if (!p)
            return;
        w->gpus = p;
        for (int k = w->ngpus; k < n; k++) {
            memset(&p[k], 0, sizeof p[k]);
            p[k].operands = calloc((size_t)w->noperands, sizeof *p[k].operands);
            if (!p[k].operands) {
                n = k;
                break;
            }
        }
        w->ngpus = n;
    }
    for (int k = 0; k < n && k < w->ngpus; k++)
        update_gpu(w, src, k, &w->gpus[k], now_us);
}

/* The values of tap i on g in rows [from_row, next_row), expanded into w->scratch; returns how many
 * (-1 when out of memory) and the ids of the first and last row that had one. */
static int expand(engine_window *w, const operand_values *tg, uint32_t from_row, uint32_t *first_row,
                  uint32_t *last_row)
{
    int lo = 0, hi = tg->n;
    while (lo < hi) { /* the first run that ends after from_row */
        int mid = lo + (hi - lo) / 2;
        const value_run *r = &tg->runs[tg->first + mid];
        if (r->row + r->len <= from_row)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t n = 0;
    for (int k = lo; k < tg->n; k++) {
        const value_run *r = &tg->runs[tg->first + k];
        uint32_t start = r->row > from_row ? r->row : from_row;
        uint32_t len = r->row + r->len - start;
        if (n + len > w->scratch_cap) {
            size_t cap = w->scratch_cap ? w->scratch_cap : 256;
            while (cap < n + len)
                cap *= 2;
            double *p = realloc(w->scratch, cap * sizeof *p);
            if (!p)
                return -1;
            w->scratch = p;
            w->scratch_cap = cap;
        }
        if (n == 0)
            *first_row = start;
        for (uint32_t j = 0; j < len; j++)
            w->scratch[n++] = r->v;
        *last_row = start + len - 1;
    }
    return (int)n;
}

int window_reduce(engine_window *w, int gpu, int tap, reduce_kind r, int64_t window_us, int64_t now_us, double *out)
{
    if (tap < 1 || tap > w->noperands || gpu < 0 || gpu >= w->ngpus)
        return -1;
    window_gpu *g = &w->gpus[gpu];
    if (!g->valid || g->hi != now_us)
        return -1;
    operand_values *tg = &g->operands[tap - 1];
    if (!window_us || r == RED_LAST) {
        int64_t lookback = window_us ? window_us : COND_LOOKBACK_US;
        if (!tg->have_last || tg->last_t <= now_us - lookback || (int64_t)tg->last_row < g->held_row)
            return 0;
        *out = tg->last_v;
        return 1;
    }
    if (window_us > w->operands[tap - 1].span_us)
        return -1;
    if (tg->memo && tg->memo_r == r && tg->memo_window == window_us) {
        *out = tg->memo_v;
        return tg->memo_ret;
    }
    uint32_t first = 0, last = 0;
    int n = expand(w, tg, row_after(g, now_us - window_us), &first, &last);
    if (n < 0)
        return -1;
    double v = 0;
    int ret = n ? reduce_values(r, w->scratch, n, g->t[row_index(g, first)], g->t[row_index(g, last)], &v) : 0;
    tg->memo = 1;
    tg->memo_r = r;
    tg->memo_window = window_us;
    tg->memo_ret = ret;
    tg->memo_v = v;
    if (ret)
        *out = v;
    return ret;
}

size_t window_bytes(const engine_window *w)
{
    size_t n = sizeof *w + (size_t)w->noperands * sizeof *w->operands + w->scratch_cap * sizeof *w->scratch;
    for (int k = 0; k < w->ngpus; k++) {
        n += sizeof w->gpus[k] + (size_t)w->gpus[k].tcap * sizeof *w->gpus[k].t;
        for (int i = 0; i < w->noperands; i++)
            n += sizeof w->gpus[k].operands[i] + (size_t)w->gpus[k].operands[i].cap * sizeof(value_run);
    }
    return n;
}

void window_free(engine_window *w)
{
    gpus_free(w);
    free(w->operands);
    free(w->scratch);
    memset(w, 0, sizeof *w);
}
