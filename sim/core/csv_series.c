/* csv_series.c - CSV traces for the csv generator: each file is read and split into cells
 * once per scenario (a recorded trace has one column per metric), then columns are taken
 * from it; the first column is the time in seconds. */
#include "gen_parse.h"
#include "files.h"
#include "util.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CSV_MAX_BYTES (256u << 20)
#define CSV_MAX_COLS 1024

typedef struct csv_table {
    struct csv_table *next;
    char *path;
    char *text;       /* the file, cut into NUL-terminated cells */
    int ncols, nrows; /* header columns; data rows */
    char **cell;      /* (nrows + 1) x ncols: row 0 is the header; NULL = missing */
    int *col;         /* 1-based column of each cell, for messages */
    int *line;        /* file line of each row */
    double *times;    /* parsed time of each data row (index 1..nrows), once times_ok */
    int times_ok;
} csv_table;

/* Cuts one line (NUL-terminated, modified) at commas into row r of t, trimming blanks. */
static void split_row(csv_table *t, int r, char *line)
{
    char *p = line;
    for (int c = 0;; c++) {
        char *start = p;
        while (*p && *p != ',')
            p++;
        char end = *p;
        *p = 0;
        while (*start == ' ' || *start == '\t')
            start++;
        char *e = start + strlen(start);
        while (e > start && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
            *--e = 0;
        if (c < t->ncols) {
            t->cell[(size_t)r * (size_t)t->ncols + (size_t)c] = start;
            t->col[(size_t)r * (size_t)t->ncols + (size_t)c] = (int)(start - line) + 1;
        }
        if (!end)
            break;
        p++;
    }
}

/* Number of commas + 1 in a line. */
static int count_fields(const char *line)
{
    int n = 1;
    for (; *line && *line != '\n'; line++)
        n += *line == ',';
    return n;
}

static int split_table(csv_table *t)
{
    int lines = 1;
    for (const char *p = t->text; *p; p++)
        lines += *p == '\n';
    t->ncols = count_fields(t->text);
    if (t->ncols > CSV_MAX_COLS)
        t->ncols = CSV_MAX_COLS;
    size_t cells = (size_t)lines * (size_t)t->ncols;
    t->cell = calloc(cells, sizeof *t->cell);
    t->col = calloc(cells, sizeof *t->col);
    t->line = calloc((size_t)lines, sizeof *t->line);
    if (!t->cell || !t->col || !t->line)
        return -1;
    int r = 0, line_no = 0;
    for (char *line = t->text, *next; line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = 0;
        line_no++;
        if (!line[strspn(line, " \t\r")])
            continue; /* blank line */
        t->line[r] = line_no;
        split_row(t, r++, line);
    }
    t->nrows = r > 0 ? r - 1 : 0;
    return 0;
}

static void table_free(csv_table *t)
{
    free(t->path);
    free(t->text);
    free(t->cell);
    free(t->col);
    free(t->line);
    free(t->times);
    free(t);
}

void gen_ctx_free(gen_ctx *ctx)
{
    while (ctx->tables) {
        csv_table *n = ctx->tables->next;
        table_free(ctx->tables);
        ctx->tables = n;
    }
}

/* The table of path, read now or earlier in this scenario; NULL with why set on error. */
static csv_table *table_get(gen_ctx *ctx, const char *path, char *why, size_t whylen)
{
    for (csv_table *t = ctx->tables; t; t = t->next)
        if (strcmp(t->path, path) == 0)
            return t;
    csv_table *t = calloc(1, sizeof *t);
    why[0] = 0;
    if (!t || !(t->path = strdup(path)) || !(t->text = gw_read_file(path, CSV_MAX_BYTES, NULL, why, whylen)) ||
        split_table(t) != 0) {
        if (!why[0])
            snprintf(why, whylen, "out of memory");
        if (t)
            table_free(t);
        return NULL;
    }
    t->next = ctx->tables;
    ctx->tables = t;
    return t;
}

/* A problem in the CSV file itself, located in it. */
static int csv_fail(gw_doc *d, const char *path, int line, int col, const char *fmt, const char *arg)
{
    char text[400];
    snprintf(text, sizeof text, fmt, arg);
    errlist_add(d->errs, path, line, col, "%s", text);
    return -1;
}

static int num_field(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (!*s || *end || errno || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

/* Parses the time column once per table: numbers (seconds) or durations, increasing. */
static int table_times(gw_doc *d, const char *path, csv_table *t)
{
    if (t->times_ok)
        return 0;
    t->times = calloc((size_t)t->nrows + 1, sizeof *t->times);
    if (!t->times)
        return doc_error(d, NULL, "out of memory");
    for (int r = 1; r <= t->nrows; r++) {
        size_t i = (size_t)r * (size_t)t->ncols;
        const char *ts = t->cell[i];
        if (num_field(ts, &t->times[r]) != 0 && gw_parse_duration(ts, &t->times[r]) != 0)
            return csv_fail(d, path, t->line[r], t->col[i], "expected a time in seconds, got '%s'", ts);
        if (r > 1 && t->times[r] < t->times[r - 1])
            return csv_fail(d, path, t->line[r], t->col[i], "times must increase (got '%s')", ts);
    }
    t->times_ok = 1;
    return 0;
}

int csv_load_series(gw_doc *d, gen_ctx *ctx, const yaml_node_t *file_node, const yaml_node_t *col_node,
                    const char *path, const char *column, sim_gen *g)
{
    char why[128];
    csv_table *t = table_get(ctx, path, why, sizeof why);
    if (!t)
        return doc_error(d, file_node, "cannot read CSV file '%s': %s", path, why);
    if (t->nrows == 0 && !t->cell[0])
        return doc_error(d, file_node, "CSV file '%s' is empty", path);
    int want = -1;
    for (int c = 1; c < t->ncols && want < 0; c++)
        if (t->cell[c] && strcmp(t->cell[c], column) == 0)
            want = c;
    if (want < 0)
        return doc_error(d, col_node, "no column '%s' in the header of CSV file '%s'", column, path);
    if (table_times(d, path, t) != 0)
        return -1;
    g->pts = calloc((size_t)t->nrows + 1, sizeof *g->pts);
    if (!g->pts)
        return doc_error(d, file_node, "out of memory");
    for (int r = 1; r <= t->nrows; r++) {
        size_t i = (size_t)r * (size_t)t->ncols;
        const char *vs = t->cell[i + (size_t)want];
        double v;
        if (!vs || !*vs)
            continue; /* empty cell: no point at this time */
        if (num_field(vs, &v) != 0)
            return csv_fail(d, path, t->line[r], t->col[i + (size_t)want], "expected a number, got '%s'", vs);
        g->pts[g->npts++] = (gen_point){t->times[r], v};
    }
    if (g->npts == 0)
        return doc_error(d, col_node, "column '%s' of CSV file '%s' has no values", column, path);
    return 0;
}
