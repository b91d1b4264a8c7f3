/* rw_progress.h - what an endpoint's receiver has acknowledged, kept in a small file beside the
 * history (<history folder>/remote-write-<name>.progress) so that a restarted agent, killed with -9
 * or not, resends from the history exactly what the receiver has not got. Per GPU: the time of the
 * newest sample acknowledged, every older one of that GPU having been acknowledged too. */
#ifndef GPUWATCH_RW_PROGRESS_H
#define GPUWATCH_RW_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

#define RW_PROGRESS_GPUS 64

typedef struct rw_progress {
    int64_t acked_us[RW_PROGRESS_GPUS]; /* 0: nothing known for that GPU */
} rw_progress;

/* The file for an endpoint beside the history file db (out: n bytes). */
void rw_progress_path(const char *db, const char *name, char *out, size_t n);
/* Reads the file when it is ours and was written for url. Returns 1 (p filled), 0 when there is
 * none or it is for another URL (p zeroed), -1 when it cannot be read (why in err, p zeroed). */
int rw_progress_load(const char *path, const char *url, rw_progress *p, char *err, size_t n);
/* Replaces the file at once (a new file renamed over it: a kill leaves the old or the new one).
 * 0, or -1 with why in err. */
int rw_progress_save(const char *path, const char *url, const rw_progress *p, char *err, size_t n);

#endif
