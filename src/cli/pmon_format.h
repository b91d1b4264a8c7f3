/* pmon_format.h - pmon's lines: plain (nvidia-smi pmon's layout, plus user and container columns
 * before command), csv and JSON lines. One line per process, or a '-' line for an idle GPU. */
#ifndef GPUWATCH_PMON_FORMAT_H
#define GPUWATCH_PMON_FORMAT_H

#include "sample.h"
#include "outbuf.h"

#define PMON_LOST_MARK "# GPU is lost"

#define PMON_MAX_NUM 8

typedef struct pmon_layout {
    int ncols; /* numeric columns: sm..ofa with -s u, fb ccpm with -s m */
    int cols[PMON_MAX_NUM];
    int date, time; /* -o D / T */
} pmon_layout;

/* Columns of the -s letters ('u' utilization, 'm' memory), always in that order, as nvidia-smi. */
void pmon_layout_init(pmon_layout *l, const char *letters, int date, int time);

/* What a line shows: a process, an idle GPU (proc NULL), or a lost GPU (proc NULL, lost set). */
typedef struct pmon_line {
    int gpu;
    const gpu_proc *proc;
    int lost;
    uint64_t t_us;
} pmon_line;

void pmon_plain_header(const pmon_layout *l, gw_buf *b);
void pmon_plain_row(const pmon_layout *l, gw_buf *b, const pmon_line *line);
void pmon_csv_header(const pmon_layout *l, gw_buf *b, int with_units);
void pmon_csv_row(const pmon_layout *l, gw_buf *b, const pmon_line *line);
void pmon_json_row(const pmon_layout *l, gw_buf *b, const pmon_line *line);

/* "C", "G", "C+G", "M", "M+C" from the process type bits; "-" when none. */
const char *pmon_type(unsigned type);

#endif
