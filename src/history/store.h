/* store.h - the SQLite side of history: schema, chunk/roll-up/event/process rows, retention.
 * All functions return an SQLite result code (SQLITE_OK on success) unless said otherwise. */
#ifndef GPUWATCH_STORE_H
#define GPUWATCH_STORE_H

#include <sqlite3.h>
#include <stdint.h>
#include "catalog.h"
#include "sample.h"
#include "bitio.h"

#define STORE_TIMELINE 0                      /* chunks.metric of a GPU's timestamp column (format 1) */
#define STORE_BUNDLE (-1)                     /* metric of a row holding every column (bundle.h) */
#define ROLLUP_SPAN_US (6ll * 3600 * 1000000) /* one roll-up row covers 6 hours of minutes */
#define MINUTE_US 60000000ll

typedef struct store store;

/* readonly: for the commands (no schema creation, no writes). */
store *store_open(const char *path, int readonly, char *err, size_t n);
/* 0 when the file and its side files (-wal, -shm, -journal) are missing or regular files, else -1
 * with err filled ("PATH: a FIFO, not a regular file"): what every open of a history file checks. */
int store_check_files(const char *path, char *err, size_t n);
/* The same, with SQLite's result code in *rc when it fails (SQLITE_CORRUPT or SQLITE_NOTADB: the
 * file itself is damaged, as opposed to unreadable or on a full disk). */
store *store_open_rc(const char *path, int readonly, int *rc, char *err, size_t n);
void store_close(store *s);
sqlite3 *store_db(store *s);
/* The time of the newest sample the file holds, sealed or in an open group's piece (0: none). */
int64_t store_newest_sample_us(store *s);
int store_exec(store *s, const char *sql);

/* Statements of the queries, prepared once per connection (kept while it stays open). */
typedef enum {
    SQ_RAW,
    SQ_RAW_OPEN,
    SQ_RAW_SEALED,
    SQ_ROLLUP_WINDOWS,
    SQ_ROLLUP_HAS,
    SQ_ROLLUP_ROWS,
    SQ_ROLLUP_ANY,
    SQ_PROC,
    SQ_GPUS,
    SQ_OLDEST_RAW,
    SQ_GPU_LABELS,
    SQ_COUNT
} store_query;
/* The statement for q, prepared from sql on first use; NULL on an error. Reset it after use. */
sqlite3_stmt *store_query_stmt(store *s, store_query q, const char *sql);

/* Database id of a catalog metric (created on first use when writable); 0 when unknown. */
int store_metric_id(store *s, metric_id m);
/* Catalog metric of a database id, or -1. */
int store_metric_of(store *s, int dbid);

/* final: a sealed chunk (table chunks); else a checkpoint of an open one (table open_chunks). The
 * writer puts a group's bundle (dbid STORE_BUNDLE); files of format 1 have one row per column. */
int store_put_chunk(store *s, int final, int gpu, int dbid, int64_t t_start, int64_t t_end, int64_t n,
                    const gw_buf *blob);
/* Checkpoint pieces of open chunks, oldest first: fn(ctx, t_start, blob, len) for each row of
 * (gpu, metric dbid) or (gpu, pid) starting in [from, to]. */
int store_get_pieces(store *s, int gpu, int dbid, int64_t from, int64_t to,
                     void (*fn)(void *ctx, int64_t t_start, const void *blob, size_t len), void *ctx);
int store_get_proc_pieces(store *s, int gpu, unsigned pid, int64_t from, int64_t to,
                          void (*fn)(void *ctx, int64_t t_start, const void *blob, size_t len), void *ctx);
int store_drop_proc_pieces(store *s, int gpu, unsigned pid, int64_t from, int64_t to);
int store_put_proc_chunk(store *s, int gpu, unsigned pid, int64_t t_start, int64_t t_end, int64_t n,
                         const gw_buf *blob);
int store_put_proc(store *s, int gpu, const gpu_proc *p, int64_t t_us);
int store_put_gpu(store *s, const gpu_info *info, int64_t t_us);
int store_put_event(store *s, int64_t t_us, int gpu, const char *kind, const char *detail);

/* After a group's sealed chunks (starting at t_start) are written: drops its checkpoint pieces
 * (those starting in [open_from, t_end]) and adds the group to the roll-ups. */
int store_seal_group(store *s, int gpu, int64_t t_start, int64_t open_from, int64_t t_end);
/* Merges a sealed group's minutes into the roll-up rows (rollup_store.c). */
int store_rollup_group(store *s, int gpu, int64_t t_start);
/* Seals the checkpointed groups that ended before before_us (what a killed run left open). */
int store_recover_open(store *s, int64_t before_us);
/* Retention: raw chunks ending before now-raw, roll-ups before now-rollup, then the size cap. */
int store_prune(store *s, int64_t now_us, int64_t raw_ret_us, int64_t rollup_ret_us, uint64_t max_size);
/* Bytes the database uses (pages in use times page size). */
int64_t store_used_bytes(store *s);

#endif
