/* errlist.h - a list of "FILE:LINE:COL: message" errors, to report every problem in a file at once. */
#ifndef GPUWATCH_ERRLIST_H
#define GPUWATCH_ERRLIST_H

typedef struct errlist {
    char **msg;
    int *line, *col;
    int n, cap;
} errlist;

/* Adds "file:line:col: text" (line and column 1-based; 0 leaves them out; a NULL file: the text as is). */
void errlist_add(errlist *e, const char *file, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
void errlist_free(errlist *e);
/* Orders the messages by line and column (they are collected in parse order). */
void errlist_sort(errlist *e);

#endif
