/* history_read.h - a recorded range handed back as the agent saw it: every GPU's samples in time
 * order, the process lists of each round, and the events, through callbacks. What reads recorded
 * time as if it were live (gpuwatch diagnose --db, gpuwatch run's report) uses it. */
#ifndef GPUWATCH_HISTORY_READ_H
#define GPUWATCH_HISTORY_READ_H

#include <stddef.h>
#include <stdint.h>
#include "event.h"
#include "sample.h"

typedef struct history_reader {
    void *ctx;
    /* Each GPU's samples, oldest first (GPU after GPU). info: its identity, or NULL. */
    void (*on_sample)(void *ctx, int gpu, const gpu_info *info, const gpu_sample *s);
    /* The processes recorded on a GPU at t_us (memory, SM use, name, user, container). */
    void (*on_processes)(void *ctx, int gpu, uint64_t t_us, const gpu_proc *procs, int n);
    /* An event of the range derived from samples (xid, gpu_lost, gpu_back, throttle_start/end),
     * typed; alerts and findings are not handed back. */
    void (*on_event)(void *ctx, const gw_event *ev);
} history_reader;

/* Reads [from_us, to_us] of the history file at path (opened read-only) for the selected GPUs
 * (sel[i] != 0 for GPU i, 64 entries; NULL = all). Returns how many samples were handed over, or
 * -1 with the reason in err. */
long history_read_range(const char *path, int64_t from_us, int64_t to_us, const unsigned char *sel,
                        const history_reader *r, char *err, size_t n);

/* An event of the file's events table as a typed one: xid (count 1; code 0 for "xid=unknown"),
 * gpu_lost, gpu_back, throttle_start and throttle_end. 0, or -1 for the other kinds (alert and
 * finding: their detail is for people) and a throttle reason the catalog does not know. */
int history_event_parse(uint64_t t_us, int gpu, const char *kind, const char *detail, gw_event *out);

/* The time of the newest sample the file at path holds: *t_us, 0 when none or no file. What was
 * sampled more than a sampling round before it has been written (a flush writes all that is
 * recorded). 0, or -1 with the reason in err. */
int history_newest_sample_us(const char *path, int64_t *t_us, char *err, size_t n);

#endif
