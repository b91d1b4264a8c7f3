/* rw_backfill.h - what a receiver missed, read back from the history file: each GPU's samples in
 * a time range, each with the process list recorded with it, turned into entries by a converter of
 * their own (as the live samples were: the same series, their own stale markers). */
#ifndef GPUWATCH_RW_BACKFILL_H
#define GPUWATCH_RW_BACKFILL_H

#include <stddef.h>
#include <stdint.h>
#include "rw_series.h"

#define RW_BACKFILL_GPUS 64

typedef struct rw_backfill_range {
    int64_t from_us, to_us;                 /* what is read from the file */
    int64_t after_us[RW_BACKFILL_GPUS];     /* per GPU: only samples newer than this... */
    int64_t before_us[RW_BACKFILL_GPUS];    /* ...and older than this */
    const gpu_info *live[RW_BACKFILL_GPUS]; /* the GPUs' identity as sampled now (NULL: the file's) */
} rw_backfill_range;

/* Appends the entries of range's samples to out (*n of *cap), and the time of the newest sample
 * read per GPU to newest_us (left as it was for a GPU with none). Returns how many samples (GPU
 * readings) were converted, or -1 with why in err. */
long rw_backfill_read(const char *db, rw_converter *conv, const rw_walk_context *ctx, const rw_backfill_range *range,
                      int64_t *newest_us, rw_entry **out, size_t *n, size_t *cap, char *err, size_t errn);

#endif
