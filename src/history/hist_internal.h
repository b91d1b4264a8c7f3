/* hist_internal.h - the in-memory side of a history handle, shared by ingest.c, writer.c and the others. */
#ifndef GPUWATCH_HIST_INTERNAL_H
#define GPUWATCH_HIST_INTERNAL_H

#include <pthread.h>
#include "alert_record.h"
#include "event.h"
#include "history.h"
#include "store.h"

#define HIST_MAX_GPUS 64
#define HIST_MAX_SLOTS 4096 /* a chunk is sealed early when it reaches this many samples */
#define HIST_MAX_PROCS 512  /* open per-process series kept in memory */
#define HIST_RAW_SLOTS 64   /* an open group keeps its newest slots raw, older ones coded */
#define HIST_RAW_MIN 16     /* raw slots first allocated (doubled up to HIST_RAW_SLOTS) */

/* One metric's values in an open chunk group. A metric that stays constant (most of them) takes
 * no arrays: it is the run [from, end) of one value; arrays are made at its first change or gap. */
enum { HCOL_NONE, HCOL_CONST, HCOL_ARRAY };
typedef struct hcol {
    int state; /* HCOL_*: nothing yet in this group / one constant run / arrays */
    double cval;
    size_t from, end;
    double *v; /* HCOL_ARRAY: raw slots [zn, n), at v[slot - zn] */
    uint8_t *pres;
    gw_buf z; /* HCOL_ARRAY: slots [base, zn), one codec segment per HIST_RAW_SLOTS */
} hcol;

/* The open chunk group of a GPU: one timeline and a column per stored metric. Slots [0, base) are
 * only in the file: committed checkpoint pieces hold them, and they were dropped from memory
 * (open_pieces.c). Of the others, the newest [zn, n) are raw and the older [base, zn) are kept
 * coded (spill.c). A constant column (HCOL_CONST) keeps its run over all slots: a run's value
 * and bounds cost nothing to keep. */
typedef struct hgroup {
    int64_t window; /* t / chunk span of the first sample */
    size_t n, cap;  /* cap: raw slots allocated (0, or HIST_RAW_MIN doubled) */
    size_t base;    /* slots [0, base) are in the file only */
    size_t writing; /* a piece of slots [base, writing) is being written: no spilling
                                       meanwhile, so that the commit can drop exactly those (0: none) */
    size_t zn;      /* slots [base, zn) are coded; (zn - base) is a multiple of HIST_RAW_SLOTS */
    int64_t t_first, t_last;
    int64_t *t; /* raw slots, at t[slot - zn] */
    gw_buf zt;  /* times of slots [base, zn), one codec segment per HIST_RAW_SLOTS */
    hcol col[M_COUNT];
} hgroup;

typedef struct hgpu {
    int used;
    unsigned seals; /* groups sealed so far: tells the writer that g is a new group */
    hgroup g;
    gpu_info info;
    int have_info, info_dirty;
} hgpu;

/* The open series of one process on one GPU. Slots [0, base) are only in the file (a committed
 * checkpoint); the arrays hold slots [base, n), at index slot - base. */
typedef struct hproc {
    int used, gpu;
    gpu_proc meta;
    int meta_dirty;
    int64_t window, last_t, t_first;
    size_t n, cap, base;
    int64_t *t;
    double *mem, *sm;
    uint8_t *pm, *ps;
} hproc;

/* Something waiting to be written: a sealed (final) or checkpointed chunk, or an event. */
typedef enum { PEND_GROUP, PEND_PROC, PEND_EVENT, PEND_PROC_META, PEND_GPU } pend_kind;
typedef struct pend {
    struct pend *next;
    pend_kind kind;
    int gpu, final;
    unsigned pid;
    int64_t t_start, t_end, n;
    int ncols;
    metric_id *ids;               /* PEND_GROUP: metric of each blob after the timeline */
    gw_buf *blobs;                /* PEND_GROUP: timeline + ncols columns; PEND_PROC: one blob */
    hgroup *tail;                 /* PEND_GROUP, no blobs: a sealed group whose first slots are in the
                                       file; the writer completes it from its pieces (open_pieces.c) */
    int64_t open_from;            /* final: its pieces start from here (the group's or series' first slot) */
    hproc *ptail;                 /* PEND_PROC, no blobs: the same for a process series */
    char kind_s[32], detail[224]; /* PEND_EVENT */
    gpu_proc proc;                /* PEND_PROC_META */
    gpu_info info;                /* PEND_GPU */
    size_t bytes;
} pend;

struct history {
    history_config cfg;
    char path[4096];
    pthread_mutex_t mu;       /* ingest state and the pending queue */
    pthread_mutex_t flush_mu; /* one flush at a time */
    pthread_cond_t wake;
    pthread_t thread;
    int thread_on, stopping;
    int sealed;                   /* a chunk was sealed since the writer last woke */
    hgpu *gpus[HIST_MAX_GPUS];    /* allocated at a GPU's first sample */
    hproc *procs[HIST_MAX_PROCS]; /* allocated while a series is open */
    pend *head, *tail;            /* oldest first */
    size_t pending_bytes;
    int64_t latest_t; /* newest recorded timestamp (data time, for retention) */
    int64_t last_prune_t;
    store *st;       /* NULL while the file cannot be opened */
    int failing;     /* last write failed (logged once per episode) */
    int drop_logged; /* "buffer full" was logged in this failure episode */
    int recovered;   /* open chunks of an earlier run were sealed */
    history_stats stats;
    alert_records *alert_states; /* the alert engine's state handed over and not written yet, or NULL */
};

/* ingest.c */
void hist_seal_gpu(history *h, int g); /* seals the open group of a GPU into the queue */
void hist_seal_proc(history *h, hproc *p);
void hist_queue(history *h, pend *p); /* appends; drops the oldest past max_buffer */
void hist_pend_free(pend *p);
void hist_group_free(hgroup *grp); /* its arrays and buffers (not grp itself) */
void hist_proc_free(hproc *p);     /* its arrays (not p itself); p is zeroed */
void hist_free_memory(history *h);
/* Queues again what a new file needs to be written into it (each GPU's identity, each open series'
 * process details): after a damaged file was moved aside. Called under h->mu. */
void hist_requeue_meta(history *h);
/* After a piece of the slots [base, upto) was committed: drops them from memory. */
void hist_group_drop(hgroup *grp, size_t upto);
void hist_proc_drop(hproc *p, size_t upto);

/* open_pieces.c: a checkpoint writes the slots memory holds, [base, n), as a piece (a chunk of
 * open_chunks, or of proc_chunks for a series); once committed, memory drops them. A sealed group
 * or series is then merged from its pieces and memory on the writer thread (hist_encode_*_final). */
pend *hist_encode_group(const hgroup *grp, int gpu, int final); /* slots [base, n); NULL: none or OOM */
pend *hist_encode_proc(const hproc *p, int final);              /* the same for a series */
pend *hist_encode_group_final(store *st, const hgroup *grp, int gpu);
pend *hist_encode_proc_final(store *st, const hproc *p);

/* spill.c: the coded older part of an open group */
int hist_spill(hgroup *grp);                           /* codes the HIST_RAW_SLOTS raw slots; 0 or -1 */
int hist_spill_const(const hgroup *grp, hcol *c);      /* codes a constant run's slots [base, zn) into c->z */
int hist_unspill_times(const hgroup *grp, int64_t *t); /* slots [base, n), at t[slot] */
int hist_unspill_col(const hgroup *grp, const hcol *c, double *v, uint8_t *pres); /* the same */

/* alert_states.c: writes states into the open transaction (replacing what the file held); an SQLite
 * result code. hist_alert_states_free frees a handed-over copy (NULL is fine). */
int hist_write_alert_states(store *st, const alert_records *states);
void hist_alert_states_free(alert_records *states);

/* event_text.c: the kind's detail as the file keeps it (event_kind_name is its kind). 0, or -1 for
 * a kind the events table does not hold (ecc_dbe, alert_states, diagnosis). */
int history_event_text(const gw_event *ev, char *detail, size_t n);
void hist_queue_event(history *h, int64_t t, int gpu, const char *kind, const char *detail);

#endif
