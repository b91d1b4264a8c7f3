/* dmon_format.h - dmon's columns (from the catalog's dmon group/column/unit/div) and its lines:
 * plain (byte-exact to nvidia-smi dmon), csv and JSON lines. */
#ifndef GPUWATCH_DMON_FORMAT_H
#define GPUWATCH_DMON_FORMAT_H

#include "sample.h"
#include "outbuf.h"

#define DMON_MAX_COLS 32
#define DMON_LOST_MARK "# GPU is lost"

typedef struct dmon_layout {
    int ncols;
    const metric_def *cols[DMON_MAX_COLS];
    int date, time; /* -o D / T */
} dmon_layout;

/* Columns of the groups in letters ("pucvmet"), groups in the order given, each group's columns
 * in dmon_pos order. */
void dmon_layout_init(dmon_layout *l, const char *letters, int date, int time);
/* The metrics the columns read. */
void dmon_want(const dmon_layout *l, metric_set *want);

void dmon_plain_header(const dmon_layout *l, gw_buf *b);
/* One GPU's row. cur->status GPU_LOST prints '-' everywhere and DMON_LOST_MARK. prev may be NULL. */
void dmon_plain_row(const dmon_layout *l, gw_buf *b, int gpu, const gpu_sample *cur, const gpu_sample *prev);

/* csv: "gpu, pwr [W], ..." (with -o: "date, time, " first); values as in plain, ", " between. */
void dmon_csv_header(const dmon_layout *l, gw_buf *b, int with_units);
void dmon_csv_row(const dmon_layout *l, gw_buf *b, int gpu, const gpu_sample *cur, const gpu_sample *prev);

/* One JSON object per line: {"timestamp": "...", "gpu": 0, "pwr": 69, ..., "lost": false}. */
void dmon_json_row(const dmon_layout *l, gw_buf *b, int gpu, const gpu_sample *cur, const gpu_sample *prev);

#endif
