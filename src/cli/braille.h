/* braille.h - the one braille plotter (history's charts, top's): dots and lines of several series
 * into a grid of terminal cells, 2 x 4 dots a cell as Unicode braille (U+2800 + the cell's dot bits),
 * or one dot a cell in ASCII, where the renderer draws a mark. Each cell remembers the series that
 * drew in it last and every series that touched it, for colours and marks. */
#ifndef GPUWATCH_BRAILLE_H
#define GPUWATCH_BRAILLE_H

#include <stdint.h>

typedef struct braille {
    int w, h;           /* cells */
    int dw, dh;         /* dots: 2w x 4h, or w x h in ASCII */
    int ascii;          /* one dot a cell */
    uint8_t *bits;      /* dot bits per cell (braille's numbering: U+2800 + bits) */
    signed char *owner; /* the series that drew last in a cell, -1 none */
    uint8_t *touched;   /* bit s: series s (0-7) drew in the cell */
    int cap;            /* cells allocated */
} braille;

/* Sizes p to w x h cells (at least 1 x 1), every cell empty; keeps its memory when it is large
 * enough (a plot drawn again and again). Returns 0, or -1 when out of memory. */
int braille_resize(braille *p, int w, int h, int ascii);
void braille_free(braille *p);

/* A dot at (x, y), y from the top; outside the grid, nothing. series 0-127. */
void braille_dot(braille *p, int x, int y, int series);
/* The dots from (x0, y0) to (x1, y1). */
void braille_line(braille *p, int x0, int y0, int x1, int y1, int series);

/* A cell's braille character (U+2800 + its dots), 0 when no dot is in it. */
uint32_t braille_char(const braille *p, int cx, int cy);
/* The series that drew last in a cell, -1 for none; the series that touched it (bit s). */
int braille_owner(const braille *p, int cx, int cy);
unsigned braille_touched(const braille *p, int cx, int cy);

#endif
