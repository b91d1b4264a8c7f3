/* csv_series.c - reads one column of a CSV trace (first column = time) for the csv generator. */
#include "gen_parse.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CSV_MAX_BYTES (64u << 20)

static char *read_file(const char *path, size_t *len, char *why, size_t whylen)
{
    FILE *f = fopen(path, "rb");
    if (!f) { snprintf(why, whylen, "%s", strerror(errno)); return NULL; }
    char *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n + 4096 + 1 > cap) {
            cap = cap ? cap * 2 : 8192;
            char *nb = cap > CSV_MAX_BYTES ? NULL : realloc(buf, cap);
            if (!nb) { snprintf(why, whylen, "file too large"); free(buf); fclose(f); return NULL; }
            buf = nb;
        }
        size_t r = fread(buf + n, 1, 4096, f);
        n += r;
        if (r < 4096) break;
    }
    fclose(f);
    buf[n] = 0;
    *len = n;
    return buf;
}

/* Splits line (modified in place) at commas into at most max fields; returns the count.
 * cols receives each field's 1-based column. Whitespace around fields is trimmed. */
static int split_fields(char *line, char **fields, int *cols, int max)
{
    int n = 0;
    char *p = line;
    for (;;) {
        char *start = p;
        while (*p && *p != ',') p++;
        char end = *p;
        *p = 0;
        while (*start == ' ' || *start == '\t') start++;
        char *e = start + strlen(start);
        while (e > start && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r')) *--e = 0;
        if (n < max) { fields[n] = start; cols[n] = (int)(start - line) + 1; n++; }
        if (!end) break;
        p++;
    }
    return n;
}

static int csv_fail(ydoc *d, const char *path, int line, int col, const char *fmt, const char *arg)
{
    if (!d->failed && d->err && d->errlen) {
        int k = snprintf(d->err, d->errlen, "%s:%d:%d: ", path, line, col);
        if (k > 0 && (size_t)k < d->errlen) snprintf(d->err + k, d->errlen - (size_t)k, fmt, arg);
    }
    d->failed = 1;
    return -1;
}

static int num_field(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (!*s || *end || errno || !isfinite(v)) return -1;
    *out = v;
    return 0;
}

/* Appends (t, v) to g->pts, growing it. */
static int push_point(sim_gen *g, int *cap, double t, double v)
{
    if (g->npts == *cap) {
        int nc = *cap ? *cap * 2 : 64;
        gen_point *np = realloc(g->pts, (size_t)nc * sizeof *np);
        if (!np) return -1;
        g->pts = np;
        *cap = nc;
    }
    g->pts[g->npts].t = t;
    g->pts[g->npts].v = v;
    g->npts++;
    return 0;
}

int csv_load_series(ydoc *d, const yaml_node_t *file_node, const yaml_node_t *col_node,
                    const char *path, const char *column, sim_gen *g)
{
    char why[128];
    size_t len;
    char *text = read_file(path, &len, why, sizeof why);
    if (!text) return yerr(d, file_node, "cannot read CSV file '%s': %s", path, why);
    enum { MAXF = 256 };
    char *fields[MAXF];
    int cols[MAXF], want = -1, line_no = 0, cap = 0, rc = 0;
    for (char *line = text, *next; line && rc == 0; line = next) {
        next = strchr(line, '\n');
        if (next) *next++ = 0;
        line_no++;
        int nf = split_fields(line, fields, cols, MAXF);
        if (nf == 1 && !fields[0][0]) continue; /* blank line */
        if (want < 0) {
            for (int i = 1; i < nf && want < 0; i++)
                if (strcmp(fields[i], column) == 0) want = i;
            if (want < 0) { rc = yerr(d, col_node, "no column '%s' in the header of CSV file '%s'", column, path); break; }
            continue;
        }
        double t, v;
        if (num_field(fields[0], &t) != 0 && parse_duration_text(fields[0], &t) != 0)
            rc = csv_fail(d, path, line_no, cols[0], "expected a time in seconds, got '%s'", fields[0]);
        else if (want >= nf)
            rc = csv_fail(d, path, line_no, 1, "missing column '%s'", column);
        else if (num_field(fields[want], &v) != 0)
            rc = csv_fail(d, path, line_no, cols[want], "expected a number, got '%s'", fields[want]);
        else if (g->npts > 0 && t < g->pts[g->npts - 1].t)
            rc = csv_fail(d, path, line_no, cols[0], "times must increase (got '%s')", fields[0]);
        else if (push_point(g, &cap, t, v) != 0)
            rc = yerr(d, file_node, "out of memory");
    }
    free(text);
    if (rc == 0 && want < 0) rc = yerr(d, file_node, "CSV file '%s' is empty", path);
    if (rc == 0 && g->npts == 0) rc = yerr(d, file_node, "CSV file '%s' has no data rows", path);
    return rc;
}
