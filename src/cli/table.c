/* table.c - a small aligned-columns printer (query's table format). */
#include "table.h"
#include <stdlib.h>
#include <string.h>

int table_init(table *t, int ncols)
{
    memset(t, 0, sizeof *t);
    t->ncols = ncols > 0 ? ncols : 1;
    t->right = calloc((size_t)t->ncols, 1);
    return t->right ? 0 : -1;
}

void table_align_right(table *t, int col, int right)
{
    if (col >= 0 && col < t->ncols)
        t->right[col] = (unsigned char)(right != 0);
}

int table_add(table *t, const char *text)
{
    if (t->ncells >= t->cap) {
        int cap = t->cap ? t->cap * 2 : t->ncols * 8;
        char **c = realloc(t->cells, (size_t)cap * sizeof *c);
        if (!c)
            return -1;
        memset(c + t->cap, 0, (size_t)(cap - t->cap) * sizeof *c);
        t->cells = c;
        t->cap = cap;
    }
    t->cells[t->ncells] = strdup(text);
    if (!t->cells[t->ncells])
        return -1;
    t->ncells++;
    t->nrows = t->ncells / t->ncols;
    return 0;
}

void table_print(const table *t, FILE *f)
{
    size_t *w = calloc((size_t)t->ncols, sizeof *w);
    if (!w)
        return;
    for (int r = 0; r < t->nrows; r++)
        for (int c = 0; c < t->ncols; c++) {
            size_t len = strlen(t->cells[r * t->ncols + c]);
            if (len > w[c])
                w[c] = len;
        }
    for (int r = 0; r < t->nrows; r++) {
        for (int c = 0; c < t->ncols; c++) {
            const char *s = t->cells[r * t->ncols + c];
            int last = c == t->ncols - 1;
            if (c)
                fputs("  ", f);
            if (t->right[c])
                fprintf(f, "%*s", (int)w[c], s);
            else if (last)
                fputs(s, f);
            else
                fprintf(f, "%-*s", (int)w[c], s);
        }
        fputc('\n', f);
    }
    free(w);
}

void table_free(table *t)
{
    for (int i = 0; i < t->ncells; i++)
        free(t->cells[i]);
    free(t->cells);
    free(t->right);
    memset(t, 0, sizeof *t);
}
