/* chart.c - draws time series as a terminal line chart (braille dots or ASCII characters). */
#include "chart.h"
#include "bitio.h"
#include "timeparse.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define YLABEL_W 10 /* "  12345.6 " then the axis */

/* one per series (64: HQ_MAX_GPUS) */
static const char ascii_marks[] = "*+ox#@%&=~^$ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
#define NMARKS ((int)sizeof ascii_marks - 1)
static const int colors[] = {31, 32, 33, 34, 35, 36, 91, 92};

int chart_locale_utf8(void)
{
    const char *vars[] = {"LC_ALL", "LC_CTYPE", "LANG"};
    for (int i = 0; i < 3; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v)
            return strcasestr(v, "utf-8") || strcasestr(v, "utf8");
    }
    return 0;
}

typedef struct canvas {
    int w, h;           /* cells */
    int dw, dh;         /* dots */
    uint8_t *bits;      /* braille bits per cell (utf8) */
    signed char *owner; /* series that last drew in a cell, -1 none */
    int utf8;           /* braille dots */
} canvas;

static void dot(canvas *c, int x, int y, int series)
{
    if (x < 0 || y < 0 || x >= c->dw || y >= c->dh)
        return;
    int cx = c->utf8 ? x / 2 : x, cy = c->utf8 ? y / 4 : y;
    if (c->utf8) {
        static const uint8_t map[4][2] = {{0x01, 0x08}, {0x02, 0x10}, {0x04, 0x20}, {0x40, 0x80}};
        c->bits[cy * c->w + cx] |= map[y % 4][x % 2];
    }
    c->owner[cy * c->w + cx] = (signed char)series;
}

static void line(canvas *c, int x0, int y0, int x1, int y1, int series)
{
    int dx = abs(x1 - x0), dy = -abs(y1 - y0), sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1, err = dx + dy;
    for (int guard = 0; guard < 100000; guard++) {
        dot(c, x0, y0, series);
        if (x0 == x1 && y0 == y1)
            break;
        int e2 = 2 * err;
        if (e2 >= dy) {
            err += dy;
            x0 += sx;
        }
        if (e2 <= dx) {
            err += dx;
            y0 += sy;
        }
    }
}

static void put_str(gw_buf *b, const char *s)
{
    buf_puts(b, s);
}

static void put_cell(gw_buf *b, const canvas *c, int cx, int cy, const chart_opts *o)
{
    int own = c->owner[cy * c->w + cx];
    if (own < 0) {
        hb_put_byte(b, ' ');
        return;
    }
    char esc[16];
    if (o->color) {
        snprintf(esc, sizeof esc, "\033[%dm", colors[own % 8]);
        put_str(b, esc);
    }
    if (c->utf8) {
        unsigned bits = c->bits[cy * c->w + cx];
        uint8_t u[3] = {0xE2, (uint8_t)(0xA0 | (bits >> 6)), (uint8_t)(0x80 | (bits & 0x3F))};
        buf_append(b, (const char *)u, 3);
    } else {
        hb_put_byte(b, (uint8_t)ascii_marks[own % NMARKS]);
    }
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

char *chart_render(const chart_series *s, int ns, const chart_opts *o)
{
    /* within the limits, so that the canvas' cell count cannot overflow */
    int width = o->width <= 0 ? 80 : o->width < CHART_MIN_WIDTH ? CHART_MIN_WIDTH : o->width;
    int height = o->height <= 0 ? 20 : o->height < CHART_MIN_HEIGHT ? CHART_MIN_HEIGHT : o->height;
    width = width > CHART_MAX_WIDTH ? CHART_MAX_WIDTH : width;
    height = height > CHART_MAX_HEIGHT ? CHART_MAX_HEIGHT : height;
    /* Braille dots are all alike: without colour, several series are told apart by characters. */
    int marks = !o->utf8 || (!o->color && ns > 1);
    gw_buf leg = {0};
    int nleg = legend(&leg, s, ns, o, marks, width);
    canvas c = {.w = width - YLABEL_W - 1, .h = height - 3 - nleg, .utf8 = !marks}; /* title, axis, times */
    if (c.h < 2)
        c.h = 2;
    c.dw = c.utf8 ? c.w * 2 : c.w;
    c.dh = c.utf8 ? c.h * 4 : c.h;
    c.bits = calloc((size_t)(c.w * c.h), 1);
    c.owner = malloc((size_t)(c.w * c.h));
    if (!c.bits || !c.owner || leg.oom) {
        free(c.bits);
        free(c.owner);
        buf_release(&leg);
        return NULL;
    }
    memset(c.owner, -1, (size_t)(c.w * c.h));

    double lo = INFINITY, hi = -INFINITY;
    for (int k = 0; k < ns; k++)
        for (size_t i = 0; i < s[k].n; i++) {
            if (s[k].v[i] < lo)
                lo = s[k].v[i];
            if (s[k].v[i] > hi)
                hi = s[k].v[i];
        }
    if (!isfinite(lo) || !isfinite(hi)) {
        lo = 0;
        hi = 1;
    }
    if (o->has_ymin)
        lo = o->ymin;
    if (o->has_ymax)
        hi = o->ymax;
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
    double span_t = (double)(o->to_us > o->from_us ? o->to_us - o->from_us : 1);
    for (int k = 0; k < ns; k++) {
        int px = 0, py = 0, have = 0;
        int64_t pt = 0;
        for (size_t i = 0; i < s[k].n; i++) {
            if (isnan(s[k].v[i])) {
                have = 0;
                continue;
            }
            double fy = (hi - s[k].v[i]) / (hi - lo) * (c.dh - 1);
            if (fy < -c.dh) /* clipped: far enough out for the line's direction */
                fy = -c.dh;
            if (fy > 2.0 * c.dh)
                fy = 2.0 * c.dh;
            int x = (int)llround((double)(s[k].t[i] - o->from_us) / span_t * (c.dw - 1));
            int y = (int)llround(fy);
            if (have && (o->gap_us <= 0 || s[k].t[i] - pt <= o->gap_us))
                line(&c, px, py, x, y, k);
            else
                dot(&c, x, y, k);
            px = x;
            py = y;
            pt = s[k].t[i];
            have = 1;
        }
    }

    gw_buf b = {0};
    char tmp[128];
    snprintf(tmp, sizeof tmp, "%s%s%s%s\n", o->title ? o->title : "", o->unit ? " (" : "", o->unit ? o->unit : "",
             o->unit ? ")" : "");
    put_str(&b, tmp);
    for (int r = 0; r < c.h; r++) {
        char label[32] = "";
        int tick = r == 0 || r == c.h - 1 || r == (c.h - 1) / 2;
        if (tick)
            fmt_value(hi - (hi - lo) * r / (c.h - 1), label, sizeof label);
        snprintf(tmp, sizeof tmp, "%*s ", YLABEL_W - 1, label);
        put_str(&b, tmp);
        put_str(&b, o->utf8 ? (tick ? "┤" : "│") : (tick ? "+" : "|"));
        for (int x = 0; x < c.w; x++)
            put_cell(&b, &c, x, r, o);
        hb_put_byte(&b, '\n');
    }
    snprintf(tmp, sizeof tmp, "%*s", YLABEL_W, "");
    put_str(&b, tmp);
    put_str(&b, o->utf8 ? "└" : "+");
    for (int x = 0; x < c.w; x++)
        put_str(&b, o->utf8 ? "─" : "-");
    hb_put_byte(&b, '\n');
    /* times: left, middle, right */
    char t0[32], t1[32], t2[32];
    int64_t span = o->to_us - o->from_us;
    tp_format_local(o->from_us, span, t0, sizeof t0);
    tp_format_local(o->from_us + span / 2, span, t1, sizeof t1);
    tp_format_local(o->to_us, span, t2, sizeof t2);
    int total = YLABEL_W + 1 + c.w;
    char *row = malloc((size_t)total + 1);
    if (row) {
        memset(row, ' ', (size_t)total);
        row[total] = 0;
        int mid = YLABEL_W + 1 + c.w / 2 - (int)strlen(t1) / 2, right = total - (int)strlen(t2);
        memcpy(row + YLABEL_W + 1, t0, strlen(t0));
        if (mid > YLABEL_W + 1 + (int)strlen(t0))
            memcpy(row + mid, t1, strlen(t1));
        if (right > mid + (int)strlen(t1))
            memcpy(row + right, t2, strlen(t2));
        put_str(&b, row);
        free(row);
    }
    hb_put_byte(&b, '\n');
    buf_append(&b, leg.data, leg.len);
    buf_release(&leg);
    hb_put_byte(&b, 0);
    free(c.bits);
    free(c.owner);
    if (b.oom) {
        buf_release(&b);
        return NULL;
    }
    return b.data;
}
