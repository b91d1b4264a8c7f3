/* history.h - the history store's API for the agent: record samples, process lists and events into
 * an embedded SQLite file (compressed chunks, 1-minute roll-ups, retention), and answer range queries.
 * Recording never waits on the disk: values go to memory; a writer thread (or history_flush)
 * writes them every flush_interval in one transaction. */
#ifndef GPUWATCH_HISTORY_H
#define GPUWATCH_HISTORY_H

#include <stddef.h>
#include <stdint.h>
#include "alert_record.h"
#include "sample.h"

typedef struct history_config {
    const char *path;          /* SQLite file; NULL = history_default_path() */
    double flush_interval_s;   /* history.flush_interval, default 10 s */
    double raw_retention_s;    /* history.raw_retention, default 7 d */
    double rollup_retention_s; /* history.rollup_retention, default 90 d */
    uint64_t max_size;         /* history.max_size in bytes, 0 = no cap */
    size_t max_buffer;         /* bytes kept in memory while writes fail (default 64 MiB) */
    int chunk_span_s;          /* chunk window, default 600 s (10 min) */
    int no_thread;             /* 1: no writer thread; the caller calls history_flush (tests, bench) */
} history_config;

typedef struct history history;

void history_config_defaults(history_config *cfg);
/* Default file: /var/lib/gpuwatch/history.db for root, else $XDG_STATE_HOME/gpuwatch/history.db
 * (~/.local/state/gpuwatch/history.db). On gpusim (GPUSIM_SCENARIO set, as --sim does) the same
 * folder's simulated/SCENARIO.db instead: simulated readings never mix into a machine's real
 * history. Writes into out (n bytes). */
void history_default_path(char *out, size_t n);

/* Opens (creating the file and its folder when needed). A file that cannot be written now
 * (read-only, disk full) is not an error: recording buffers and retries at each flush.
 * NULL only for a bad configuration or no memory, with the reason in err. */
history *history_open(const history_config *cfg, char *err, size_t n);
/* Seals everything in memory, writes it (one last try) and closes. */
void history_close(history *h);

/* Record one sample of a GPU (info: identity strings, may be NULL after the first call).
 * Also derives events from consecutive samples: gpu_lost/gpu_back, xid, throttle_start/end. */
void history_record_sample(history *h, int gpu, const gpu_info *info, const gpu_sample *s);
/* Record the processes on a GPU at t_us (GPU memory and SM use per pid, with command/user/container). */
void history_record_processes(history *h, int gpu, uint64_t t_us, const gpu_proc *procs, int n);
/* Record an event; kind: xid, gpu_lost, gpu_back, throttle_start, throttle_end, alert, ...; gpu -1 = host. */
void history_record_event(history *h, uint64_t t_us, int gpu, const char *kind, const char *detail);

/* The alert engine's whole state now (alert_record.h): kept, and written at once (the writer is
 * woken) in place of what the file held, so that a restarted agent picks it up. A newer state
 * handed over before the write replaces this one. Out of memory: logged, the file keeps the
 * previous state. */
void history_set_alert_states(history *h, const alert_records *states);
/* The alert state a history file holds, and *last_seen_us, the time of the newest thing recorded in
 * it (a sample or an event; 0 when none): when the agent that wrote it was last known running. A
 * file that does not exist, or holds no state, gives none. Rows that cannot be right (a state
 * other than pending or firing, text over HISTORY_ALERT_TEXT_MAX, more than
 * HISTORY_MAX_ALERT_STATES rows) are skipped and counted in *skipped. Returns 0, or -1 with the
 * reason in err when the file cannot be read (out is empty). */
#define HISTORY_MAX_ALERT_STATES 100000
#define HISTORY_ALERT_TEXT_MAX 65536
int history_read_alert_states(const char *path, alert_records *out, int64_t *last_seen_us, int *skipped, char *err,
                              size_t n);

/* Writes what is in memory now (sealed chunks, checkpoints of open ones, events). 0 when written,
 * -1 when the file cannot be written (the data stays buffered, up to max_buffer). */
int history_flush(history *h);
/* End of a sampling round: if chunks were sealed in it, the writer thread flushes now rather than
 * at its next interval, so the sealed chunks and the memory of the chunks they replace leave at once. */
void history_round_end(history *h);
/* Applies retention and the size cap as if the time were now_us (done automatically each minute
 * of recorded time; exposed for tests). */
int history_prune(history *h, uint64_t now_us);

/* Applies new flush interval, retentions and size cap (a config reload); path and chunk span stay. */
void history_set_limits(history *h, const history_config *cfg);

/* Statistics for logs, health and the bench. */
typedef struct history_stats {
    uint64_t samples; /* metric values recorded */
    uint64_t dropped; /* values dropped from memory after long write failures */
    uint64_t flushes, flush_errors;
    uint64_t damaged_files; /* files found damaged and moved aside (recording went on in a new one) */
    size_t buffered;        /* bytes waiting in memory */
    int writable;           /* the last flush succeeded */
} history_stats;
void history_get_stats(history *h, history_stats *out);
/* Slots of open groups and series held in memory: those since the last committed checkpoint
 * piece (what a piece holds is dropped), or all of them while the file cannot be written. */
size_t history_open_slots(history *h);

/* Answers /api/v1/query_range from the file: params as in the HTTP query string
 * (metric=a,b gpu=0,1 pid= start= end= step= agg=). Returns a malloc'd JSON text (Prometheus-like
 * matrix), and sets *status to the HTTP status (200, 400 with {"status":"error",...}). */
char *history_query_range_json(const char *db_path, const char *metric, const char *gpu, const char *pid,
                               const char *start, const char *end, const char *step, const char *agg, int *status);
/* Path of the file an open history writes to. */
const char *history_path(const history *h);

/* The `history` and `events` commands (the history module). */
int cmd_history(int argc, char **argv);
int cmd_events(int argc, char **argv);

#endif
