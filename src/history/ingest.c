/* ingest.c - recording into memory: open chunk groups per GPU and series per process, sealing them
 * into encoded blobs, and the bounded queue of what waits to be written. Never touches the disk. */
#include "hist_internal.h"
#include "codec.h"
#include "util.h"
#include <stdlib.h>
#include <string.h>

static int stored_metric(int m)
{
    return m >= M_STR_END && m < M_COUNT && !(catalog_get((metric_id)m)->flags & MF_BIT);
}

void hist_pend_free(pend *p)
{
    if (!p)
        return;
    for (int i = 0; p->blobs && i < p->ncols + 1; i++)
        buf_release(&p->blobs[i]);
    free(p->blobs);
    free(p->ids);
    if (p->tail) {
        hist_group_free(p->tail);
        free(p->tail);
    }
    if (p->ptail) {
        hist_proc_free(p->ptail);
        free(p->ptail);
    }
    free(p);
}

static uint64_t pend_values(const pend *p)
{
    return p->kind == PEND_GROUP ? (uint64_t)p->n * (uint64_t)p->ncols : p->kind == PEND_PROC ? (uint64_t)p->n * 2 : 0;
}

void hist_queue(history *h, pend *p)
{
    if (!p)
        return;
    p->next = NULL;
    if (h->tail)
        h->tail->next = p;
    else
        h->head = p;
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
        gw_log(GW_LOG_WARN, "history: memory buffer full, oldest data dropped", "items=%d buffered_bytes=%zu", dropped,
               h->pending_bytes);
    if (dropped)
        h->drop_logged = 1;
}

void hist_group_free(hgroup *grp)
{
    free(grp->t);
    buf_release(&grp->zt);
    for (int m = 0; m < M_COUNT; m++) {
        free(grp->col[m].v);
        free(grp->col[m].pres);
        buf_release(&grp->col[m].z);
    }
    memset(grp, 0, sizeof *grp);
}

/* Queues the open group of a GPU and starts an empty one. A group whose first slots are only in
 * the file goes to the writer as it is (it merges it with its pieces); another is encoded now. */
void hist_seal_gpu(history *h, int g)
{
    hgpu *G = h->gpus[g];
    hgroup *grp = &G->g;
    pend *p = NULL;
    if (grp->base == 0) {
        p = hist_encode_group(grp, g, 1);
        if (p)
            p->open_from = grp->t_first;
    } else if ((p = calloc(1, sizeof *p)) && (p->tail = malloc(sizeof *p->tail))) {
        p->kind = PEND_GROUP;
        p->gpu = g;
        p->final = 1;
        p->t_start = p->open_from = grp->t_first;
        p->t_end = grp->t_last;
        p->n = (int64_t)grp->n;
        *p->tail = *grp;
        memset(grp, 0, sizeof *grp); /* the arrays and buffers now belong to the tail */
        p->bytes = sizeof *p + sizeof *p->tail + (p->tail->n - p->tail->base) * 16;
    } else {
        free(p);
        p = NULL;
    }
    hist_queue(h, p);
    h->sealed = 1;
    G->seals++;
    hist_group_free(grp);
}

/* Gives a constant-run column its arrays (slots [0, i) filled in: coded ones, then raw ones). */
static int col_materialize(hgroup *grp, hcol *c, size_t i)
{
    double *v = realloc(c->v, grp->cap * sizeof *v);
    if (v)
        c->v = v;
    uint8_t *pres = v ? realloc(c->pres, grp->cap) : NULL;
    if (!pres)
        return -1;
    c->pres = pres;
    if (grp->zn > grp->base && hist_spill_const(grp, c) != 0)
        return -1;
    memset(c->pres, 0, i - grp->zn);
    if (c->state == HCOL_CONST)
        for (size_t k = c->from > grp->zn ? c->from : grp->zn; k < c->end; k++) {
            c->pres[k - grp->zn] = 1;
            c->v[k - grp->zn] = c->cval;
        }
    c->state = HCOL_ARRAY;
    return 0;
}

/* Gives the raw arrays (the timeline and every varying column) room for cap slots. 0 or -1. */
static int group_resize(hgroup *grp, size_t cap)
{
    int64_t *t = realloc(grp->t, cap * sizeof *t);
    if (!t)
        return -1;
    grp->t = t;
    for (int m = M_STR_END; m < M_COUNT; m++) {
        hcol *c = &grp->col[m];
        if (c->state != HCOL_ARRAY)
            continue;
        double *v = realloc(c->v, cap * sizeof *v);
        if (v)
            c->v = v;
        uint8_t *pres = v ? realloc(c->pres, cap) : NULL;
        if (!pres) {
            if (cap > grp->cap)
                return -1;
            continue;
        } /* a failed shrink keeps the larger one */
        c->pres = pres;
    }
    grp->cap = cap;
    return 0;
}

/* Room for one more raw slot: the raw arrays start small (a checkpoint usually takes the slots
 * away first) and double up to HIST_RAW_SLOTS; that many raw slots are then coded, unless a
 * checkpoint piece is being written (the arrays grow until it is committed and dropped). */
static int group_grow(hgroup *grp)
{
    size_t raw = grp->n - grp->zn;
    if (raw < grp->cap)
        return 0;
    if (grp->cap < HIST_RAW_SLOTS || grp->writing)
        return group_resize(grp, grp->cap ? grp->cap * 2 : HIST_RAW_MIN);
    return hist_spill(grp);
}

void hist_group_drop(hgroup *grp, size_t upto)
{
    /* nothing was coded since the piece was encoded (`writing`), so it holds every coded slot */
    if (upto > grp->n || upto < grp->zn)
        return;
    buf_release(&grp->zt);
    size_t k = upto - grp->zn, raw = grp->n - grp->zn;
    memmove(grp->t, grp->t + k, (raw - k) * sizeof *grp->t);
    for (int m = M_STR_END; m < M_COUNT; m++) {
        hcol *c = &grp->col[m];
        buf_release(&c->z);
        if (c->state != HCOL_ARRAY)
            continue;
        memmove(c->v, c->v + k, (raw - k) * sizeof *c->v);
        memmove(c->pres, c->pres + k, raw - k);
    }
    grp->zn = grp->base = upto;
    if (grp->cap > HIST_RAW_MIN && raw - k <= HIST_RAW_MIN / 2)
        group_resize(grp, HIST_RAW_MIN);
}

static int same_info(const gpu_info *a, const gpu_info *b)
{
    if (a->index != b->index || memcmp(&a->str_present, &b->str_present, sizeof a->str_present))
        return 0;
    for (int m = 0; m < M_STR_END; m++)
        if (mset_has(&a->str_present, (metric_id)m) && strncmp(a->str[m], b->str[m], GW_STR_LEN))
            return 0;
    return 1;
}

static void queue_proc_meta(history *h, hproc *p, int64_t t);

static void note_info(history *h, int gpu, const gpu_info *info, int64_t t)
{
    hgpu *G = h->gpus[gpu];
    if (G->have_info && same_info(&G->info, info))
        return;
    G->info = *info;
    G->have_info = 1;
    pend *p = calloc(1, sizeof *p);
    if (!p)
        return;
    p->kind = PEND_GPU;
    p->gpu = gpu;
    p->t_start = t;
    p->info = *info;
    p->info.index = gpu;
    p->bytes = sizeof *p;
    hist_queue(h, p);
}

void hist_requeue_meta(history *h)
{
    for (int g = 0; g < HIST_MAX_GPUS; g++) {
        hgpu *G = h->gpus[g];
        if (G && G->have_info) {
            G->have_info = 0;
            note_info(h, g, &G->info, G->g.n ? G->g.t_first : h->latest_t);
        }
    }
    for (int i = 0; i < HIST_MAX_PROCS; i++)
        if (h->procs[i])
            queue_proc_meta(h, h->procs[i], h->procs[i]->t_first);
}

void history_record_sample(history *h, int gpu, const gpu_info *info, const gpu_sample *s)
{
    if (!h || !s || gpu < 0 || gpu >= HIST_MAX_GPUS)
        return;
    pthread_mutex_lock(&h->mu);
    if (!h->gpus[gpu] && !(h->gpus[gpu] = calloc(1, sizeof *h->gpus[gpu]))) {
        pthread_mutex_unlock(&h->mu);
        return;
    }
    hgpu *G = h->gpus[gpu];
    G->used = 1;
    int64_t t = (int64_t)s->t_us;
    if (info)
        note_info(h, gpu, info, t);
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
    size_t i = grp->n, ri = i - grp->zn; /* slot, and its index among the raw ones */
    grp->t[ri] = t;
    grp->t_last = t;
    for (int m = M_STR_END; m < M_COUNT; m++) {
        if (!stored_metric(m))
            continue;
        hcol *c = &grp->col[m];
        int has = sample_has(s, (metric_id)m);
        if (has)
            h->stats.samples++;
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
            if (!has)
                continue;
            if (c->end == i && memcmp(&c->cval, &s->v[m], sizeof(double)) == 0) {
                c->end++;
                continue;
            }
            if (col_materialize(grp, c, i) != 0) {
                c->state = HCOL_NONE;
                continue;
            }
        }
        c->pres[ri] = (uint8_t)has;
        if (has)
            c->v[ri] = s->v[m];
    }
    grp->n++;
    if (t > h->latest_t)
        h->latest_t = t;
    pthread_mutex_unlock(&h->mu);
}

/* ---------- processes ---------- */

void hist_seal_proc(history *h, hproc *p)
{
    pend *q = NULL;
    if (p->base == 0) {
        q = hist_encode_proc(p, 1);
        p->n = 0; /* the arrays stay for the next series */
    } else if ((q = calloc(1, sizeof *q)) && (q->ptail = malloc(sizeof *q->ptail))) {
        q->kind = PEND_PROC;
        q->gpu = p->gpu;
        q->pid = p->meta.pid;
        q->final = 1;
        q->t_start = p->t_first;
        q->t_end = p->last_t;
        q->n = (int64_t)p->n;
        *q->ptail = *p; /* the arrays now belong to the tail */
        p->t = NULL, p->mem = p->sm = NULL, p->pm = p->ps = NULL;
        p->n = p->cap = 0;
        q->bytes = sizeof *q + sizeof *q->ptail + (q->ptail->n - q->ptail->base) * 26;
    } else {
        free(q);
        q = NULL;
        p->n = 0;
    }
    p->base = 0;
    hist_queue(h, q);
}

void hist_proc_free(hproc *p)
{
    free(p->t);
    free(p->mem);
    free(p->sm);
    free(p->pm);
    free(p->ps);
    memset(p, 0, sizeof *p);
}

static hproc *proc_slot(history *h, int gpu, const gpu_proc *gp)
{
    hproc *free_slot = NULL, *oldest = NULL;
    int free_i = -1;
    for (int i = 0; i < HIST_MAX_PROCS; i++) {
        hproc *p = h->procs[i];
        if (!p) {
            if (free_i < 0)
                free_i = i;
            continue;
        }
        if (p->gpu == gpu && p->meta.pid == gp->pid && p->meta.start_time_s == gp->start_time_s)
            return p;
        if (!oldest || p->last_t < oldest->last_t)
            oldest = p;
    }
    if (free_i >= 0) {
        free_slot = h->procs[free_i] = calloc(1, sizeof *free_slot);
        if (!free_slot)
            return NULL;
    } else { /* full: the least recently seen series is sealed and reused */
        hist_seal_proc(h, oldest);
        hist_proc_free(oldest);
        free_slot = oldest;
    }
    free_slot->used = 1;
    free_slot->gpu = gpu;
    free_slot->meta = *gp;
    free_slot->meta_dirty = 1;
    return free_slot;
}

/* Gives the series' arrays (slots [base, n)) room for cap slots. 0 or -1. An array that cannot
 * grow fails the call (cap unchanged: each array still holds at least that); one that cannot
 * shrink keeps its larger block. */
static int proc_resize(hproc *p, size_t cap)
{
    int grow = cap > p->cap;
    void *a;
    if ((a = realloc(p->t, cap * sizeof *p->t)))
        p->t = a;
    else if (grow)
        return -1;
    if ((a = realloc(p->mem, cap * sizeof *p->mem)))
        p->mem = a;
    else if (grow)
        return -1;
    if ((a = realloc(p->sm, cap * sizeof *p->sm)))
        p->sm = a;
    else if (grow)
        return -1;
    if ((a = realloc(p->pm, cap)))
        p->pm = a;
    else if (grow)
        return -1;
    if ((a = realloc(p->ps, cap)))
        p->ps = a;
    else if (grow)
        return -1;
    p->cap = cap;
    return 0;
}

static int proc_grow(hproc *p)
{
    if (p->n - p->base < p->cap)
        return 0;
    return proc_resize(p, p->cap ? p->cap + p->cap / 2
                                 : 16); /* 1.5x: a 10-minute series at 1 Hz ends near 609, not 1024 */
}

void hist_proc_drop(hproc *p, size_t upto)
{
    if (upto > p->n)
        upto = p->n;
    if (upto <= p->base)
        return;
    size_t k = upto - p->base, left = p->n - upto;
    memmove(p->t, p->t + k, left * sizeof *p->t);
    memmove(p->mem, p->mem + k, left * sizeof *p->mem);
    memmove(p->sm, p->sm + k, left * sizeof *p->sm);
    memmove(p->pm, p->pm + k, left);
    memmove(p->ps, p->ps + k, left);
    p->base = upto;
    if (p->cap > 16 && left <= 8)
        proc_resize(p, 16); /* the arrays grew for a flush interval of slots */
}

static void queue_proc_meta(history *h, hproc *p, int64_t t)
{
    pend *q = calloc(1, sizeof *q);
    if (!q)
        return;
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
    if (!h || gpu < 0 || gpu >= HIST_MAX_GPUS || n < 0)
        return;
    int64_t t = (int64_t)t_us;
    int64_t window = t / ((int64_t)h->cfg.chunk_span_s * 1000000);
    pthread_mutex_lock(&h->mu);
    /* series of this GPU whose process is gone end here */
    for (int i = 0; i < HIST_MAX_PROCS; i++) {
        hproc *p = h->procs[i];
        if (!p || p->gpu != gpu)
            continue;
        int seen = 0;
        for (int j = 0; j < n && !seen; j++)
            seen = procs[j].pid == p->meta.pid && procs[j].start_time_s == p->meta.start_time_s;
        if (!seen) {
            hist_seal_proc(h, p);
            hist_proc_free(p);
            free(p);
            h->procs[i] = NULL;
        }
    }
    for (int j = 0; j < n; j++) {
        hproc *p = proc_slot(h, gpu, &procs[j]);
        if (!p || (p->n && t <= p->last_t))
            continue;
        if (strcmp(p->meta.name, procs[j].name) || strcmp(p->meta.user, procs[j].user) ||
            strcmp(p->meta.container, procs[j].container) || strcmp(p->meta.cmdline, procs[j].cmdline)) {
            p->meta = procs[j];
            p->meta_dirty = 1;
        }
        if (p->meta_dirty)
            queue_proc_meta(h, p, t);
        if (p->n && (window != p->window || p->n >= HIST_MAX_SLOTS))
            hist_seal_proc(h, p);
        if (p->n == 0) {
            p->window = window;
            p->t_first = t;
        }
        if (proc_grow(p) != 0)
            continue;
        size_t k = p->n - p->base;
        p->t[k] = t;
        p->pm[k] = (uint8_t)(procs[j].has_mem != 0);
        p->mem[k] = procs[j].has_mem ? procs[j].mem_mib : 0;
        p->ps[k] = (uint8_t)(procs[j].has_sm != 0);
        p->sm[k] = procs[j].has_sm ? procs[j].sm_util : 0;
        p->n++;
        p->last_t = t;
    }
    if (t > h->latest_t)
        h->latest_t = t;
    pthread_mutex_unlock(&h->mu);
}

void hist_queue_event(history *h, int64_t t, int gpu, const char *kind, const char *detail)
{
    pend *p = calloc(1, sizeof *p);
    if (!p)
        return;
    p->kind = PEND_EVENT;
    p->gpu = gpu;
    p->t_start = t;
    gw_strlcpy(p->kind_s, kind ? kind : "event", sizeof p->kind_s);
    gw_strlcpy(p->detail, detail ? detail : "", sizeof p->detail);
    p->bytes = sizeof *p;
    hist_queue(h, p);
}

void history_record_event(history *h, const gw_event *ev)
{
    char detail[sizeof((pend *)0)->detail];
    if (!h || history_event_text(ev, detail, sizeof detail) != 0)
        return;
    pthread_mutex_lock(&h->mu);
    hist_queue_event(h, (int64_t)ev->t_us, ev->gpu, event_kind_name(ev->kind), detail);
    pthread_mutex_unlock(&h->mu);
}

void hist_free_memory(history *h)
{
    for (int g = 0; g < HIST_MAX_GPUS; g++) {
        if (!h->gpus[g])
            continue;
        hist_group_free(&h->gpus[g]->g);
        free(h->gpus[g]);
        h->gpus[g] = NULL;
    }
    for (int i = 0; i < HIST_MAX_PROCS; i++)
        if (h->procs[i]) {
            hist_proc_free(h->procs[i]);
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
