/* proc_table.c - the process table: sorted, filtered, with a selected row that follows its pid. */
#include "top_draw.h"
#include "top_proc.h"
#include <stdio.h>
#include <string.h>
#include <time.h>

static int order[TOP_MAX_PROCS];

static void draw_title(const top_ui *u, int y, int cols, int shown, int total)
{
    char buf[256];
    int x = draw_fmt(y, 0, cols, theme_attr(TR_TITLE), "PROCESSES %d", shown);
    if (shown != total)
        x += draw_fmt(y, x, cols - x, theme_attr(TR_TITLE), " of %d", total);
    if (u->sel_gpu >= 0)
        x += draw_fmt(y, x, cols - x, theme_attr(TR_WARN), "  on GPU %d", u->sel_gpu);
    if (u->filter[0] || u->editing_filter) {
        snprintf(buf, sizeof buf, "  filter: %s%s", u->filter, u->editing_filter ? "_" : "");
        x += draw_text(y, x, cols - x, theme_attr(TR_WARN), buf);
    }
    snprintf(buf, sizeof buf, "  sort: %s %s", proc_col_names[u->sort_col], u->sort_desc ? "desc" : "asc");
    draw_text(y, x, cols - x, theme_attr(TR_DIM), buf);
}

/* One row of cells laid out in the columns (last column takes the rest). */
static void draw_row(int y, int cols, attr_t a, char cells[PC_COUNT][PROC_CELL], int header, proc_col sorted, int desc,
                     int ascii)
{
    int x = 0, visible[PC_COUNT];
    proc_visible_cols(cols, visible);
    for (int c = 0; c < PC_COUNT && x < cols; c++) {
        if (!visible[c])
            continue;
        int w = proc_col_width[c] ? proc_col_width[c] : cols - x;
        char cell[PROC_CELL + 8];
        if (header && c == (int)sorted)
            snprintf(cell, sizeof cell, "%s%s", cells[c], ascii ? (desc ? "v" : "^") : (desc ? "▼" : "▲"));
        else
            snprintf(cell, sizeof cell, "%s", cells[c]);
        int cw = fmt_cols(cell);
        int pad = proc_col_right((proc_col)c) && cw < w ? w - cw : 0;
        draw_text(y, x + pad, w, a, cell);
        x += w + 1;
    }
}

void draw_procs(const top_model *m, top_ui *u, const top_layout *l, int cols)
{
    if (l->proc_h < 2)
        return;
    uint64_t now_s = (uint64_t)time(NULL);
    int n = proc_order(m->procs, m->nprocs, u->filter, u->sel_gpu, u->sort_col, u->sort_desc, now_s, order);
    draw_title(u, l->proc_y, cols, n, m->nprocs);
    static char cells[PC_COUNT][PROC_CELL];
    for (int c = 0; c < PC_COUNT; c++)
        snprintf(cells[c], PROC_CELL, "%s", proc_col_names[c]);
    int y0 = l->proc_y + 1;
    if (l->proc_h >= 3) {
        mvhline(y0, 0, ' ' | theme_attr(TR_HEADER), cols);
        draw_row(y0, cols, theme_attr(TR_HEADER), cells, 1, u->sort_col, u->sort_desc, u->o->ascii);
        y0++;
    }
    int rows = l->proc_y + l->proc_h - y0;
    /* The selection follows its pid; without one (or when it is gone) it keeps its row. */
    if (u->sel_pid) {
        for (int i = 0; i < n; i++)
            if (m->procs[order[i]].pid == u->sel_pid) {
                u->sel_row = i;
                break;
            }
    }
    if (u->sel_row >= n)
        u->sel_row = n - 1;
    if (u->sel_row < 0)
        u->sel_row = 0;
    u->sel_pid = n ? m->procs[order[u->sel_row]].pid : 0;
    if (n && u->confirm_sig == 0)
        snprintf(u->confirm_name, sizeof u->confirm_name, "%s", m->procs[order[u->sel_row]].name);
    if (u->sel_row < u->proc_top)
        u->proc_top = u->sel_row;
    if (rows > 0 && u->sel_row >= u->proc_top + rows)
        u->proc_top = u->sel_row - rows + 1;
    if (n == 0) {
        draw_text(y0, 0, cols, theme_attr(TR_DIM), m->nprocs ? "no process matches" : "no processes on the GPUs");
        return;
    }
    for (int r = 0; r < rows && u->proc_top + r < n; r++) {
        int i = u->proc_top + r;
        proc_cells(&m->procs[order[i]], now_s, cells);
        attr_t a = i == u->sel_row ? theme_attr(TR_SELECTED) : A_NORMAL;
        if (i == u->sel_row)
            mvhline(y0 + r, 0, ' ' | a, cols);
        draw_row(y0 + r, cols, a, cells, 0, u->sort_col, u->sort_desc, u->o->ascii);
    }
}
