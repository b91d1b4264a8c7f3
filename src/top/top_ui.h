/* top_ui.h - top's interactive side: options, the UI state and what keys do to it, where each part
 * of the screen goes, the texts of GPUs and processes, and the panels that draw a screen into a
 * canvas. Everything here but top_run() works without a terminal. */
#ifndef GPUWATCH_TOP_UI_H
#define GPUWATCH_TOP_UI_H

#include <stddef.h>
#include <stdint.h>
#include "args.h"
#include "buf.h"
#include "errlist.h"
#include "top_model.h"
#include "top_fmt.h"
#include "top_canvas.h"

typedef enum { LAYOUT_AUTO, LAYOUT_FULL, LAYOUT_COMPACT } layout_pref;
typedef enum { CHART_SELECTED, CHART_ALL, CHART_OFF, CHART_MODES } chart_mode;

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

/* ---- preferences: $XDG_CONFIG_HOME/gpuwatch/top.yaml (prefs.c) ---- */

typedef struct top_prefs {
    double interval_s;
    layout_pref layout;
    chart_mode chart;
    proc_col sort_col;
    int sort_desc;
    top_thresholds th;
    int ascii;          /* 1: ASCII only */
    int color;          /* 0: no colours */
    diag_settings diag; /* top's own diagnosis: the agent's `diagnosis:` section */
} top_prefs;

void top_prefs_defaults(top_prefs *p);
/* $XDG_CONFIG_HOME/gpuwatch/top.yaml (an absolute XDG_CONFIG_HOME), else ~/.config/gpuwatch/top.yaml.
 * Returns 0, or -1 when neither is known. */
int top_prefs_path(char *out, size_t n);
/* Reads the file through the document layer. No file: the defaults, 0. Any problem: each one in
 * errs as FILE:LINE:COL, the defaults in p, -1. */
int top_prefs_read(const char *path, top_prefs *p, errlist *errs);
/* The file's text (appended to b); 0, or -1 when out of memory. */
int top_prefs_text(const top_prefs *p, gw_buf *b);
/* Writes the file (its folders made as needed), replacing the old one at once. 0, or -1 with why. */
int top_prefs_write(const char *path, const top_prefs *p, char *why, size_t n);
/* A sort column as the file names it: "gpu-mem", "cpu%". Returns out. */
const char *top_sort_name(proc_col c, char *out, size_t n);

typedef struct top_opts {
    double interval_s;
    top_thresholds th;
    int once;
    int ascii;        /* no Unicode (also on vt100/dumb terminals, non-UTF-8 locales) */
    int ascii_forced; /* the locale or terminal cannot show Unicode */
    int no_color;     /* NO_COLOR or --no-color */
    layout_pref layout;
    top_remote_opts remote;
    int remote_on;
    const char *hosts;      /* --hosts: many agents (top_fleet.h) */
    const char *hosts_file; /* --hosts-file */
    int fleet_on;
    const char *prometheus; /* --prometheus URL: the fleet from an engine's series */
    const char *match;      /* --match SELECTOR */
    /* The preferences file's values: keys change them (and set top_ui.prefs_dirty), the terminal side
     * saves them to prefs_path. Options given on the command line are not in it. NULL: none kept. */
    top_prefs *prefs;
    const char *prefs_path;  /* NULL: not saved (no home folder, or a file with problems) */
    char prefs_note[600];    /* a problem with the file, said at start */
    char prefs_unsaved[600]; /* why preferences are not saved though the file is fine (not a regular file) */
} top_opts;

/* ---- layout (pure) ---- */

#define TOP_HEADER_LINES 2

typedef struct layout_in {
    int rows, cols, ngpus;
    layout_pref pref;
    chart_mode chart;
    int alerts;                     /* alert lines there are (0: a "no alerts" line) */
    int alerts_expanded;            /* `e`: the alerts take what the processes can spare */
    int procs;                      /* rows the process table would fill */
    int sel_gpu;                    /* kept visible when the GPUs scroll (-1: none) */
    const unsigned char *gpu_extra; /* per GPU, lines a full panel needs beyond gpu_lines (or NULL) */
    int findings;                   /* lines the findings panel wants (0: no panel; a status line is 1) */
    int findings_quiet;             /* it only says there are none: it gives way to the GPUs first */
    int findings_expanded;          /* `f`: the findings take what the processes can spare */
    int findings_detail;            /* one finding's evidence and advice: every row below the alerts */
} layout_in;

/* Screen regions. Rows are absolute screen lines; a height of 0 means not shown. */
typedef struct top_layout {
    int compact;   /* one line per GPU */
    int gpu_lines; /* lines per GPU in the full layout (2 or 3), before a wrapped figures line */
    int gpu_y, gpu_h, gpu_first, gpu_shown;
    int chart_y, chart_h;
    int chart_need; /* charts are on but do not fit: the terminal rows they need (0 otherwise) */
    int alert_y, alert_h;
    int find_y, find_h;
    int proc_y, proc_h;
    int footer_y;
} top_layout;

void layout_compute(const layout_in *in, top_layout *l);
/* Lines of a full GPU panel before its figures wrap: 2 from 120 columns, else 3. */
int layout_gpu_lines(int cols);

/* ---- GPU texts (pure) ---- */

/* One GPU's fields as short texts and levels, shared by the panels and the snapshot. */
typedef struct gpu_text {
    char name[GW_STR_LEN], bus[GW_STR_LEN], state[16], pstate[8];
    int has_util, has_mem;
    double util_frac, mem_frac;
    char util[16], mem[40], power[32], temp[16], hbm[16], sm_clk[16], mem_clk[16], fan[16];
    char pcie[64], throttle[200], marks[96];
    char tensor[16], nvlink[48]; /* GPM activity; "" when the GPU does not report it */
    char finding[160];           /* the findings about this GPU, in short ("" none; findings.c) */
    char mig[240];               /* its MIG devices ("" none): "MIG 3g.40gb GI 2 10.8 GiB/39.5 GiB · ..." */
    top_level temp_lvl, hbm_lvl, power_lvl, marks_lvl, finding_lvl;
} gpu_text;
void gpu_text_make(const top_gpu *g, const top_thresholds *th, int stale, int ascii, gpu_text *t);

/* ---- processes (pure) ---- */

extern const char *const proc_col_names[PC_COUNT];
extern const int proc_col_width[PC_COUNT]; /* 0 = the rest of the line */

#define PROC_CELL 256
void proc_cells(const gpu_proc *p, uint64_t now_s, char cells[PC_COUNT][PROC_CELL]);
int proc_col_right(proc_col c);
/* Which columns fit in `cols`: the least needed (host memory, time, CPU, container) are dropped
 * until the command has at least 24 columns. */
void proc_visible_cols(int cols, int visible[PC_COUNT]);
/* Does a process match a filter text (case-insensitive substring of pid, user, container,
 * name, command, or "gpuN")? An empty filter matches everything. */
int proc_matches(const gpu_proc *p, const char *filter);
/* Indexes of the processes that match, sorted by col (missing values last). Returns count. */
int proc_order(const gpu_proc *procs, int n, const char *filter, int gpu, proc_col col, int desc, uint64_t now_s,
               int *order);

/* ---- the UI state ---- */

#define TOP_TREE_MAX 64

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
    char sel_name[64];     /* its name, for the signal dialog */
    int sel_row, proc_top; /* selected row and first shown row of the table */
    int help;
    int paused;
    uint64_t paused_mono_us, paused_wall_us; /* a paused screen stays at that time (no STALE, same clock) */
    int chart_said;                          /* `c` pressed: say so when the charts do not fit */
    int alerts_expanded;
    /* Findings: `f` expands the list (arrows then select a finding), Enter shows the selected one's
     * evidence and advice (arrows scroll, left/right go to the others). */
    int findings_expanded;
    int fdetail;
    int fsel, ftop;    /* selected finding and first one shown */
    char fsel_det[32]; /* the selected finding's detector and first GPU, followed across reports */
    int fsel_gpu;
    int fdetail_top;        /* first line of the detail shown */
    int findings_off;       /* no diagnosis here: `f` says why */
    int prefs_dirty;        /* a key changed a preference (o->prefs): save the file */
    int prefs_unsaved_said; /* o->prefs_unsaved was said (once is enough) */
    int restyle;            /* colours or ASCII switched: the terminal side makes its theme again */
    /* Signals: `k` opens a menu (sig_menu), then y/n confirms confirm_sig for confirm_pid. */
    int sig_menu;
    int confirm_sig;
    unsigned confirm_pid;
    char confirm_name[64];
    int sim_guard; /* 1: the GPUs are simulated: only gpuwatch's own pid and its parent's get signals */
    int remote;    /* --host: no signals, no /proc */
    /* `t`: the selected process's family from /proc. */
    int tree;
    unsigned tree_pid;
    proc_node tree_nodes[TOP_TREE_MAX];
    int tree_n;
    uint64_t tree_read_us;
    char msg[200];         /* one-line status message */
    int msg_level;         /* top_level */
    uint64_t msg_until_us; /* monotonic */
    /* The clocks keys and messages read (gw_mono_us, gw_now_us); a test sets its own, so that what
     * it draws at a time of its choosing does not depend on the machine's uptime or date. */
    uint64_t (*clock_mono_us)(void);
    uint64_t (*clock_wall_us)(void);
    int quit;
    top_layout lay;                        /* the last screen's layout (for mouse clicks) */
    unsigned char gpu_extra[TOP_MAX_GPUS]; /* and its panels' wrapped lines and findings lines */
} top_ui;

void top_ui_init(top_ui *u, top_opts *o);
void top_ui_message(top_ui *u, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The time a screen shows: now, or while paused the time of the pause (the clock stops, nothing turns
 * STALE, charts and countdowns hold still). */
void top_screen_time(const top_ui *u, uint64_t now_mono_us, uint64_t now_wall_us, uint64_t *mono_us, uint64_t *wall_us);
/* Applies one key (curses key codes); returns 1 when the screen should be redrawn. p may be NULL. */
int top_handle_key(top_ui *u, int ch, int ngpus, top_poller *p);

/* Who may get a signal: local mode any pid visible here; simulated GPUs only gpuwatch itself and its
 * parent (the pids a scenario names `self` and `parent`; any other pid there is a host process that
 * merely has the number the scenario wrote); remote mode none. */
typedef enum { SIG_LOCAL, SIG_SIMULATED, SIG_REMOTE } sig_mode;
int top_signal_allowed(unsigned pid, sig_mode mode);
/* Sends sig to pid when allowed and writes what happened into msg (sent, refused and why, gone, not
 * permitted); returns a top_level for the message. */
int top_signal_process(unsigned pid, int sig, sig_mode mode, char *msg, size_t n);
const char *top_signal_name(int sig); /* "SIGINT", ... */

/* ---- drawing into a canvas (the model locked by the caller where it says so) ---- */

/* The whole screen at a time (monotonic and wall clock; a paused screen passes its pause time). Takes
 * the model's lock itself. */
void view_draw(canvas *cv, top_model *m, top_ui *u, uint64_t mono_us, uint64_t wall_us);
/* Help screen: every key, the marks and the thresholds. */
void help_draw(canvas *cv, const top_ui *u);
extern const char *const top_help_lines[];

/* The GPU region, with the texts of every GPU and the lines their figures wrap onto (extra[i]: 0 or
 * 1, gpu_figure_lines - 1; NULL: none), made by the caller. */
void gpus_draw(canvas *cv, const top_model *m, const top_ui *u, const top_layout *l, const gpu_text *texts,
               const unsigned char *extra, uint64_t wall_us);
/* Lines the figures of a full panel take on a screen `cols` wide (1, or 2 when the throttle
 * reasons wrap). */
int gpu_figure_lines(const gpu_text *t, int cols, int lines);
void charts_draw(canvas *cv, const top_model *m, const top_ui *u, const top_layout *l, uint64_t wall_us);
/* The process table (fills u->sel_pid / sel_name from the selected row), or the process tree. */
void procs_draw(canvas *cv, const top_model *m, top_ui *u, const top_layout *l, uint64_t now_s);
/* Reads the tree from /proc when it is shown and 2 s old (called without the model's lock). */
void procs_tree_read(top_ui *u, uint64_t mono_us);
/* How many rows the table would fill (title and column header included). */
int procs_rows_wanted(const top_model *m, const top_ui *u);

/* ---- findings (findings.c; the model locked by the caller) ---- */

/* "CRIT", "WARN" or "INFO". */
const char *finding_tag(const diag_finding *f);
/* "GPU 1", "GPUs 0-3", "GPUs 3,6"; "" when the finding names no GPU. Returns out. */
char *finding_gpus(const diag_finding *f, char *out, size_t n);
/* A panel line: "WARN input_stall  GPU 1  since 22:42 (18m)  SUMMARY" (local time). */
void finding_line(const diag_finding *f, uint64_t now_wall_us, char *out, size_t n);
/* The finding in a few words, for the mark under its GPU: "input stall (period 6 s)". */
void finding_mark(const diag_finding *f, char *out, size_t n);
/* The marks of the findings that name GPU `index` ("" none), worst first, and the worst level. */
void finding_gpu_marks(const top_model *m, int index, int ascii, char *out, size_t n, top_level *lvl);
/* Why there is no finding to show: none yet and when the first run is, none found, or the source's
 * problem (an agent that does not diagnose). */
void findings_status(const top_findings *fs, int remote, uint64_t now_wall_us, char *out, size_t n);
/* The lines the panel wants: one per finding, 1 for the status line without findings, 0 without a
 * panel (diagnosis off). */
int findings_rows_wanted(const top_model *m);
/* The panel: the worst findings, the list (`f`) with a selection, or one finding's detail. */
void findings_draw(canvas *cv, const top_model *m, top_ui *u, const top_layout *l, uint64_t wall_us);

/* "host  driver X  CUDA Y  N GPUs  date time" at wall_us. */
void top_header_text(const top_model *m, uint64_t wall_us, char *out, size_t n);

/* The interactive loop (curses); returns the exit status. */
int top_run(top_source *src, top_model *m, top_opts *o);

/* The terminal for another screen (top --hosts): curses set up as top_run sets it up, a canvas to
 * draw each frame into, and only the cells that changed sent. Keys are read with getch(). */
typedef struct top_term top_term;
/* NULL when the terminal cannot be used. */
top_term *top_term_start(const top_opts *o);
canvas *top_term_canvas(top_term *t);
/* Sends what changed in the canvas since the last frame (everything after a resume from Ctrl-Z). */
void top_term_flush(top_term *t);
/* After KEY_RESIZE: the canvas to the terminal's size. 0, or -1 when out of memory. */
int top_term_resize(top_term *t);
/* The whole screen is sent again with the next frame (Ctrl-L). */
void top_term_forget(top_term *t);
/* Hands the terminal to another program, then takes it back (and sends the whole screen again). */
void top_term_suspend(top_term *t);
void top_term_resume(top_term *t);
void top_term_stop(top_term *t);

/* The `top` command (the top module). */
int cmd_top(int argc, char **argv);
/* Its options, for completion (gw_args_each_option). */
void top_options(const char *sub, gw_opt_visit *fn, void *ctx);

#endif
