/* chart.h - terminal line charts of time series: Unicode braille (2x4 dots per cell) or plain ASCII,
 * with y-axis labels and unit, x-axis times and a legend (one series per GPU). */
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

typedef struct chart_opts {
    int width, height; /* whole chart, in terminal cells (defaults 80 x 20) */
    int utf8;          /* braille and box drawing; 0 = ASCII */
    int color;         /* ANSI colours per series */
    const char *title;
    const char *unit;       /* y unit, or NULL */
    int64_t from_us, to_us; /* x range */
    int64_t gap_us;         /* points further apart than this are not joined (0 = always joined) */
} chart_opts;

/* Renders the chart into a malloc'd NUL-terminated text (lines end with \n); NULL when out of memory. */
char *chart_render(const chart_series *s, int ns, const chart_opts *o);
/* 1 when LC_ALL / LC_CTYPE / LANG ask for UTF-8. */
int chart_locale_utf8(void);

#endif
