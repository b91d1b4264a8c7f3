/* top_proc.h - process table cells and widths (shared by the curses table and the snapshot). */
#ifndef GPUWATCH_TOP_PROC_H
#define GPUWATCH_TOP_PROC_H

#include "top_ui.h"

#define PROC_CELL 256
extern const int proc_col_width[PC_COUNT]; /* 0 = the rest of the line */
void proc_cells(const gpu_proc *p, uint64_t now_s, char cells[PC_COUNT][PROC_CELL]);
int proc_col_right(proc_col c);
/* Which columns fit in `cols`: the least needed (host memory, time, CPU, container) are dropped
 * until the command has at least 24 columns. */
void proc_visible_cols(int cols, int visible[PC_COUNT]);

#endif
