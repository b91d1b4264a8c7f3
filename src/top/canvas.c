/* canvas.c - the screen grid top draws into (see top_canvas.h): text with roles, and the runs of cells
 * that differ between two frames. */
#include "top_canvas.h"
#include "text.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

theme_role role_of_level(top_level l)
{
    return l == LVL_CRIT ? TR_CRIT : l == LVL_WARN ? TR_WARN : TR_OK;
}

int canvas_resize(canvas *c, int rows, int cols)
{
    if (rows < 0)
        rows = 0;
    if (cols < 0)
        cols = 0;
    size_t n = (size_t)rows * (size_t)cols;
    tcell *cells = calloc(n ? n : 1, sizeof *cells);
    if (!cells)
        return -1;
    free(c->cells);
    c->cells = cells;
    c->rows = rows;
    c->cols = cols;
    canvas_clear(c);
    return 0;
}

void canvas_free(canvas *c)
{
    free(c->cells);
    c->cells = NULL;
    c->rows = c->cols = 0;
}

void canvas_clear(canvas *c)
{
    size_t n = (size_t)c->rows * (size_t)c->cols;
    for (size_t i = 0; i < n; i++)
        c->cells[i] = (tcell){' ', TR_NORMAL};
}

int cv_text(canvas *c, int y, int x, int maxcols, theme_role r, const char *s)
{
    if (y < 0 || y >= c->rows || x < 0 || x >= c->cols || maxcols <= 0)
        return 0;
    if (maxcols > c->cols - x)
        maxcols = c->cols - x;
    tcell *row = cv_cell(c, y, 0);
    int used = 0;
    if (row[x].ch == CELL_WIDE_TAIL && x > 0)
        row[x - 1] = (tcell){' ', row[x - 1].role}; /* a wide character cut in half: its first half goes */
    while (*s) {
        uint32_t cp;
        s += gw_utf8_next(s, &cp);
        if (cp < 0x20 || (cp >= 0x7F && cp < 0xA0))
            cp = '?';
        if (c->ascii && cp >= 0x80) {
            if (cp == 0xB0)
                continue; /* 92 °C -> 92 C */
            cp = '?';
        }
        int w = cp < 0x7F ? 1 : fmt_cp_cols(cp);
        if (w == 0)
            continue; /* combining marks are left out */
        if (used + w > maxcols)
            break;
        row[x + used] = (tcell){cp, r};
        if (w == 2)
            row[x + used + 1] = (tcell){CELL_WIDE_TAIL, r};
        used += w;
    }
    if (x + used < c->cols && row[x + used].ch == CELL_WIDE_TAIL)
        row[x + used] = (tcell){' ', row[x + used].role}; /* and its second half */
    return used;
}

int cv_fmt(canvas *c, int y, int x, int maxcols, theme_role r, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return cv_text(c, y, x, maxcols, r, buf);
}

void cv_fill(canvas *c, int y, int x, int n, uint32_t ch, theme_role r)
{
    if (y < 0 || y >= c->rows || x < 0)
        return;
    for (int i = x; i < x + n && i < c->cols; i++)
        *cv_cell(c, y, i) = (tcell){ch, r};
}

char *cv_row_text(const canvas *c, int y, char *out, size_t n)
{
    size_t pos = 0;
    for (int x = 0; y >= 0 && y < c->rows && x < c->cols; x++) {
        uint32_t cp = c->cells[(size_t)y * (size_t)c->cols + (size_t)x].ch;
        char u[4];
        if (cp == CELL_WIDE_TAIL)
            continue;
        size_t len = gw_utf8_put(cp, u);
        if (pos + len + 1 > n)
            break;
        memcpy(out + pos, u, len);
        pos += len;
    }
    if (n)
        out[pos] = 0;
    return out;
}

int cv_row_run(const canvas *a, const canvas *b, int y, int from, int gap, int *first, int *last)
{
    const tcell *ra = a->cells + (size_t)y * (size_t)a->cols, *rb = b->cells + (size_t)y * (size_t)b->cols;
    int x = from < 0 ? 0 : from;
#define SAME(i) (ra[i].ch == rb[i].ch && ra[i].role == rb[i].role)
    while (x < a->cols && SAME(x))
        x++;
    if (x >= a->cols)
        return 0;
    int f = x, l = x, same = 0;
    for (x++; x < a->cols && same < gap; x++) {
        if (SAME(x)) {
            same++;
        } else {
            same = 0;
            l = x;
        }
    }
#undef SAME
    while (f > 0 && ra[f].ch == CELL_WIDE_TAIL)
        f--; /* start at the first column of a wide character */
    while (l + 1 < a->cols && ra[l + 1].ch == CELL_WIDE_TAIL)
        l++;
    *first = f;
    *last = l;
    return 1;
}
