/* table.h - aligned text columns for humans: cells are added row by row, widths found at print time. */
#ifndef GPUWATCH_TABLE_H
#define GPUWATCH_TABLE_H

#include <stdio.h>

typedef struct table {
    int ncols, nrows; /* nrows counts complete rows */
    int ncells;
    char **cells;         /* nrows * ncols, owned */
    int cap;              /* cells allocated */
    unsigned char *right; /* per column: right-aligned */
} table;

int table_init(table *t, int ncols);
/* Sets a column's alignment (default left). */
void table_align_right(table *t, int col, int right);
/* Appends one cell (rows fill left to right). Returns 0, -1 when out of memory. */
int table_add(table *t, const char *text);
/* Prints rows, two spaces between columns, no trailing spaces. */
void table_print(const table *t, FILE *f);
void table_free(table *t);

#endif
