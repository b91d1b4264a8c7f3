/* proc_text.c - one process as table cells (shared by the curses table and the snapshot). */
#include "top_proc.h"
#include <stdio.h>
#include <string.h>

const int proc_col_width[PC_COUNT] = {3, 7, 10, 14, 9, 4, 5, 9, 8, 0};

void proc_cells(const gpu_proc *p, uint64_t now_s, char cells[PC_COUNT][PROC_CELL])
{
    snprintf(cells[PC_GPU], PROC_CELL, "%d", p->gpu);
    snprintf(cells[PC_PID], PROC_CELL, "%u", p->pid);
    snprintf(cells[PC_USER], PROC_CELL, "%s", p->user[0] ? p->user : "-");
    snprintf(cells[PC_CONTAINER], PROC_CELL, "%s", p->container[0] ? p->container : "-");
    if (p->has_mem)
        fmt_mib(cells[PC_GPUMEM], PROC_CELL, p->mem_mib);
    else
        snprintf(cells[PC_GPUMEM], PROC_CELL, "N/A");
    if (p->has_sm)
        snprintf(cells[PC_SM], PROC_CELL, "%.0f", p->sm_util);
    else
        snprintf(cells[PC_SM], PROC_CELL, "N/A");
    if (p->has_cpu)
        snprintf(cells[PC_CPU], PROC_CELL, "%.0f", p->cpu_percent);
    else
        snprintf(cells[PC_CPU], PROC_CELL, "N/A");
    if (p->has_rss)
        fmt_mib(cells[PC_HOSTMEM], PROC_CELL, p->rss_mib);
    else
        snprintf(cells[PC_HOSTMEM], PROC_CELL, "N/A");
    if (p->start_time_s && now_s >= p->start_time_s)
        fmt_duration(cells[PC_TIME], PROC_CELL, now_s - p->start_time_s);
    else
        snprintf(cells[PC_TIME], PROC_CELL, "-");
    const char *cmd = p->cmdline[0] ? p->cmdline : p->name[0] ? p->name : "?";
    snprintf(cells[PC_CMD], PROC_CELL, "%s", cmd);
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
