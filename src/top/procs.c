/* procs.c - the processes on the GPUs: their cells (shared with the snapshot), filtering and sorting,
 * the table with a selected row that follows its pid, and the selected process's family tree (`t`). */
#include "top_ui.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const proc_col_names[PC_COUNT] = {
    "GPU", "PID", "USER", "CONTAINER", "GPU-MEM", "SM%", "CPU%", "HOST-MEM", "TIME", "COMMAND",
};
const int proc_col_width[PC_COUNT] = {3, 7, 10, 14, 9, 4, 5, 9, 8, 0};

/* ---- cells ---- */

void proc_cells(const gpu_proc *p, uint64_t now_s, char cells[PC_COUNT][PROC_CELL])
{
    fmt_fixed(cells[PC_GPU], PROC_CELL, p->gpu, 0, "");
    fmt_fixed(cells[PC_PID], PROC_CELL, p->pid, 0, "");
    fmt_join(cells[PC_USER], PROC_CELL, p->user[0] ? p->user : "-", NULL);
    fmt_join(cells[PC_CONTAINER], PROC_CELL, p->container[0] ? p->container : "-", NULL);
    if (p->has_mem)
        fmt_mib(cells[PC_GPUMEM], PROC_CELL, p->mem_mib);
    else
        fmt_join(cells[PC_GPUMEM], PROC_CELL, "N/A", NULL);
    if (p->has_sm)
        fmt_fixed(cells[PC_SM], PROC_CELL, p->sm_util, 0, "");
    else
        fmt_join(cells[PC_SM], PROC_CELL, "N/A", NULL);
    if (p->has_cpu)
        fmt_fixed(cells[PC_CPU], PROC_CELL, p->cpu_percent, 0, "");
    else
        fmt_join(cells[PC_CPU], PROC_CELL, "N/A", NULL);
    if (p->has_rss)
        fmt_mib(cells[PC_HOSTMEM], PROC_CELL, p->rss_mib);
    else
        fmt_join(cells[PC_HOSTMEM], PROC_CELL, "N/A", NULL);
    if (p->start_time_s && now_s >= p->start_time_s)
        fmt_duration(cells[PC_TIME], PROC_CELL, now_s - p->start_time_s);
    else
        fmt_join(cells[PC_TIME], PROC_CELL, "-", NULL);
    fmt_join(cells[PC_CMD], PROC_CELL, p->cmdline[0] ? p->cmdline : p->name[0] ? p->name : "?", NULL);
}

/* Right-aligned columns are the numbers. */
int proc_col_right(proc_col c)
{
    return c == PC_GPU || c == PC_PID || c == PC_GPUMEM || c == PC_SM || c == PC_CPU || c == PC_HOSTMEM || c == PC_TIME;
}

void proc_visible_cols(int cols, int visible[PC_COUNT])
{
    static const proc_col drop_order[] = {PC_HOSTMEM, PC_TIME, PC_CPU, PC_CONTAINER};
    int used = 0;
    for (int c = 0; c < PC_COUNT; c++) {
        visible[c] = 1;
        used += proc_col_width[c] + 1;
    }
    for (size_t i = 0; i < sizeof drop_order / sizeof drop_order[0] && cols - used < 24; i++) {
        visible[drop_order[i]] = 0;
        used -= proc_col_width[drop_order[i]] + 1;
    }
}

/* ---- filter and sort ---- */

int proc_matches(const gpu_proc *p, const char *filter)
{
    if (!filter || !*filter)
        return 1;
    char num[32];
    snprintf(num, sizeof num, "%u", p->pid);
    if (strstr(num, filter))
        return 1;
    snprintf(num, sizeof num, "gpu%d", p->gpu);
    if (strcasecmp(num, filter) == 0)
        return 1;
    const char *texts[] = {p->user, p->container, p->name, p->cmdline};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
        if (strcasestr(texts[i], filter))
            return 1;
    return 0;
}

typedef struct sort_ctx {
    const gpu_proc *p;
    proc_col col;
    int desc;
    uint64_t now_s;
} sort_ctx;

/* A column's number for a process; returns 0 when the process has no value for it. */
static int num_key(const gpu_proc *p, proc_col col, uint64_t now_s, double *v)
{
    switch (col) {
    case PC_GPU: *v = p->gpu; return 1;
    case PC_PID: *v = p->pid; return 1;
    case PC_GPUMEM: *v = p->mem_mib; return p->has_mem;
    case PC_SM: *v = p->sm_util; return p->has_sm;
    case PC_CPU: *v = p->cpu_percent; return p->has_cpu;
    case PC_HOSTMEM: *v = p->rss_mib; return p->has_rss;
    case PC_TIME:
        *v = p->start_time_s && now_s >= p->start_time_s ? (double)(now_s - p->start_time_s) : 0;
        return p->start_time_s != 0;
    default: return 0;
    }
}

static const char *text_key(const gpu_proc *p, proc_col col)
{
    switch (col) {
    case PC_USER: return p->user;
    case PC_CONTAINER: return p->container;
    case PC_CMD: return p->cmdline[0] ? p->cmdline : p->name;
    default: return NULL;
    }
}

static int compare(const void *a, const void *b, void *vctx)
{
    const sort_ctx *c = vctx;
    const gpu_proc *x = &c->p[*(const int *)a], *y = &c->p[*(const int *)b];
    int r = 0;
    const char *tx = text_key(x, c->col);
    if (tx) {
        const char *ty = text_key(y, c->col);
        if (!*tx != !*ty)
            return *tx ? -1 : 1; /* empty last */
        r = strcasecmp(tx, ty);
    } else {
        double vx, vy;
        int hx = num_key(x, c->col, c->now_s, &vx), hy = num_key(y, c->col, c->now_s, &vy);
        if (hx != hy)
            return hx ? -1 : 1; /* missing last */
        if (hx)
            r = (vx > vy) - (vx < vy);
    }
    if (c->desc)
        r = -r;
    if (r)
        return r;
    if (x->gpu != y->gpu)
        return x->gpu - y->gpu;
    return (x->pid > y->pid) - (x->pid < y->pid);
}

int proc_order(const gpu_proc *procs, int n, const char *filter, int gpu, proc_col col, int desc, uint64_t now_s,
               int *order)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        if ((gpu < 0 || procs[i].gpu == gpu) && proc_matches(&procs[i], filter))
            order[k++] = i;
    sort_ctx c = {procs, col, desc, now_s};
    qsort_r(order, (size_t)k, sizeof *order, compare, &c);
    return k;
}

int procs_rows_wanted(const top_model *m, const top_ui *u)
{
    if (u->tree)
        return 1 + (u->tree_n ? u->tree_n : 1);
    int k = 0;
    for (int i = 0; i < m->nprocs; i++)
        if ((u->sel_gpu < 0 || m->procs[i].gpu == u->sel_gpu) && proc_matches(&m->procs[i], u->filter))
            k++;
    return 2 + (k ? k : 1);
}

/* ---- the table ---- */

static void draw_title(canvas *cv, const top_ui *u, int y, int shown, int total)
{
    char buf[256];
    int cols = cv->cols;
    int x = cv_fmt(cv, y, 0, cols, TR_TITLE, "PROCESSES %d", shown);
    if (shown != total)
        x += cv_fmt(cv, y, x, cols - x, TR_TITLE, " of %d", total);
    if (u->sel_gpu >= 0)
        x += cv_fmt(cv, y, x, cols - x, TR_WARN, "  on GPU %d", u->sel_gpu);
    if (u->filter[0] || u->editing_filter) {
        snprintf(buf, sizeof buf, "  filter: %s%s", u->filter, u->editing_filter ? "_" : "");
        x += cv_text(cv, y, x, cols - x, TR_WARN, buf);
    }
    snprintf(buf, sizeof buf, "  sort: %s %s", proc_col_names[u->sort_col], u->sort_desc ? "desc" : "asc");
    cv_text(cv, y, x, cols - x, TR_DIM, buf);
}

/* One row of cells laid out in the columns (the last column takes the rest). */
static void draw_row(canvas *cv, int y, theme_role r, char cells[PC_COUNT][PROC_CELL], const int *visible, int header,
                     const top_ui *u)
{
    int x = 0, cols = cv->cols;
    for (int c = 0; c < PC_COUNT && x < cols; c++) {
        if (!visible[c])
            continue;
        int w = proc_col_width[c] ? proc_col_width[c] : cols - x;
        const char *cell = cells[c];
        char marked[PROC_CELL + 8];
        if (header && c == (int)u->sort_col)
            cell = fmt_join(marked, sizeof marked, cells[c],
                            cv->ascii ? (u->sort_desc ? "v" : "^") : (u->sort_desc ? "▼" : "▲"), NULL);
        int pad = 0;
        if (proc_col_right((proc_col)c)) {
            int cw = fmt_cols(cell);
            pad = cw < w ? w - cw : 0;
        }
        cv_text(cv, y, x + pad, w - pad, r, cell);
        x += w + 1;
    }
}

static void draw_table(canvas *cv, const top_model *m, top_ui *u, const top_layout *l, uint64_t now_s)
{
    static int order[TOP_MAX_PROCS];
    static char cells[PC_COUNT][PROC_CELL];
    int cols = cv->cols, visible[PC_COUNT];
    int n = proc_order(m->procs, m->nprocs, u->filter, u->sel_gpu, u->sort_col, u->sort_desc, now_s, order);
    draw_title(cv, u, l->proc_y, n, m->nprocs);
    proc_visible_cols(cols, visible);
    int y0 = l->proc_y + 1;
    if (l->proc_h >= 3) {
        for (int c = 0; c < PC_COUNT; c++)
            snprintf(cells[c], PROC_CELL, "%s", proc_col_names[c]);
        cv_fill(cv, y0, 0, cols, ' ', TR_HEADER);
        draw_row(cv, y0, TR_HEADER, cells, visible, 1, u);
        y0++;
    }
    int rows = l->proc_y + l->proc_h - y0;
    /* The selection follows its pid; without one (or when it is gone) it keeps its row. */
    for (int i = 0; u->sel_pid && i < n; i++)
        if (m->procs[order[i]].pid == u->sel_pid) {
            u->sel_row = i;
            break;
        }
    if (u->sel_row >= n)
        u->sel_row = n - 1;
    if (u->sel_row < 0)
        u->sel_row = 0;
    u->sel_pid = n ? m->procs[order[u->sel_row]].pid : 0;
    snprintf(u->sel_name, sizeof u->sel_name, "%s", n ? m->procs[order[u->sel_row]].name : "");
    if (u->sel_row < u->proc_top)
        u->proc_top = u->sel_row;
    if (rows > 0 && u->sel_row >= u->proc_top + rows)
        u->proc_top = u->sel_row - rows + 1;
    if (n == 0) {
        cv_text(cv, y0, 0, cols, TR_DIM, m->nprocs ? "no process matches" : "no processes on the GPUs");
        return;
    }
    for (int r = 0; r < rows && u->proc_top + r < n; r++) {
        int i = u->proc_top + r;
        proc_cells(&m->procs[order[i]], now_s, cells);
        theme_role role = i == u->sel_row ? TR_SELECTED : TR_NORMAL;
        if (i == u->sel_row)
            cv_fill(cv, y0 + r, 0, cols, ' ', role);
        draw_row(cv, y0 + r, role, cells, visible, 0, u);
    }
}

/* ---- the family tree ---- */

/* What the model knows about a pid on the GPUs ("[GPU 0 30.0 GiB] "), or "". */
static void gpu_use(const top_model *m, unsigned pid, char *out, size_t n)
{
    size_t pos = 0;
    out[0] = 0;
    for (int i = 0; i < m->nprocs && pos + 1 < n; i++) {
        const gpu_proc *p = &m->procs[i];
        if (p->pid != pid)
            continue;
        char mem[16] = "";
        if (p->has_mem)
            fmt_mib(mem, sizeof mem, p->mem_mib);
        pos += (size_t)snprintf(out + pos, n - pos, "%sGPU %d%s%s", pos ? ", " : "[", p->gpu, mem[0] ? " " : "", mem);
    }
    if (pos && pos + 3 < n)
        snprintf(out + pos, n - pos, "] ");
}

void procs_tree_read(top_ui *u, uint64_t mono_us)
{
    if (!u->tree || (u->tree_read_us && mono_us - u->tree_read_us < 2000000u))
        return;
    u->tree_n = procfs_tree("/proc", u->tree_pid, u->tree_nodes, TOP_TREE_MAX);
    u->tree_read_us = mono_us ? mono_us : 1;
}

static void draw_tree(canvas *cv, const top_model *m, top_ui *u, const top_layout *l)
{
    int cols = cv->cols;
    cv_fmt(cv, l->proc_y, 0, cols, TR_TITLE, "PROCESS TREE of pid %u  (t or Esc: back to the table)", u->tree_pid);
    if (u->tree_n == 0) {
        cv_fmt(cv, l->proc_y + 1, 0, cols, TR_WARN, "pid %u is gone or not visible here (another pid namespace)",
               u->tree_pid);
        return;
    }
    int rows = l->proc_h - 1, first = 0, sel = 0;
    for (int i = 0; i < u->tree_n; i++)
        if (u->tree_nodes[i].selected)
            sel = i;
    if (sel >= rows) /* keep the process itself in view, with as many ancestors as fit */
        first = sel - rows / 2;
    for (int r = 0; r < rows && first + r < u->tree_n; r++) {
        const proc_node *nd = &u->tree_nodes[first + r];
        char use[96], line[400];
        gpu_use(m, nd->pid, use, sizeof use);
        int indent = nd->depth * 2 > cols / 2 ? cols / 2 : nd->depth * 2;
        snprintf(line, sizeof line, "%*s%s%u %s%s", indent, "", nd->depth ? (cv->ascii ? "`- " : "└ ") : "", nd->pid,
                 use, nd->cmd);
        theme_role role = nd->selected ? TR_SELECTED : use[0] ? TR_TITLE : TR_NORMAL;
        if (nd->selected)
            cv_fill(cv, l->proc_y + 1 + r, 0, cols, ' ', role);
        cv_text(cv, l->proc_y + 1 + r, 0, cols, role, line);
    }
}

void procs_draw(canvas *cv, const top_model *m, top_ui *u, const top_layout *l, uint64_t now_s)
{
    if (l->proc_h < 2)
        return;
    if (u->tree)
        draw_tree(cv, m, u, l);
    else
        draw_table(cv, m, u, l, now_s);
}
