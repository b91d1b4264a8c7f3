/* charts.c - charts over the last minutes from the history ring: utilization and memory, power
 * and temperature, for the selected GPU (two charts) or every GPU (a grid of small ones).
 * Braille dots (2x4 per cell) with Unicode, '*' and '+' in ASCII; x axis in seconds, legends, units. */
#include "top_draw.h"
#include "top_series.h"
#include "util.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

#define MAX_W 512

typedef struct chart_spec {
    int gpu;
    series_kind a, b;    /* b may equal a for a single series */
    double a_max, b_max; /* y ranges start at 0 */
} chart_spec;

/* Plots the series into a cell grid of dots; each cell remembers which series touched it. */
typedef struct plot {
    int w, h; /* cells */
    unsigned char dots[64][MAX_W];
    unsigned char who[64][MAX_W]; /* bit 0 series a, bit 1 series b */
} plot;

static void plot_series(plot *pl, const double *v, int n, double vmax, int bit, int ascii)
{
    int xres = ascii ? 1 : 2, yres = ascii ? 1 : 4;
    for (int i = 0; i < n && i < pl->w * xres; i++) {
        if (isnan(v[i]))
            continue;
        double f = vmax > 0 ? v[i] / vmax : 0;
        if (f < 0)
            f = 0;
        if (f > 1)
            f = 1;
        int dy = (int)lround(f * (pl->h * yres - 1)); /* dot row from the bottom */
        int cy = pl->h - 1 - dy / yres, cx = i / xres;
        int sub_y = yres - 1 - dy % yres, sub_x = i % xres;
        /* Braille dot bits: column 0 rows 0-2 = 1,2,4 row 3 = 64; column 1 rows 0-2 = 8,16,32 row 3 = 128. */
        static const unsigned char bits[2][4] = {{1, 2, 4, 64}, {8, 16, 32, 128}};
        pl->dots[cy][cx] |= ascii ? 1 : bits[sub_x][sub_y];
        pl->who[cy][cx] |= (unsigned char)bit;
    }
}

static void put_braille(int y, int x, unsigned char d, attr_t a)
{
    wchar_t wc[2] = {(wchar_t)(0x2800 + d), 0};
    cchar_t cc;
    setcchar(&cc, wc, a, 0, NULL);
    mvadd_wch(y, x, &cc);
}

static double series_max(series_kind k, const top_gpu *g)
{
    double v;
    if (k == SER_POWER) {
        if (sample_get(&g->s, M_POWER_ENFORCED_LIMIT, &v) || sample_get(&g->s, M_POWER_LIMIT, &v))
            return v;
        return 1000;
    }
    if (k == SER_TEMP || k == SER_HBM)
        return 110;
    return 100;
}

/* One chart in the box (y, x, h, w): legend line, plot, x axis line. */
static void draw_chart(top_model *m, const top_ui *u, const chart_spec *c, int y, int x, int h, int w)
{
    static plot pl;
    static double va[MAX_W * 2], vb[MAX_W * 2];
    int ascii = u->o->ascii, ylab = 5;
    int pw = w - ylab - 1, ph = h - 2;
    if (pw < 8 || ph < 2)
        return;
    if (pw > MAX_W)
        pw = MAX_W;
    if (ph > 64)
        ph = 64;
    int xres = ascii ? 1 : 2;
    int n = pw * xres;
    double bucket = u->o->interval_s;
    uint64_t now = gw_now_us();
    series_fill(m->hist, c->gpu, c->a, now, bucket, n, va);
    int two = c->b != c->a;
    if (two)
        series_fill(m->hist, c->gpu, c->b, now, bucket, n, vb);
    memset(&pl, 0, sizeof pl);
    pl.w = pw;
    pl.h = ph;
    plot_series(&pl, va, n, c->a_max, 1, ascii);
    if (two)
        plot_series(&pl, vb, n, c->b_max, 2, ascii);

    /* Legend: GPU, then each series in its colour with its latest value; the ranges too when they fit. */
    char legend[2][96], range[2][48];
    for (int s = 0; s < 1 + two; s++) {
        series_kind k = s ? c->b : c->a;
        const double *v = s ? vb : va;
        double last = NAN;
        for (int i = n - 1; i >= 0 && isnan(last); i--)
            last = v[i];
        if (isnan(last))
            snprintf(legend[s], sizeof legend[s], "%s N/A", series_label(k));
        else
            snprintf(legend[s], sizeof legend[s], "%s %.0f%s%s", series_label(k), last,
                     strcmp(series_unit(k), "%") ? " " : "", series_unit(k));
        snprintf(range[s], sizeof range[s], " (0-%.0f)", s ? c->b_max : c->a_max);
    }
    int full =
        6 + fmt_cols(legend[0]) + fmt_cols(range[0]) + 4 + (two ? fmt_cols(legend[1]) + fmt_cols(range[1]) + 4 : 0) <=
        w;
    int lx = x + draw_fmt(y, x, w, theme_attr(TR_TITLE), "GPU %d ", c->gpu);
    for (int s = 0; s < 1 + two; s++) {
        lx += draw_text(y, lx, x + w - lx, theme_attr(s ? TR_SERIES_B : TR_SERIES_A), ascii ? (s ? "+ " : "* ") : "⣿ ");
        lx += draw_text(y, lx, x + w - lx, A_NORMAL, legend[s]);
        if (full)
            lx += draw_text(y, lx, x + w - lx, theme_attr(TR_DIM), range[s]);
        lx += 2;
    }
    /* Y axis: top and bottom labels of the first series. */
    draw_fmt(y + 1, x, ylab, theme_attr(TR_DIM), "%*.0f", ylab - 1, c->a_max);
    draw_fmt(y + ph, x, ylab, theme_attr(TR_DIM), "%*d", ylab - 1, 0);
    for (int r = 0; r < ph; r++) {
        draw_text(y + 1 + r, x + ylab - 1, 1, theme_attr(TR_DIM), ascii ? "|" : "│");
        for (int col = 0; col < pw; col++) {
            unsigned char d = pl.dots[r][col];
            if (!d)
                continue;
            attr_t a = theme_attr(pl.who[r][col] & 1 ? TR_SERIES_A : TR_SERIES_B);
            if (ascii)
                mvaddch(y + 1 + r, x + ylab + col, (chtype)((pl.who[r][col] == 2 ? '+' : '*') | a));
            else
                put_braille(y + 1 + r, x + ylab + col, d, a);
        }
    }
    /* X axis: seconds before now, about every 10 columns. */
    double span = bucket * n;
    int ay = y + h - 1;
    for (int col = 0; col + 6 < pw; col += 12) {
        double secs = span * (1.0 - (double)col / pw);
        draw_fmt(ay, x + ylab + col, 6, theme_attr(TR_DIM), "-%.0fs", secs);
    }
    draw_text(ay, x + ylab + pw - 3, 3, theme_attr(TR_DIM), "now");
}

void draw_charts(top_model *m, const top_ui *u, const top_layout *l, int cols)
{
    if (m->ngpus == 0)
        return;
    if (u->chart == CHART_SELECTED) {
        int gpu = u->sel_gpu < 0 ? 0 : u->sel_gpu;
        const top_gpu *g = &m->gpus[gpu];
        chart_spec left = {gpu, SER_UTIL, SER_MEM_PCT, 100, 100};
        chart_spec right = {gpu, SER_POWER, SER_TEMP, series_max(SER_POWER, g), series_max(SER_TEMP, g)};
        int half = cols / 2;
        draw_chart(m, u, &left, l->chart_y, 0, l->chart_h, half - 1);
        draw_chart(m, u, &right, l->chart_y, half + 1, l->chart_h, cols - half - 1);
        return;
    }
    /* All GPUs: a grid of utilization + memory charts, at least 30 columns and 4 lines each. */
    int per_row = cols / 30;
    if (per_row < 1)
        per_row = 1;
    int grid_rows = (m->ngpus + per_row - 1) / per_row;
    int h = l->chart_h / grid_rows;
    if (h < 4) {
        h = 4;
        grid_rows = l->chart_h / 4;
    }
    if (grid_rows < 1)
        return;
    if (per_row > m->ngpus)
        per_row = m->ngpus;
    int w = cols / per_row;
    for (int i = 0; i < m->ngpus && i / per_row < grid_rows; i++) {
        chart_spec c = {i, SER_UTIL, SER_MEM_PCT, 100, 100};
        draw_chart(m, u, &c, l->chart_y + (i / per_row) * h, (i % per_row) * w, h, w - 1);
    }
}
