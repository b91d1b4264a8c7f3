/* history_chart.c - draws time series as a terminal line chart (the braille plotter's dots, or ASCII
 * characters), with the y axis, the times and a legend. */
#include "history_chart.h"
#include "braille.h"
#include "buf.h"
#include "text.h"
#include "timeparse.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define YLABEL_W 10 /* "  12345.6 " then the axis */

/* one per series (64: HQ_MAX_GPUS) */
static const char ascii_marks[] = "*+ox#@%&=~^$ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
#define NMARKS ((int)sizeof ascii_marks - 1)
static const int colors[] = {31, 32, 33, 34, 35, 36, 91, 92};

static void put_str(gw_buf *b, const char *s)
{
    buf_puts(b, s);
}

static void put_cell(gw_buf *b, const braille *c, int cx, int cy, const chart_opts *o)
{
    int own = braille_owner(c, cx, cy);
    if (own < 0) {
        buf_append(b, " ", 1);
        return;
    }
    char esc[16], u[4];
    if (o->color) {
        snprintf(esc, sizeof esc, "\033[%dm", colors[own % 8]);
        put_str(b, esc);
    }
    if (!c->ascii)
        buf_append(b, u, gw_utf8_put(braille_char(c, cx, cy), u));
    else
        buf_append(b, &ascii_marks[own % NMARKS], 1);
    if (o->color)
        put_str(b, "\033[0m");
}

static void fmt_value(double v, char *out, size_t n)
{
    if (fabs(v) >= 1e6 || (v != 0 && fabs(v) < 1e-2))
        snprintf(out, n, "%.3g", v);
    else if (fabs(v - round(v)) < 1e-9)
        snprintf(out, n, "%.0f", v);
    else
        snprintf(out, n, "%.1f", v);
}

/* The legend's lines: " M label" per series, wrapped to width. */
static int legend(gw_buf *b, const chart_series *s, int ns, const chart_opts *o, int marks, int width)
{
    int lines = 1, col = YLABEL_W;
    char tmp[32];
    snprintf(tmp, sizeof tmp, "%*s", YLABEL_W, "");
    buf_puts(b, tmp);
    for (int k = 0; k < ns; k++) {
        const char *label = s[k].label ? s[k].label : "";
        int w = 3 + (int)strlen(label);
        if (k && col + w > width) {
            buf_puts(b, "\n");
            buf_puts(b, tmp);
            col = YLABEL_W;
            lines++;
        }
        col += w;
        if (o->color) {
            char esc[16];
            snprintf(esc, sizeof esc, "\033[%dm", colors[k % 8]);
            buf_puts(b, esc);
        }
        if (marks) {
            char m[4] = {' ', ascii_marks[k % NMARKS], ' ', 0};
            buf_puts(b, m);
        } else {
            buf_puts(b, " ⣿ ");
        }
        if (o->color)
            buf_puts(b, "\033[0m");
        buf_puts(b, label);
    }
    buf_puts(b, "\n");
    return lines;
}

/* The y range: the data's, or the options' bounds, never empty. */
static void y_range(const chart_series *s, int ns, const chart_opts *o, double *plo, double *phi)
{
    double lo = INFINITY, hi = -INFINITY;
    for (int k = 0; k < ns; k++)
        for (size_t i = 0; i < s[k].n; i++) {
            lo = s[k].v[i] < lo ? s[k].v[i] : lo;
            hi = s[k].v[i] > hi ? s[k].v[i] : hi;
        }
    if (!isfinite(lo) || !isfinite(hi)) {
        lo = 0;
        hi = 1;
    }
    lo = o->has_ymin ? o->ymin : lo;
    hi = o->has_ymax ? o->ymax : hi;
    if (hi - lo < 1e-12) {
        if (o->has_ymin && !o->has_ymax)
            hi = lo + 1;
        else if (o->has_ymax && !o->has_ymin)
            lo = hi - 1;
        else {
            lo -= 1;
            hi += 1;
        }
    }
    *plo = lo;
    *phi = hi;
}

/* Series k's points as dots, joined by lines where they are no further apart than o->gap_us. */
static void plot_series(braille *c, const chart_series *sk, int k, const chart_opts *o, double lo, double hi)
{
    double span_t = (double)(o->to_us > o->from_us ? o->to_us - o->from_us : 1);
    int px = 0, py = 0, have = 0;
    int64_t pt = 0;
    for (size_t i = 0; i < sk->n; i++) {
        if (isnan(sk->v[i])) {
            have = 0;
            continue;
        }
        double fy = (hi - sk->v[i]) / (hi - lo) * (c->dh - 1);
        if (fy < -c->dh) /* clipped: far enough out for the line's direction */
            fy = -c->dh;
        if (fy > 2.0 * c->dh)
            fy = 2.0 * c->dh;
        int x = (int)llround((double)(sk->t[i] - o->from_us) / span_t * (c->dw - 1));
        int y = (int)llround(fy);
        if (have && (o->gap_us <= 0 || sk->t[i] - pt <= o->gap_us))
            braille_line(c, px, py, x, y, k);
        else
            braille_dot(c, x, y, k);
        px = x;
        py = y;
        pt = sk->t[i];
        have = 1;
    }
}

/* The title, the plot's rows with the y axis and its labels, and the x axis line. */
static void put_plot(gw_buf *b, const braille *c, const chart_opts *o, double lo, double hi)
{
    char tmp[128];
    snprintf(tmp, sizeof tmp, "%s%s%s%s\n", o->title ? o->title : "", o->unit ? " (" : "", o->unit ? o->unit : "",
             o->unit ? ")" : "");
    put_str(b, tmp);
    for (int r = 0; r < c->h; r++) {
        char label[32] = "";
        int tick = r == 0 || r == c->h - 1 || r == (c->h - 1) / 2;
        if (tick)
            fmt_value(hi - (hi - lo) * r / (c->h - 1), label, sizeof label);
        snprintf(tmp, sizeof tmp, "%*s ", YLABEL_W - 1, label);
        put_str(b, tmp);
        put_str(b, o->utf8 ? (tick ? "┤" : "│") : (tick ? "+" : "|"));
        for (int x = 0; x < c->w; x++)
            put_cell(b, c, x, r, o);
        buf_append(b, "\n", 1);
    }
    snprintf(tmp, sizeof tmp, "%*s", YLABEL_W, "");
    put_str(b, tmp);
    put_str(b, o->utf8 ? "└" : "+");
    for (int x = 0; x < c->w; x++)
        put_str(b, o->utf8 ? "─" : "-");
    buf_append(b, "\n", 1);
}

/* The times under the x axis: left, middle, right, where they fit. */
static void put_times(gw_buf *b, int plot_w, const chart_opts *o)
{
    char t0[32], t1[32], t2[32];
    int64_t span = o->to_us - o->from_us;
    tp_format_local(o->from_us, span, t0, sizeof t0);
    tp_format_local(o->from_us + span / 2, span, t1, sizeof t1);
    tp_format_local(o->to_us, span, t2, sizeof t2);
    int total = YLABEL_W + 1 + plot_w;
    char *row = malloc((size_t)total + 1);
    if (row) {
        memset(row, ' ', (size_t)total);
        row[total] = 0;
        int mid = YLABEL_W + 1 + plot_w / 2 - (int)strlen(t1) / 2, right = total - (int)strlen(t2);
        memcpy(row + YLABEL_W + 1, t0, strlen(t0));
        if (mid > YLABEL_W + 1 + (int)strlen(t0))
            memcpy(row + mid, t1, strlen(t1));
        if (right > mid + (int)strlen(t1))
            memcpy(row + right, t2, strlen(t2));
        put_str(b, row);
        free(row);
    }
    buf_append(b, "\n", 1);
}

char *chart_render(const chart_series *s, int ns, const chart_opts *o)
{
    /* within the limits, so that the plot's cell count cannot overflow */
    int width = o->width <= 0 ? 80 : o->width < CHART_MIN_WIDTH ? CHART_MIN_WIDTH : o->width;
    int height = o->height <= 0 ? 20 : o->height < CHART_MIN_HEIGHT ? CHART_MIN_HEIGHT : o->height;
    width = width > CHART_MAX_WIDTH ? CHART_MAX_WIDTH : width;
    height = height > CHART_MAX_HEIGHT ? CHART_MAX_HEIGHT : height;
    /* Braille dots are all alike: without colour, several series are told apart by characters. */
    int marks = !o->utf8 || (!o->color && ns > 1);
    gw_buf leg = {0}, b = {0};
    int nleg = legend(&leg, s, ns, o, marks, width);
    braille c = {0};
    int plot_h = height - 3 - nleg; /* title, axis, times */
    if (braille_resize(&c, width - YLABEL_W - 1, plot_h < 2 ? 2 : plot_h, marks) != 0 || leg.oom) {
        braille_free(&c);
        buf_release(&leg);
        return NULL;
    }
    double lo, hi;
    y_range(s, ns, o, &lo, &hi);
    for (int k = 0; k < ns; k++)
        plot_series(&c, &s[k], k, o, lo, hi);
    put_plot(&b, &c, o, lo, hi);
    put_times(&b, c.w, o);
    buf_append(&b, leg.data, leg.len);
    buf_append(&b, "", 1); /* the NUL */
    buf_release(&leg);
    braille_free(&c);
    if (b.oom) {
        buf_release(&b);
        return NULL;
    }
    return b.data;
}
