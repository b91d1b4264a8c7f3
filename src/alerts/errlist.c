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
    if (line > 0)
        rc = asprintf(&m, "%s:%d:%d: %s", file, line, col, text);
    else
        rc = asprintf(&m, "%s: %s", file, text);
    if (rc < 0)
        return;
    if (e->n == e->cap) {
        int cap = e->cap ? e->cap * 2 : 8;
        char **p = realloc(e->msg, (size_t)cap * sizeof *p);
        if (!p) { free(m); return; }
        e->msg = p;
        e->cap = cap;
    }
    e->msg[e->n++] = m;
}

void errlist_free(errlist *e)
{
    for (int i = 0; i < e->n; i++)
        free(e->msg[i]);
    free(e->msg);
    e->msg = NULL;
    e->n = e->cap = 0;
}
