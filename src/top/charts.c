/* charts.c - charts over the last minutes from the chart history: utilization and memory, power and
 * temperature, for the selected GPU (two charts) or every GPU (a grid of small ones, which says which
 * GPUs it shows when they do not all fit and scrolls to the selected one). The braille plotter's dots
 * (braille.h) with Unicode, '*' and '+' in ASCII; x axis in seconds before now, legends, units. */
#include "top_ui.h"
#include "braille.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

#define MAX_W 512
#define MAX_H 64

typedef struct chart_spec {
    int gpu;
    series_kind a, b;    /* b may equal a for a single series */
    double a_max, b_max; /* y ranges start at 0 */
} chart_spec;

/* One sample a dot column, each value scaled to [0, vmax] from the bottom row of dots. */
static void plot_series(braille *pl, const double *v, int n, double vmax, int series)
{
    for (int i = 0; i < n && i < pl->dw; i++) {
        if (isnan(v[i]))
            continue;
        double f = vmax > 0 ? v[i] / vmax : 0;
        f = f < 0 ? 0 : f > 1 ? 1 : f;
        braille_dot(pl, i, pl->dh - 1 - (int)lround(f * (pl->dh - 1)), series);
    }
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
static void draw_chart(canvas *cv, const top_model *m, const top_ui *u, const chart_spec *c, int y, int x, int h, int w,
                       uint64_t now_us)
{
    static braille pl; /* kept from chart to chart: drawn many times a second, allocated once */
    static double va[MAX_W * 2], vb[MAX_W * 2];
    int ascii = cv->ascii, ylab = 5;
    int pw = w - ylab - 1, ph = h - 2;
    if (pw < 8 || ph < 2)
        return;
    pw = pw > MAX_W ? MAX_W : pw;
    ph = ph > MAX_H ? MAX_H : ph;
    int xres = ascii ? 1 : 2, n = pw * xres;
    double bucket = u->o->interval_s;
    int two = c->b != c->a;
    /* The chart ends at a cell boundary of absolute time: it moves by whole cells, once every xres
     * samples, instead of changing every cell at every sample (half-cell steps). */
    double cell_us = bucket * 1e6 * xres;
    uint64_t end = (uint64_t)((floor((double)now_us / cell_us) + 1) * cell_us);
    series_fill(m->hist, c->gpu, c->a, end, bucket, n, va);
    if (two)
        series_fill(m->hist, c->gpu, c->b, end, bucket, n, vb);
    if (braille_resize(&pl, pw, ph, ascii) != 0)
        return;
    plot_series(&pl, va, n, c->a_max, 0);
    if (two)
        plot_series(&pl, vb, n, c->b_max, 1);

    /* Legend: GPU, then each series in its colour with its latest value; the ranges too when they fit. */
    char legend[2][96], range[2][48];
    int need = 6;
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
        need += fmt_cols(legend[s]) + fmt_cols(range[s]) + 4;
    }
    int lx = x + cv_fmt(cv, y, x, w, TR_TITLE, "GPU %d ", c->gpu);
    for (int s = 0; s < 1 + two; s++) {
        lx += cv_text(cv, y, lx, x + w - lx, s ? TR_SERIES_B : TR_SERIES_A, ascii ? (s ? "+ " : "* ") : "⣿ ");
        lx += cv_text(cv, y, lx, x + w - lx, TR_NORMAL, legend[s]);
        if (need <= w)
            lx += cv_text(cv, y, lx, x + w - lx, TR_DIM, range[s]);
        lx += 2;
    }
    /* Y axis: top and bottom labels of the first series. */
    cv_fmt(cv, y + 1, x, ylab, TR_DIM, "%*.0f", ylab - 1, c->a_max);
    cv_fmt(cv, y + ph, x, ylab, TR_DIM, "%*d", ylab - 1, 0);
    for (int r = 0; r < ph; r++) {
        cv_text(cv, y + 1 + r, x + ylab - 1, 1, TR_DIM, ascii ? "|" : "│");
        for (int col = 0; col < pw; col++) {
            unsigned who = braille_touched(&pl, col, r); /* bit 0 series a, bit 1 series b */
            if (!who)
                continue;
            theme_role role = who & 1 ? TR_SERIES_A : TR_SERIES_B;
            uint32_t ch = ascii ? (who == 2 ? '+' : '*') : braille_char(&pl, col, r);
            cv_fill(cv, y + 1 + r, x + ylab + col, 1, ch, role);
        }
    }
    /* X axis: seconds before now, about every 12 columns. */
    double span = bucket * n;
    int ay = y + h - 1;
    for (int col = 0; col + 6 < pw; col += 12)
        cv_fmt(cv, ay, x + ylab + col, 6, TR_DIM, "-%.0fs", span * (1.0 - (double)col / pw));
    cv_text(cv, ay, x + ylab + pw - 3, 3, TR_DIM, "now");
}

void charts_draw(canvas *cv, const top_model *m, const top_ui *u, const top_layout *l, uint64_t now_us)
{
    int cols = cv->cols;
    if (m->ngpus == 0 || l->chart_h == 0)
        return;
    if (u->chart == CHART_SELECTED) {
        int gpu = u->sel_gpu < 0 || u->sel_gpu >= m->ngpus ? 0 : u->sel_gpu;
        const top_gpu *g = &m->gpus[gpu];
        chart_spec left = {gpu, SER_UTIL, SER_MEM_PCT, 100, 100};
        chart_spec right = {gpu, SER_POWER, SER_TEMP, series_max(SER_POWER, g), series_max(SER_TEMP, g)};
        int half = cols / 2;
        draw_chart(cv, m, u, &left, l->chart_y, 0, l->chart_h, half - 1, now_us);
        draw_chart(cv, m, u, &right, l->chart_y, half + 1, l->chart_h, cols - half - 1, now_us);
        return;
    }
    /* All GPUs: a grid of utilization + memory charts, at least 30 columns and 4 lines each. */
    int per_row = cols / 30 < 1 ? 1 : cols / 30;
    if (per_row > m->ngpus)
        per_row = m->ngpus;
    int need_rows = (m->ngpus + per_row - 1) / per_row;
    int y = l->chart_y, h_all = l->chart_h, grid_rows = need_rows;
    if (h_all / need_rows < 4) {
        /* Not every GPU fits: a title line says which are shown; the grid follows the selection. */
        h_all--;
        y++;
        grid_rows = h_all / 4;
    }
    if (grid_rows < 1)
        return;
    int h = h_all / grid_rows, w = cols / per_row;
    int first = 0, sel = u->sel_gpu < 0 ? 0 : u->sel_gpu;
    if (sel / per_row >= grid_rows)
        first = (sel / per_row - grid_rows + 1) * per_row;
    int last = first + grid_rows * per_row - 1;
    if (last >= m->ngpus)
        last = m->ngpus - 1;
    if (grid_rows < need_rows)
        cv_fmt(cv, l->chart_y, 0, cols, TR_WARN, "charts: GPUs %d-%d of %d (g or 0-9 selects a GPU, the charts follow)",
               first, last, m->ngpus);
    for (int i = first; i <= last; i++) {
        chart_spec c = {i, SER_UTIL, SER_MEM_PCT, 100, 100};
        int k = i - first;
        draw_chart(cv, m, u, &c, y + (k / per_row) * h, (k % per_row) * w, h, w - 1, now_us);
    }
}
