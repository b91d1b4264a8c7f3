/* bundle.h - several coded columns in one blob, found by database metric id: a chunk group's
 * timeline and columns (one chunks or open_chunks row per group or piece), or the minute roll-ups
 * of every metric of a GPU in one 6-hour window (one rollups row). A column whose bytes equal an
 * earlier one's (clocks.current.sm beside clocks.current.graphics) is stored once. */
#ifndef GPUWATCH_BUNDLE_H
#define GPUWATCH_BUNDLE_H

#include <stddef.h>
#include <stdint.h>
#include "bitio.h"

#define BUNDLE_MAX_COLS 256 /* more is a corrupt blob (a group has one column per catalog metric) */

typedef struct bundle_col {
    int dbid;
    const uint8_t *p;
    size_t len;
} bundle_col;

/* Appends a bundle of n (<= BUNDLE_MAX_COLS) columns (ids and coded bytes) to out. */
void bundle_put(gw_buf *out, int n, const int *ids, const gw_buf *cols);
/* The columns of a bundle, at most max of them; returns how many, -1 when the blob is corrupt. */
int bundle_read(const void *blob, size_t len, bundle_col *cols, int max);
/* Where column dbid lies in a bundle whose first head_len bytes are given (the rest may be read
 * later, e.g. through sqlite3_blob_read): 1 with its offset and length, 0 when the bundle has none
 * with that id, -1 when corrupt, BUNDLE_SHORT when the directory goes past head_len. */
#define BUNDLE_SHORT (-2)
int bundle_locate(const void *head, size_t head_len, int dbid, size_t *off, size_t *len);
/* One column: 1 with *p / *plen, 0 when the bundle has none with that id, -1 when corrupt. */
int bundle_find(const void *blob, size_t len, int dbid, const uint8_t **p, size_t *plen);

#endif
