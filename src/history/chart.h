/* chart.h - terminal line charts of time series: Unicode braille (2x4 dots per cell) or plain ASCII,
 * with y-axis labels and unit, x-axis times and a legend (one series per GPU). Series stay apart
 * without colour: several series and no colour draw each with its own character, named in the
 * legend, so that a chart piped to a file or a mail still says which line is which. */
#ifndef GPUWATCH_CHART_H
#define GPUWATCH_CHART_H

#include <stddef.h>
#include <stdint.h>

typedef struct chart_series {
    const char *label;
    const int64_t *t;
    const double *v;
    size_t n;
} chart_series;

/* The sizes a chart may have, in terminal cells (a size asked for outside them is brought within). */
#define CHART_MIN_WIDTH 20
#define CHART_MAX_WIDTH 1000
#define CHART_MIN_HEIGHT 6
#define CHART_MAX_HEIGHT 1000

typedef struct chart_opts {
    int width, height; /* whole chart, in terminal cells (defaults 80 x 20; within the limits above) */
    int utf8;          /* braille and box drawing; 0 = ASCII */
    int color;         /* ANSI colours per series */
    const char *title;
    const char *unit;       /* y unit, or NULL */
    int64_t from_us, to_us; /* x range */
    int64_t gap_us;         /* points further apart than this are not joined (0 = always joined) */
    int has_ymin, has_ymax; /* fixed y bounds (else the data's); points outside are clipped */
    double ymin, ymax;
} chart_opts;

/* Renders the chart into a malloc'd NUL-terminated text (lines end with \n) of o->height lines
 * (more only when the legend needs more lines than the chart has); NaN values are gaps. NULL when
 * out of memory. */
char *chart_render(const chart_series *s, int ns, const chart_opts *o);
/* 1 when LC_ALL / LC_CTYPE / LANG ask for UTF-8. */
int chart_locale_utf8(void);

#endif
