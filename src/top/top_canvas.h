/* top_canvas.h - the screen as a grid of cells (a character and a theme role each). The panels draw
 * into a canvas, never into curses; the terminal side then sends curses only the cells that changed
 * since the last frame. A canvas needs no terminal, so whole screens are unit tested. */
#ifndef GPUWATCH_TOP_CANVAS_H
#define GPUWATCH_TOP_CANVAS_H

#include <stddef.h>
#include <stdint.h>
#include "top_fmt.h"

/* What a cell is (the terminal maps roles to colours, or to bold/reverse without colour). */
typedef enum {
    TR_NORMAL,
    TR_TITLE,
    TR_BANNER,
    TR_DIM,
    TR_OK,
    TR_WARN,
    TR_CRIT,
    TR_BAR_UTIL,
    TR_BAR_MEM,
    TR_SERIES_A,
    TR_SERIES_B,
    TR_SELECTED,
    TR_HEADER,
    TR_ROLES
} theme_role;

/* TR_OK / TR_WARN / TR_CRIT for a level. */
theme_role role_of_level(top_level l);

#define CELL_WIDE_TAIL 0xFFFFFFFFu /* the second column of a double-width character */

typedef struct tcell {
    uint32_t ch; /* a Unicode code point, or CELL_WIDE_TAIL */
    uint32_t role;
} tcell;

typedef struct canvas {
    int rows, cols;
    int ascii; /* text is written in ASCII: the degree sign dropped, other non-ASCII as '?' */
    tcell *cells;
} canvas;

/* Sizes the canvas (cells cleared); returns 0 or -1 when out of memory. */
int canvas_resize(canvas *c, int rows, int cols);
void canvas_free(canvas *c);
/* Every cell a space in TR_NORMAL. */
void canvas_clear(canvas *c);

/* Writes UTF-8 text at (y, x), at most maxcols columns (a wide character that does not fit is left
 * out); control characters become '?'. Returns the columns written. Outside the canvas: nothing. */
int cv_text(canvas *c, int y, int x, int maxcols, theme_role r, const char *s);
int cv_fmt(canvas *c, int y, int x, int maxcols, theme_role r, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
/* n cells of one character from (y, x). */
void cv_fill(canvas *c, int y, int x, int n, uint32_t ch, theme_role r);

static inline tcell *cv_cell(canvas *c, int y, int x)
{
    return &c->cells[(size_t)y * (size_t)c->cols + (size_t)x];
}

/* A row's text as UTF-8 (trailing spaces kept); for tests and plain output. */
char *cv_row_text(const canvas *c, int y, char *out, size_t n);
/* The next run of differences in row y from column `from`: [*first, *last], ending where `gap`
 * columns in a row are the same (widened to whole characters). Returns 0 when there is none. */
int cv_row_run(const canvas *a, const canvas *b, int y, int from, int gap, int *first, int *last);

#endif
