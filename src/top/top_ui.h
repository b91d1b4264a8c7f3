/* top_ui.h - top's options and interactive state, shared by the view, keys and snapshot. */
#ifndef GPUWATCH_TOP_UI_H
#define GPUWATCH_TOP_UI_H

#include <stdint.h>
#include <stdio.h>
#include "top_model.h"
#include "top_fmt.h"

typedef enum { LAYOUT_AUTO, LAYOUT_FULL, LAYOUT_COMPACT } layout_pref;
typedef enum { CHART_SELECTED, CHART_ALL, CHART_OFF, CHART_MODES } chart_mode;

typedef struct top_thresholds {
    double temp_warn, temp_crit; /* core, °C */
    double hbm_warn, hbm_crit;   /* HBM, °C */
} top_thresholds;

typedef struct top_opts {
    double interval_s;
    top_thresholds th;
    int once;
    int ascii;    /* no Unicode (also on vt100/dumb terminals, non-UTF-8 locales) */
    int no_color; /* NO_COLOR or --no-color */
    layout_pref layout;
    top_remote_opts remote;
    int remote_on;
} top_opts;

/* Screen regions. Rows are absolute screen lines; a height of 0 means not shown. */
typedef struct top_layout {
    int compact;   /* one line per GPU */
    int gpu_lines; /* lines per GPU in the full layout (2 or 3) */
    int gpu_y, gpu_h, gpu_first, gpu_shown;
    int chart_y, chart_h;
    int alert_y, alert_h;
    int proc_y, proc_h;
    int footer_y;
} top_layout;
#define TOP_HEADER_LINES 2
/* Process table columns, in display order. */
typedef enum {
    PC_GPU,
    PC_PID,
    PC_USER,
    PC_CONTAINER,
    PC_GPUMEM,
    PC_SM,
    PC_CPU,
    PC_HOSTMEM,
    PC_TIME,
    PC_CMD,
    PC_COUNT
} proc_col;
extern const char *const proc_col_names[PC_COUNT];

typedef struct top_ui {
    top_opts *o;
    layout_pref layout;
    chart_mode chart;
    int sel_gpu; /* selected GPU for charts and the process filter, -1 = all */
    proc_col sort_col;
    int sort_desc;
    char filter[64];
    int editing_filter;    /* '/' typed: keys go to the filter */
    unsigned sel_pid;      /* selected process (follows the pid across re-sorts) */
    int sel_row, proc_top; /* selected row and first shown row of the table */
    int help;
    int paused;
    int confirm_sig; /* 0, or the signal waiting for y/n */
    unsigned confirm_pid;
    char confirm_name[64];
    char msg[200];         /* one-line status message */
    int msg_level;         /* top_level */
    uint64_t msg_until_us; /* monotonic */
    int quit;
    top_layout lay; /* the last screen's layout (for mouse clicks) */
} top_ui;

void top_ui_init(top_ui *u, top_opts *o);
void top_ui_message(top_ui *u, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* ---- pure helpers (unit tested) ---- */

/* Does a process match a filter text (case-insensitive substring of pid, user, container,
 * name, command, or "gpuN")? An empty filter matches everything. */
int proc_matches(const gpu_proc *p, const char *filter);
/* Indexes of the processes that match, sorted by col (missing values last). Returns count. */
int proc_order(const gpu_proc *procs, int n, const char *filter, int gpu, proc_col col, int desc, uint64_t now_s,
               int *order);

void layout_compute(int rows, int cols, int ngpus, layout_pref pref, chart_mode chart, int alert_lines, int sel_gpu,
                    top_layout *l);

/* Text of one GPU's fields, shared by the curses panel and the plain snapshot. */
typedef struct gpu_text {
    char name[GW_STR_LEN], bus[GW_STR_LEN], state[16], pstate[8];
    int has_util, has_mem;
    double util_frac, mem_frac;
    char util[16], mem[40], power[32], temp[16], hbm[16], sm_clk[16], mem_clk[16], fan[16];
    char pcie[64], throttle[200], marks[96];
    top_level temp_lvl, hbm_lvl, power_lvl, marks_lvl;
} gpu_text;
void gpu_text_make(const top_gpu *g, const top_thresholds *th, int stale, int ascii, gpu_text *t);

/* "host  driver X  CUDA Y  N GPUs  date time" */
void top_header_text(const top_model *m, char *out, size_t n);

/* Prints one plain-text snapshot of the model (no colours, no cursor movement). */
void top_snapshot(FILE *f, top_model *m, const top_opts *o);

#endif
