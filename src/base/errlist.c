/* errlist.c - collecting located error messages (see errlist.h). */
#include "errlist.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void errlist_add(errlist *e, const char *file, int line, int col, const char *fmt, ...)
{
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    char *m = NULL;
    int rc;
    if (!file)
        rc = asprintf(&m, "%s", text);
    else if (line > 0)
        rc = asprintf(&m, "%s:%d:%d: %s", file, line, col, text);
    else
        rc = asprintf(&m, "%s: %s", file, text);
    if (rc < 0)
        return;
    if (e->n == e->cap) {
        int cap = e->cap ? e->cap * 2 : 8;
        char **p = realloc(e->msg, (size_t)cap * sizeof *p);
        if (p)
            e->msg = p;
        int *l = realloc(e->line, (size_t)cap * sizeof *l);
        if (l)
            e->line = l;
        int *c = realloc(e->col, (size_t)cap * sizeof *c);
        if (c)
            e->col = c;
        if (!p || !l || !c) {
            free(m);
            return;
        }
        e->cap = cap;
    }
    e->line[e->n] = line;
    e->col[e->n] = col;
    e->msg[e->n++] = m;
}

void errlist_free(errlist *e)
{
    for (int i = 0; i < e->n; i++)
        free(e->msg[i]);
    free(e->msg);
    free(e->line);
    free(e->col);
    e->msg = NULL;
    e->line = e->col = NULL;
    e->n = e->cap = 0;
}

void errlist_sort(errlist *e)
{
    for (int i = 1; i < e->n; i++) /* insertion sort: stable, lists are short */
        for (int k = i; k > 0; k--) {
            int before = e->line[k - 1] > e->line[k] || (e->line[k - 1] == e->line[k] && e->col[k - 1] > e->col[k]);
            if (!before)
                break;
            char *m = e->msg[k];
            e->msg[k] = e->msg[k - 1];
            e->msg[k - 1] = m;
            int l = e->line[k];
            e->line[k] = e->line[k - 1];
            e->line[k - 1] = l;
            int c = e->col[k];
            e->col[k] = e->col[k - 1];
            e->col[k - 1] = c;
        }
}
