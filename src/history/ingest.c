/* ingest.c - recording into memory: open chunk groups per GPU and series per process, sealing them
 * into encoded blobs, and the bounded queue of what waits to be written. Never touches the disk. */
#include "history/hist_internal.h"
#include "history/codec.h"
#include "util.h"
#include <stdlib.h>
#include <string.h>

static int stored_metric(int m)
{
    return m >= M_STR_END && m < M_COUNT && !(catalog_get((metric_id)m)->flags & MF_BIT);
}

void hist_pend_free(pend *p)
{
    if (!p) return;
    for (int i = 0; p->blobs && i < p->ncols + 1; i++)
        buf_release(&p->blobs[i]);
    free(p->blobs);
    free(p->ids);
    free(p);
}

static uint64_t pend_values(const pend *p)
{
    return p->kind == PEND_GROUP ? (uint64_t)p->n * (uint64_t)p->ncols : p->kind == PEND_PROC ? (uint64_t)p->n * 2 : 0;
}

void hist_queue(history *h, pend *p)
{
    if (!p) return;
    p->next = NULL;
    if (h->tail) h->tail->next = p; else h->head = p;
    h->tail = p;
    h->pending_bytes += p->bytes;
    int dropped = 0;
    while (h->pending_bytes > h->cfg.max_buffer && h->head && h->head != p) {
        pend *old = h->head;
        h->head = old->next;
        h->pending_bytes -= old->bytes;
        h->stats.dropped += pend_values(old);
        hist_pend_free(old);
        dropped++;
    }
    if (dropped && !h->drop_logged)
        gw_log(GW_LOG_WARN, "history: memory buffer full, oldest data dropped", "items=%d buffered_bytes=%zu",
               dropped, h->pending_bytes);
    if (dropped) h->drop_logged = 1;
}

pend *hist_encode_group(history *h, int g, int final)
{
    hgroup *grp = &h->gpus[g]->g;
    if (grp->n == 0) return NULL;
    pend *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->kind = PEND_GROUP;
    p->gpu = g;
    p->final = final;
    p->t_start = grp->t_first;
    p->t_end = grp->t_last;
    p->n = (int64_t)grp->n;
    p->ids = malloc(M_COUNT * sizeof *p->ids);
    p->blobs = calloc(M_COUNT + 1, sizeof *p->blobs);
    /* With coded older slots, each column is decoded whole into these for a moment. */
    int64_t *tt = grp->zn ? malloc(grp->n * sizeof *tt) : NULL;
    double *tv = grp->zn ? malloc(grp->n * sizeof *tv) : NULL;
    uint8_t *tp = grp->zn ? malloc(grp->n) : NULL;
    if (!p->ids || !p->blobs || (grp->zn && (!tt || !tv || !tp || hist_unspill_times(grp, tt) != 0))) goto fail;
    codec_put_times(&p->blobs[0], grp->zn ? tt : grp->t, grp->n);
    p->bytes = sizeof *p + p->blobs[0].len;
    for (int m = M_STR_END; m < M_COUNT; m++) {
        hcol *c = &grp->col[m];
        const double *v = c->v;
        const uint8_t *pres = c->pres;
        if (c->state == HCOL_ARRAY && grp->zn) {
            if (hist_unspill_col(grp, c, tv, tp) != 0) goto fail;
            v = tv;
            pres = tp;
        }
        if (c->state == HCOL_NONE || (c->state == HCOL_ARRAY && !memchr(pres, 1, grp->n))) continue;
        gw_buf *b = &p->blobs[1 + p->ncols];
        if (c->state == HCOL_CONST) codec_put_const_run(b, c->cval, c->from, c->end, grp->n);
        else codec_put_column(b, v, pres, grp->n);
        p->ids[p->ncols++] = (metric_id)m;
        p->bytes += b->len;
    }
    for (int i = 0; i <= p->ncols; i++)
        if (p->blobs[i].oom) goto fail;
    free(tt), free(tv), free(tp);
    return p;
fail:
    free(tt), free(tv), free(tp);
    hist_pend_free(p);
    return NULL;
}

void hist_seal_gpu(history *h, int g)
{
    hist_queue(h, hist_encode_group(h, g, 1));
    h->sealed = 1;
    hgroup *grp = &h->gpus[g]->g;
    grp->n = 0;
    grp->zn = 0;
    buf_release(&grp->zt);
    for (int m = 0; m < M_COUNT; m++) {
        hcol *c = &grp->col[m];
        if (c->state != HCOL_ARRAY) {   /* arrays only for what varied in the last group */
            free(c->v);
            free(c->pres);
            c->v = NULL;
            c->pres = NULL;
        }
        buf_release(&c->z);
        c->state = HCOL_NONE;
    }
}

/* Gives a constant-run column its arrays (slots [0, i) filled in: coded ones, then raw ones). */
static int col_materialize(hgroup *grp, hcol *c, size_t i)
{
    if (!c->v) {
        c->v = malloc(HIST_RAW_SLOTS * sizeof *c->v);
        c->pres = malloc(HIST_RAW_SLOTS);
        if (!c->v || !c->pres) { free(c->v); free(c->pres); c->v = NULL; c->pres = NULL; return -1; }
    }
    if (grp->zn && hist_spill_const(grp, c) != 0) return -1;
    memset(c->pres, 0, i - grp->zn);
    if (c->state == HCOL_CONST)
        for (size_t k = c->from > grp->zn ? c->from : grp->zn; k < c->end; k++) {
            c->pres[k - grp->zn] = 1;
            c->v[k - grp->zn] = c->cval;
        }
    c->state = HCOL_ARRAY;
    return 0;
}

/* Room for one more raw slot: the raw slots are coded once HIST_RAW_SLOTS of them are full. */
static int group_grow(hgroup *grp)
{
    if (grp->n - grp->zn == HIST_RAW_SLOTS && hist_spill(grp) != 0) return -1;
    if (grp->cap) return 0;
    grp->t = malloc(HIST_RAW_SLOTS * sizeof *grp->t);
    if (!grp->t) return -1;
    grp->cap = HIST_RAW_SLOTS;
    return 0;
}

static int same_info(const gpu_info *a, const gpu_info *b)
{
    if (a->index != b->index || memcmp(&a->str_present, &b->str_present, sizeof a->str_present)) return 0;
    for (int m = 0; m < M_STR_END; m++)
        if (mset_has(&a->str_present, (metric_id)m) && strncmp(a->str[m], b->str[m], GW_STR_LEN)) return 0;
    return 1;
}

static void note_info(history *h, int gpu, const gpu_info *info, int64_t t)
{
    hgpu *G = h->gpus[gpu];
    if (G->have_info && same_info(&G->info, info)) return;
    G->info = *info;
    G->have_info = 1;
    pend *p = calloc(1, sizeof *p);
    if (!p) return;
    p->kind = PEND_GPU;
    p->gpu = gpu;
    p->t_start = t;
    p->info = *info;
    p->info.index = gpu;
    p->bytes = sizeof *p;
    hist_queue(h, p);
}

void history_record_sample(history *h, int gpu, const gpu_info *info, const gpu_sample *s)
{
    if (!h || !s || gpu < 0 || gpu >= HIST_MAX_GPUS) return;
    pthread_mutex_lock(&h->mu);
    if (!h->gpus[gpu] && !(h->gpus[gpu] = calloc(1, sizeof *h->gpus[gpu]))) {
        pthread_mutex_unlock(&h->mu);
        return;
    }
    hgpu *G = h->gpus[gpu];
    G->used = 1;
    int64_t t = (int64_t)s->t_us;
    if (info) note_info(h, gpu, info, t);
    hist_detect_events(h, gpu, G->have_prev ? &G->prev : NULL, s);
    G->prev = *s;
    G->have_prev = 1;
    hgroup *grp = &G->g;
    int64_t window = t / ((int64_t)h->cfg.chunk_span_s * 1000000);
    if (s->status != GPU_OK || (grp->n && t == grp->t_last)) {
        pthread_mutex_unlock(&h->mu);
        return;
    }
    if (grp->n && (window != grp->window || grp->n >= HIST_MAX_SLOTS || t < grp->t_last))
        hist_seal_gpu(h, gpu);
    if (grp->n == 0) {
        grp->window = window;
        grp->t_first = t;
    }
    if (group_grow(grp) != 0) {
        pthread_mutex_unlock(&h->mu);
        return;
    }
    size_t i = grp->n, ri = i - grp->zn;   /* slot, and its index among the raw ones */
    grp->t[ri] = t;
    grp->t_last = t;
    for (int m = M_STR_END; m < M_COUNT; m++) {
        if (!stored_metric(m)) continue;
        hcol *c = &grp->col[m];
        int has = sample_has(s, (metric_id)m);
        if (has) h->stats.samples++;
        if (c->state == HCOL_NONE) {
            if (has) {
                c->state = HCOL_CONST;
                c->cval = s->v[m];
                c->from = i;
                c->end = i + 1;
            }
            continue;
        }
        if (c->state == HCOL_CONST) {
            if (!has) continue;
            if (c->end == i && memcmp(&c->cval, &s->v[m], sizeof(double)) == 0) { c->end++; continue; }
            if (col_materialize(grp, c, i) != 0) { c->state = HCOL_NONE; continue; }
        }
        c->pres[ri] = (uint8_t)has;
        if (has) c->v[ri] = s->v[m];
    }
    grp->n++;
    if (t > h->latest_t) h->latest_t = t;
    pthread_mutex_unlock(&h->mu);
}

/* ---------- processes ---------- */

pend *hist_encode_proc(hproc *p, int final)
{
    if (p->n == 0) return NULL;
    pend *q = calloc(1, sizeof *q);
    if (!q) return NULL;
    q->kind = PEND_PROC;
    q->gpu = p->gpu;
    q->pid = p->meta.pid;
    q->final = final;
    q->t_start = p->t[0];
    q->t_end = p->t[p->n - 1];
    q->n = (int64_t)p->n;
    q->blobs = calloc(1, sizeof *q->blobs);
    if (!q->blobs) { free(q); return NULL; }
    codec_put_times(&q->blobs[0], p->t, p->n);
    codec_put_column(&q->blobs[0], p->mem, p->pm, p->n);
    codec_put_column(&q->blobs[0], p->sm, p->ps, p->n);
    if (q->blobs[0].oom) { hist_pend_free(q); return NULL; }
    q->bytes = sizeof *q + q->blobs[0].len;
    return q;
}

void hist_seal_proc(history *h, hproc *p)
{
    hist_queue(h, hist_encode_proc(p, 1));
    p->n = 0;
}

static void proc_release(hproc *p)
{
    free(p->t); free(p->mem); free(p->sm); free(p->pm); free(p->ps);
    memset(p, 0, sizeof *p);
}

static hproc *proc_slot(history *h, int gpu, const gpu_proc *gp)
{
    hproc *free_slot = NULL, *oldest = NULL;
    int free_i = -1;
    for (int i = 0; i < HIST_MAX_PROCS; i++) {
        hproc *p = h->procs[i];
        if (!p) { if (free_i < 0) free_i = i; continue; }
        if (p->gpu == gpu && p->meta.pid == gp->pid && p->meta.start_time_s == gp->start_time_s) return p;
        if (!oldest || p->last_t < oldest->last_t) oldest = p;
    }
    if (free_i >= 0) {
        free_slot = h->procs[free_i] = calloc(1, sizeof *free_slot);
        if (!free_slot) return NULL;
    } else {                    /* full: the least recently seen series is sealed and reused */
        hist_seal_proc(h, oldest);
        proc_release(oldest);
        free_slot = oldest;
    }
    free_slot->used = 1;
    free_slot->gpu = gpu;
    free_slot->meta = *gp;
    free_slot->meta_dirty = 1;
    return free_slot;
}

static int proc_grow(hproc *p)
{
    if (p->n < p->cap) return 0;
    size_t cap = p->cap ? p->cap + p->cap / 2 : 16;   /* 1.5x: a 10-minute series at 1 Hz ends near 609, not 1024 */
    int64_t *t = realloc(p->t, cap * sizeof *t);
    if (t) p->t = t;
    double *mem = t ? realloc(p->mem, cap * sizeof *mem) : NULL;
    if (mem) p->mem = mem;
    double *sm = mem ? realloc(p->sm, cap * sizeof *sm) : NULL;
    if (sm) p->sm = sm;
    uint8_t *pm = sm ? realloc(p->pm, cap) : NULL;
    if (pm) p->pm = pm;
    uint8_t *ps = pm ? realloc(p->ps, cap) : NULL;
    if (!ps) return -1;
    p->ps = ps;
    p->cap = cap;
    return 0;
}

static void queue_proc_meta(history *h, hproc *p, int64_t t)
{
    pend *q = calloc(1, sizeof *q);
    if (!q) return;
    q->kind = PEND_PROC_META;
    q->gpu = p->gpu;
    q->t_start = t;
    q->proc = p->meta;
    q->bytes = sizeof *q;
    hist_queue(h, q);
    p->meta_dirty = 0;
}

void history_record_processes(history *h, int gpu, uint64_t t_us, const gpu_proc *procs, int n)
{
    if (!h || gpu < 0 || gpu >= HIST_MAX_GPUS || n < 0) return;
    int64_t t = (int64_t)t_us;
    int64_t window = t / ((int64_t)h->cfg.chunk_span_s * 1000000);
    pthread_mutex_lock(&h->mu);
    /* series of this GPU whose process is gone end here */
    for (int i = 0; i < HIST_MAX_PROCS; i++) {
        hproc *p = h->procs[i];
        if (!p || p->gpu != gpu) continue;
        int seen = 0;
        for (int j = 0; j < n && !seen; j++)
            seen = procs[j].pid == p->meta.pid && procs[j].start_time_s == p->meta.start_time_s;
        if (!seen) {
            hist_seal_proc(h, p);
            proc_release(p);
            free(p);
            h->procs[i] = NULL;
        }
    }
    for (int j = 0; j < n; j++) {
        hproc *p = proc_slot(h, gpu, &procs[j]);
        if (!p || (p->n && t <= p->last_t)) continue;
        if (strcmp(p->meta.name, procs[j].name) || strcmp(p->meta.user, procs[j].user) ||
            strcmp(p->meta.container, procs[j].container) || strcmp(p->meta.cmdline, procs[j].cmdline)) {
            p->meta = procs[j];
            p->meta_dirty = 1;
        }
        if (p->meta_dirty) queue_proc_meta(h, p, t);
        if (p->n && (window != p->window || p->n >= HIST_MAX_SLOTS)) hist_seal_proc(h, p);
        if (p->n == 0) p->window = window;
        if (proc_grow(p) != 0) continue;
        p->t[p->n] = t;
        p->pm[p->n] = (uint8_t)(procs[j].has_mem != 0);
        p->mem[p->n] = procs[j].has_mem ? procs[j].mem_mib : 0;
        p->ps[p->n] = (uint8_t)(procs[j].has_sm != 0);
        p->sm[p->n] = procs[j].has_sm ? procs[j].sm_util : 0;
        p->n++;
        p->last_t = t;
    }
    if (t > h->latest_t) h->latest_t = t;
    pthread_mutex_unlock(&h->mu);
}

void hist_queue_event(history *h, int64_t t, int gpu, const char *kind, const char *detail)
{
    pend *p = calloc(1, sizeof *p);
    if (!p) return;
    p->kind = PEND_EVENT;
    p->gpu = gpu;
    p->t_start = t;
    gw_strlcpy(p->kind_s, kind ? kind : "event", sizeof p->kind_s);
    gw_strlcpy(p->detail, detail ? detail : "", sizeof p->detail);
    p->bytes = sizeof *p;
    hist_queue(h, p);
}

void history_record_event(history *h, uint64_t t_us, int gpu, const char *kind, const char *detail)
{
    if (!h) return;
    pthread_mutex_lock(&h->mu);
    hist_queue_event(h, (int64_t)t_us, gpu, kind, detail);
    pthread_mutex_unlock(&h->mu);
}

void hist_free_memory(history *h)
{
    for (int g = 0; g < HIST_MAX_GPUS; g++) {
        if (!h->gpus[g]) continue;
        hgroup *grp = &h->gpus[g]->g;
        free(grp->t);
        buf_release(&grp->zt);
        for (int m = 0; m < M_COUNT; m++) {
            free(grp->col[m].v);
            free(grp->col[m].pres);
            buf_release(&grp->col[m].z);
        }
        free(h->gpus[g]);
        h->gpus[g] = NULL;
    }
    for (int i = 0; i < HIST_MAX_PROCS; i++)
        if (h->procs[i]) {
            proc_release(h->procs[i]);
            free(h->procs[i]);
            h->procs[i] = NULL;
        }
    while (h->head) {
        pend *p = h->head;
        h->head = p->next;
        hist_pend_free(p);
    }
    h->tail = NULL;
    h->pending_bytes = 0;
}
