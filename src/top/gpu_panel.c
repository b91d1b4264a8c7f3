/* gpu_panel.c - the GPU part of the screen: full panels (bars and every figure) or one
 * compact line per GPU with sparklines of utilization and memory. */
#include "top_draw.h"
#include "top_series.h"
#include "util.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

/* The product name without the vendor prefix, for narrow columns. */
static const char *short_name(const char *name)
{
    return strncmp(name, "NVIDIA ", 7) == 0 ? name + 7 : name;
}

/* Draws "text" then two spaces at (y, *x) if it fits before maxx. */
static void put(int y, int *x, int maxx, attr_t a, const char *text)
{
    if (*x >= maxx)
        return;
    *x += draw_text(y, *x, maxx - *x, a, text);
    *x += 2;
}

/* "LABEL [bar] value" with the bar taking `cells` columns. */
static void put_bar(int y, int *x, int maxx, const char *label, double frac, int has, int cells, attr_t bar_attr,
                    const char *value, int value_cols, int ascii)
{
    char bar[256];
    *x += draw_text(y, *x, maxx - *x, theme_attr(TR_TITLE), label);
    *x += draw_text(y, *x, maxx - *x, A_NORMAL, ascii ? " [" : " ▕");
    fmt_bar(bar, sizeof bar, has ? frac : 0, cells, ascii);
    *x += draw_text(y, *x, maxx - *x, bar_attr, bar);
    *x += draw_text(y, *x, maxx - *x, A_NORMAL, ascii ? "] " : "▏ ");
    char padded[64];
    put(y, x, maxx, A_NORMAL, fmt_pad(padded, sizeof padded, value, value_cols, 0));
}

static void draw_full(const top_gpu *g, const gpu_text *t, int y, int lines, int cols, int selected, int ascii)
{
    int stale = !strcmp(t->state, "STALE");
    attr_t val = stale ? theme_attr(TR_DIM) : A_NORMAL;
    char buf[256];
    /* " 3 name" in a fixed width, so the bars of every GPU line up. */
    int name_w = lines == 2 ? 24 : 28;
    draw_fmt(y, 0, 2, selected ? theme_attr(TR_SELECTED) : theme_attr(TR_TITLE), "%2d", g->info.index);
    draw_text(y, 3, name_w, theme_attr(TR_TITLE), short_name(t->name));
    int x = 3 + name_w + 1;
    if (t->state[0]) {
        draw_text(y, cols - 7, 6, t->state[0] == 'L' ? theme_attr(TR_CRIT) : theme_attr(TR_WARN), t->state);
        cols -= 8;
    }
    int y2 = y + 1, y3 = lines == 3 ? y + 2 : y + 1;
    int bar_cells;
    if (lines == 2) {
        /* Line 1: name, util bar, memory bar, power. Room left after the labels and values: "GPU ▕▏ 100%", "MEM ▕▏ 59.6 GiB/79.6 GiB", power, state. */
        bar_cells = (cols - x - 12 - 26 - 11 - 8) / 2;
        if (bar_cells < 6)
            bar_cells = 6;
        if (bar_cells > 40)
            bar_cells = 40;
        put_bar(y, &x, cols, "GPU", t->util_frac, t->has_util, bar_cells, theme_attr(TR_BAR_UTIL), t->util, 4, ascii);
        put_bar(y, &x, cols, "MEM", t->mem_frac, t->has_mem, bar_cells, theme_attr(TR_BAR_MEM), t->mem, 17, ascii);
        put(y, &x, cols, val | theme_level(t->power_lvl), t->power);
        x = 4;
    } else {
        /* Line 1: name, bus id, pstate, power; line 2: the bars. */
        put(y, &x, cols, theme_attr(TR_DIM), t->bus);
        put(y, &x, cols, val, t->pstate);
        put(y, &x, cols, val | theme_level(t->power_lvl), t->power);
        x = 4;
        bar_cells = (cols - 4 - 12 - 26) / 2;
        if (bar_cells < 6)
            bar_cells = 6;
        if (bar_cells > 40)
            bar_cells = 40;
        put_bar(y2, &x, cols, "GPU", t->util_frac, t->has_util, bar_cells, theme_attr(TR_BAR_UTIL), t->util, 4, ascii);
        put_bar(y2, &x, cols, "MEM", t->mem_frac, t->has_mem, bar_cells, theme_attr(TR_BAR_MEM), t->mem, 17, ascii);
        x = 4;
    }
    /* The figures line: temperatures and what needs attention first, then clocks and links. */
    x += draw_text(y3, x, cols - x, theme_attr(TR_TITLE), "TEMP ");
    put(y3, &x, cols, val | theme_level(t->temp_lvl), t->temp);
    x += draw_text(y3, x, cols - x, theme_attr(TR_TITLE), "HBM ");
    put(y3, &x, cols, val | theme_level(t->hbm_lvl), t->hbm);
    if (t->marks[0])
        put(y3, &x, cols, theme_level(t->marks_lvl), t->marks);
    if (t->throttle[0]) {
        snprintf(buf, sizeof buf, "throttle: %s", t->throttle);
        put(y3, &x, cols, theme_attr(TR_WARN), buf);
    }
    snprintf(buf, sizeof buf, "SM %s", t->sm_clk);
    put(y3, &x, cols, val, buf);
    snprintf(buf, sizeof buf, "MEM %s", t->mem_clk);
    put(y3, &x, cols, val, buf);
    snprintf(buf, sizeof buf, "FAN %s", t->fan);
    put(y3, &x, cols, val, buf);
    snprintf(buf, sizeof buf, "PCIe %s", t->pcie);
    put(y3, &x, cols, val, buf);
    if (lines == 2)
        put(y3, &x, cols, val, t->pstate);
}

static void draw_compact_header(int y, int cols, int spark)
{
    char buf[256];
    snprintf(buf, sizeof buf, "GPU %-14s %-*s %-*s %6s %5s %5s  %s", "NAME", spark + 5, "UTIL", spark + 5, "MEM",
             "POWER", "TEMP", "HBM", "STATE");
    draw_text(y, 0, cols, theme_attr(TR_HEADER), buf);
    for (int x = fmt_cols(buf); x < cols; x++)
        mvaddch(y, x, ' ' | theme_attr(TR_HEADER));
}

static void draw_compact(top_model *m, const top_gpu *g, const gpu_text *t, int y, int cols, int spark, int selected,
                         const top_ui *u)
{
    char buf[512], line[256];
    double vals[64];
    int x = 0, ascii = u->o->ascii;
    attr_t val = !strcmp(t->state, "STALE") ? theme_attr(TR_DIM) : A_NORMAL;
    snprintf(buf, sizeof buf, "%2d", g->info.index);
    x += draw_text(y, x, cols, selected ? theme_attr(TR_SELECTED) : theme_attr(TR_TITLE), buf);
    x += 2;
    draw_text(y, x, 14, theme_attr(TR_TITLE), short_name(t->name));
    x += 15;
    uint64_t now = gw_now_us();
    series_kind kinds[2] = {SER_UTIL, SER_MEM_PCT};
    const char *pct[2] = {t->util, "N/A"};
    char mem_pct[16];
    if (t->has_mem) {
        snprintf(mem_pct, sizeof mem_pct, "%.0f%%", 100 * t->mem_frac);
        pct[1] = mem_pct;
    }
    for (int k = 0; k < 2; k++) {
        series_fill(m->hist, g->info.index, kinds[k], now, u->o->interval_s, spark, vals);
        fmt_sparkline(line, sizeof line, vals, spark, 0, 100, ascii);
        draw_text(y, x, spark, theme_attr(k ? TR_BAR_MEM : TR_BAR_UTIL), line);
        draw_fmt(y, x + spark, 5, val, "%5s", pct[k]);
        x += spark + 6;
    }
    char pw[16] = "N/A";
    double p;
    if (sample_get(&g->s, M_POWER_DRAW, &p))
        snprintf(pw, sizeof pw, "%.0fW", p);
    draw_fmt(y, x, 6, val | theme_level(t->power_lvl), "%6s", pw);
    x += 7;
    draw_fmt(y, x, 5, val | theme_level(t->temp_lvl), "%5s", t->temp);
    x += 6;
    draw_fmt(y, x, 5, val | theme_level(t->hbm_lvl), "%5s", t->hbm);
    x += 7;
    if (t->state[0])
        put(y, &x, cols, t->state[0] == 'L' ? theme_attr(TR_CRIT) : theme_attr(TR_WARN), t->state);
    if (t->marks[0])
        put(y, &x, cols, theme_level(t->marks_lvl), t->marks);
    if (t->throttle[0])
        put(y, &x, cols, theme_attr(TR_WARN), t->throttle);
}

void draw_gpus(const top_model *cm, const top_ui *u, const top_layout *l, int cols)
{
    top_model *m = (top_model *)cm; /* the ring is read under its own lock */
    uint64_t now = gw_mono_us();
    int y = l->gpu_y;
    int spark = (cols - 80) / 2 + 8;
    if (spark < 4)
        spark = 4;
    if (spark > 60)
        spark = 60;
    if (l->compact && l->gpu_shown > 0)
        draw_compact_header(y++, cols, spark);
    for (int i = l->gpu_first; i < m->ngpus && i < l->gpu_first + l->gpu_shown; i++) {
        const top_gpu *g = &m->gpus[i];
        gpu_text t;
        gpu_text_make(g, &u->o->th, top_gpu_stale(g, now, u->o->interval_s), u->o->ascii, &t);
        int selected = u->sel_gpu == i;
        if (l->compact) {
            draw_compact(m, g, &t, y, cols, spark, selected, u);
            y++;
        } else {
            draw_full(g, &t, y, l->gpu_lines, cols, selected, u->o->ascii);
            y += l->gpu_lines;
        }
    }
}
