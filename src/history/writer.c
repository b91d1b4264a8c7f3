/* writer.c - history_flush: takes what waits in memory (and checkpoints of open chunks), writes it
 * in one transaction, and on failure (disk full, read-only, I/O error) keeps it for the next try. */
#include "bundle.h"
#include "hist_internal.h"
#include "util.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* A group (or checkpoint piece) is one row: its timeline and columns in a bundle. */
static int write_group(store *st, const pend *p)
{
    int ids[M_COUNT + 1];
    ids[0] = STORE_TIMELINE;
    for (int i = 0; i < p->ncols; i++)
        if (!(ids[i + 1] = store_metric_id(st, p->ids[i])))
            return SQLITE_ERROR;
    gw_buf bundle = {0};
    bundle_put(&bundle, p->ncols + 1, ids, p->blobs);
    int rc = bundle.oom ? SQLITE_NOMEM
                        : store_put_chunk(st, p->final, p->gpu, STORE_BUNDLE, p->t_start, p->t_end, p->n, &bundle);
    buf_release(&bundle);
    if (rc == SQLITE_OK && p->final)
        rc = store_seal_group(st, p->gpu, p->t_start, p->open_from, p->t_end);
    return rc;
}

/* A sealed group or series whose first slots are in the file: merged now from its pieces and
 * what memory kept (open_pieces.c), then written as any other. */
static int write_one(store *st, const pend *p);

static int write_tail(store *st, const pend *p)
{
    pend *full = p->tail ? hist_encode_group_final(st, p->tail, p->gpu) : hist_encode_proc_final(st, p->ptail);
    if (!full) { /* nothing left to write, or out of memory */
        size_t held = p->tail ? p->tail->n - p->tail->base : p->ptail->n - p->ptail->base;
        if (held)
            gw_log(GW_LOG_WARN,
                   "history: a sealed chunk could not be merged; its pieces stay open until the next start",
                   "gpu=%d t_start=%lld", p->gpu, (long long)p->t_start);
        return SQLITE_OK;
    }
    int rc = write_one(st, full);
    hist_pend_free(full);
    return rc;
}

static int write_one(store *st, const pend *p)
{
    if (p->tail || p->ptail)
        return write_tail(st, p);
    switch (p->kind) {
    case PEND_GROUP: return write_group(st, p);
    case PEND_PROC: {
        int rc = p->final ? store_drop_proc_pieces(st, p->gpu, p->pid, p->open_from, p->t_end) : SQLITE_OK;
        if (rc == SQLITE_OK)
            rc = store_put_proc_chunk(st, p->gpu, p->pid, p->t_start, p->t_end, p->n, &p->blobs[0]);
        char sql[160];
        snprintf(sql, sizeof sql, "UPDATE procs SET last_seen=max(last_seen, %lld) WHERE gpu=%d AND pid=%u",
                 (long long)p->t_end, p->gpu, p->pid);
        return rc == SQLITE_OK ? store_exec(st, sql) : rc;
    }
    case PEND_EVENT: return store_put_event(st, p->t_start, p->gpu, p->kind_s, p->detail);
    case PEND_PROC_META: return store_put_proc(st, p->gpu, &p->proc, p->t_start);
    case PEND_GPU: return store_put_gpu(st, &p->info, p->t_start);
    }
    return SQLITE_OK;
}

/* What a flush checkpointed of one open group or series: after the commit, memory drops those
 * slots when the group is still the same one (not sealed meanwhile). */
typedef struct ckpt {
    int done;
    unsigned seals; /* groups: the GPU's seal count when encoded */
    unsigned pid;   /* series: which one */
    uint64_t start_time;
    int64_t t_first;
    size_t n; /* slots [0, n) are in the file */
} ckpt;

/* The piece of GPU g's open group (the slots memory holds), encoded under h->mu. */
static pend *checkpoint_group(history *h, int g, ckpt *ck)
{
    pthread_mutex_lock(&h->mu);
    hgpu *G = h->gpus[g];
    pend *p = G && G->g.n > G->g.base ? hist_encode_group(&G->g, g, 0) : NULL;
    if (p) {
        G->g.writing = G->g.n;
        *ck = (ckpt){1, G->seals, 0, 0, G->g.t_first, G->g.n};
    }
    pthread_mutex_unlock(&h->mu);
    return p;
}

static pend *checkpoint_proc(history *h, int i, ckpt *ck)
{
    pthread_mutex_lock(&h->mu);
    hproc *q = h->procs[i];
    pend *p = q && q->n > q->base ? hist_encode_proc(q, 0) : NULL;
    if (p)
        *ck = (ckpt){1, 0, q->meta.pid, q->meta.start_time_s, q->t_first, q->n};
    pthread_mutex_unlock(&h->mu);
    return p;
}

/* Checkpoints of the open chunks, encoded one at a time and written at once, so that a single
 * encoded chunk is in memory, never all of them. */
static int write_checkpoints(history *h, ckpt *ck)
{
    int rc = SQLITE_OK;
    for (int i = 0; i < HIST_MAX_GPUS + HIST_MAX_PROCS && rc == SQLITE_OK; i++) {
        pend *p = i < HIST_MAX_GPUS ? checkpoint_group(h, i, &ck[i]) : checkpoint_proc(h, i - HIST_MAX_GPUS, &ck[i]);
        if (p) {
            rc = write_one(h->st, p);
            hist_pend_free(p);
        }
    }
    return rc;
}

/* After the transaction: on a commit, memory gives up the slots the file now holds. */
static void end_checkpoints(history *h, const ckpt *ck, int committed)
{
    pthread_mutex_lock(&h->mu);
    for (int i = 0; i < HIST_MAX_GPUS + HIST_MAX_PROCS; i++) {
        if (!ck[i].done)
            continue;
        if (i < HIST_MAX_GPUS) {
            hgpu *G = h->gpus[i];
            if (!G || G->seals != ck[i].seals || G->g.t_first != ck[i].t_first)
                continue;
            G->g.writing = 0;
            if (committed)
                hist_group_drop(&G->g, ck[i].n);
        } else if (committed) {
            hproc *q = h->procs[i - HIST_MAX_GPUS];
            if (q && q->meta.pid == ck[i].pid && q->meta.start_time_s == ck[i].start_time &&
                q->t_first == ck[i].t_first)
                hist_proc_drop(q, ck[i].n);
        }
    }
    pthread_mutex_unlock(&h->mu);
}

/* One transaction: what waits in memory (sealed chunks, events, ...), the alert states handed over
 * (NULL: none), then the checkpoints. */
static int write_all(history *h, const pend *list, const alert_records *alert_states)
{
    ckpt *ck = calloc(HIST_MAX_GPUS + HIST_MAX_PROCS, sizeof *ck);
    if (!ck)
        return SQLITE_NOMEM;
    int rc = store_exec(h->st, "BEGIN IMMEDIATE");
    for (const pend *p = list; p && rc == SQLITE_OK; p = p->next)
        rc = write_one(h->st, p);
    if (rc == SQLITE_OK && alert_states)
        rc = hist_write_alert_states(h->st, alert_states);
    if (rc == SQLITE_OK)
        rc = write_checkpoints(h, ck);
    if (rc == SQLITE_OK)
        rc = store_exec(h->st, "COMMIT");
    if (rc != SQLITE_OK)
        store_exec(h->st, "ROLLBACK");
    end_checkpoints(h, ck, rc == SQLITE_OK);
    free(ck);
    return rc;
}

static void free_list(pend *p)
{
    while (p) {
        pend *next = p->next;
        hist_pend_free(p);
        p = next;
    }
}

/* SQLite's word that the file itself is damaged, as opposed to a full disk, a read-only file or an
 * I/O error, which pass: a damaged file would refuse every write from now on. */
static int is_damage(int rc)
{
    return rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB;
}

/* The file is damaged: it goes aside as PATH.damaged-YYYYMMDDTHHMMSSZ (with its -wal, which belongs
 * to it; the -shm is rebuilt) for `gpuwatch history check` and whatever can be read from it, and
 * the next open makes a new file at PATH. What the new file needs that the old one had (GPU
 * identities, process details) is queued again. Returns 0, or -1 when it cannot be moved. */
static int move_aside(history *h, int why)
{
    if (h->st) {
        store_close(h->st);
        h->st = NULL;
    }
    char stamp[32], aside[4200 + 32], from[4200], to[4200 + 64];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
    snprintf(aside, sizeof aside, "%s.damaged-%s", h->path, stamp);
    for (int i = 2; access(aside, F_OK) == 0 && i < 100; i++) /* one earlier the same second */
        snprintf(aside, sizeof aside, "%s.damaged-%s-%d", h->path, stamp, i);
    if (rename(h->path, aside) != 0) {
        if (!h->failing)
            gw_log(GW_LOG_ERROR, "history: file damaged and cannot be moved aside; recording to memory",
                   "path=%s err=\"%s\"", h->path, sqlite3_errstr(why));
        return -1;
    }
    snprintf(from, sizeof from, "%s-wal", h->path);
    snprintf(to, sizeof to, "%s-wal", aside);
    rename(from, to);
    snprintf(from, sizeof from, "%s-shm", h->path);
    unlink(from);
    gw_log(GW_LOG_ERROR, "history: file damaged; moved aside, recording into a new file",
           "path=%s moved_to=%s err=\"%s\"", h->path, aside, sqlite3_errstr(why));
    pthread_mutex_lock(&h->mu);
    h->stats.damaged_files++;
    hist_requeue_meta(h);
    pthread_mutex_unlock(&h->mu);
    h->recovered = 0;
    return 0;
}

/* Opens the file when it is not open; the first open of a handle seals what an earlier run left
 * open (its checkpoints at a crash or kill). A damaged file is moved aside and a new one made. */
static int ensure_store(history *h)
{
    if (h->st)
        return 0;
    for (int attempt = 0;; attempt++) {
        char err[512];
        int rc;
        h->st = store_open_rc(h->path, 0, &rc, err, sizeof err);
        if (!h->st && is_damage(rc) && attempt == 0 && move_aside(h, rc) == 0)
            continue;
        if (!h->st) {
            if (!h->failing)
                gw_log(GW_LOG_ERROR, "history: cannot open the file; recording to memory until it can", "err=\"%s\"",
                       err);
            h->failing = 1;
            return -1;
        }
        if (h->recovered)
            return 0;
        rc = store_exec(h->st, "BEGIN IMMEDIATE");
        if (rc == SQLITE_OK)
            rc = store_recover_open(h->st, INT64_MAX);
        if (rc == SQLITE_OK)
            rc = store_exec(h->st, "COMMIT");
        if (rc == SQLITE_OK) {
            h->recovered = 1;
            return 0;
        }
        store_exec(h->st, "ROLLBACK");
        store_close(h->st);
        h->st = NULL;
        if (!(is_damage(rc) && attempt == 0 && move_aside(h, rc) == 0))
            return -1;
    }
}

static int prune_locked(history *h, int64_t now_us);

static void maybe_prune(history *h, int64_t latest)
{
    if (latest - h->last_prune_t < 60 * 1000000ll)
        return;
    h->last_prune_t = latest;
    prune_locked(h, latest);
}

int history_flush(history *h)
{
    if (!h)
        return -1;
    pthread_mutex_lock(&h->flush_mu);
    pthread_mutex_lock(&h->mu);
    pend *list = h->head;
    h->head = h->tail = NULL;
    size_t list_bytes = h->pending_bytes;
    h->pending_bytes = 0;
    int64_t latest = h->latest_t;
    alert_records *states = h->alert_states;
    h->alert_states = NULL;
    pthread_mutex_unlock(&h->mu);

    int rc = ensure_store(h) == 0 ? write_all(h, list, states) : SQLITE_CANTOPEN;
    if (is_damage(rc) && move_aside(h, rc) == 0) /* once more, into the new file */
        rc = ensure_store(h) == 0 ? write_all(h, list, states) : SQLITE_CANTOPEN;
    pthread_mutex_lock(&h->mu);
    if (rc != SQLITE_OK && !h->alert_states) /* written at the next try, unless a newer one came */
        h->alert_states = states;
    else
        hist_alert_states_free(states);
    h->stats.flushes++;
    if (rc == SQLITE_OK) {
        if (h->failing)
            gw_log(GW_LOG_INFO, "history: writing again", "path=%s", h->path);
        h->failing = 0;
        h->drop_logged = 0;
        h->stats.writable = 1;
        pthread_mutex_unlock(&h->mu);
        free_list(list);
        maybe_prune(h, latest);
        pthread_mutex_unlock(&h->flush_mu);
        return 0;
    }
    h->stats.flush_errors++;
    h->stats.writable = 0;
    if (h->st) {
        if (!h->failing)
            gw_log(GW_LOG_ERROR, "history: write failed; buffering in memory and retrying at each flush",
                   "path=%s err=\"%s\"", h->path, sqlite3_errstr(rc));
        h->failing = 1;
        store_close(h->st); /* reopened at the next flush: a chmod or freed space is then seen */
        h->st = NULL;
    }
    /* put the unwritten items back in front of what arrived meanwhile, then enforce the bound */
    if (list) {
        pend *last = list;
        while (last->next)
            last = last->next;
        last->next = h->head;
        if (!h->tail)
            h->tail = last;
        h->head = list;
        h->pending_bytes += list_bytes;
        while (h->pending_bytes > h->cfg.max_buffer && h->head && h->head->next) {
            pend *old = h->head;
            h->head = old->next;
            h->pending_bytes -= old->bytes;
            h->stats.dropped += old->kind == PEND_GROUP ? (uint64_t)old->n * (uint64_t)old->ncols : 0;
            hist_pend_free(old);
            if (!h->drop_logged)
                gw_log(GW_LOG_WARN, "history: memory buffer full, oldest data dropped", "buffered_bytes=%zu",
                       h->pending_bytes);
            h->drop_logged = 1;
        }
    }
    pthread_mutex_unlock(&h->mu);
    pthread_mutex_unlock(&h->flush_mu);
    return -1;
}

static int prune_locked(history *h, int64_t now_us)
{
    if (!h->st)
        return -1;
    int rc = store_exec(h->st, "BEGIN IMMEDIATE");
    if (rc == SQLITE_OK)
        rc = store_prune(h->st, now_us, (int64_t)(h->cfg.raw_retention_s * 1e6),
                         (int64_t)(h->cfg.rollup_retention_s * 1e6), h->cfg.max_size);
    if (rc == SQLITE_OK)
        rc = store_exec(h->st, "COMMIT");
    if (rc != SQLITE_OK) {
        store_exec(h->st, "ROLLBACK");
        gw_log(GW_LOG_WARN, "history: pruning failed", "err=\"%s\"", sqlite3_errstr(rc));
        return -1;
    }
    return 0;
}

int history_prune(history *h, uint64_t now_us)
{
    if (!h)
        return -1;
    pthread_mutex_lock(&h->flush_mu);
    int rc = ensure_store(h) == 0 ? prune_locked(h, (int64_t)now_us) : -1;
    pthread_mutex_unlock(&h->flush_mu);
    return rc;
}
