/* gpus.c - the GPUs on screen: each GPU's fields as texts and levels (shared with the snapshot), full
 * panels (bars, then the figures: temperatures, marks, clocks, throttle reasons, tensor and NVLink
 * activity, PCIe, fan; then a line with the findings about the GPU, if any) or one compact line per
 * GPU with sparklines. In a full panel the throttle reasons wrap onto a second figures line rather
 * than pushing the clocks off the screen. */
#include "top_ui.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- texts ---- */

static int get(const gpu_sample *s, metric_id id, double *v)
{
    return sample_get(s, id, v);
}

/* MiB/s (GPM's unit) as KB/s for fmt_kbs. */
static char *fmt_mibs(char *out, size_t n, double mibs)
{
    return fmt_kbs(out, n, mibs * 1048.576);
}

static void marks_make(const gpu_sample *s, gpu_text *t)
{
    /* ECC / row remap / XID marks: anything worth a look, worst first. */
    double a;
    size_t pos = 0;
    if (get(s, M_ECC_DBE_VOL, &a) && a > 0) {
        pos += (size_t)snprintf(t->marks + pos, sizeof t->marks - pos, "ECC DBE %.0f ", a);
        t->marks_lvl = LVL_CRIT;
    }
    if (get(s, M_REMAP_FAILURE, &a) && a > 0 && pos < sizeof t->marks) {
        pos += (size_t)snprintf(t->marks + pos, sizeof t->marks - pos, "REMAP FAILED ");
        t->marks_lvl = LVL_CRIT;
    }
    if (get(s, M_XID_LAST, &a) && a > 0 && pos < sizeof t->marks) {
        pos += (size_t)snprintf(t->marks + pos, sizeof t->marks - pos, "XID %.0f ", a);
        t->marks_lvl = LVL_CRIT;
    }
    if (get(s, M_ECC_SBE_VOL, &a) && a > 0 && pos < sizeof t->marks) {
        pos += (size_t)snprintf(t->marks + pos, sizeof t->marks - pos, "ECC SBE %.0f ", a);
        if (t->marks_lvl < LVL_WARN)
            t->marks_lvl = LVL_WARN;
    }
    if (get(s, M_REMAP_PENDING, &a) && a > 0 && pos < sizeof t->marks) {
        pos += (size_t)snprintf(t->marks + pos, sizeof t->marks - pos, "REMAP PENDING ");
        if (t->marks_lvl < LVL_WARN)
            t->marks_lvl = LVL_WARN;
    }
    if (pos > 0 && pos < sizeof t->marks)
        t->marks[pos - 1] = 0;
}

/* "N/A", or the value with no decimals and a suffix. */
static void num0(char *out, size_t n, const gpu_sample *s, metric_id id, const char *suffix)
{
    double v;
    if (get(s, id, &v))
        fmt_fixed(out, n, v, 0, suffix);
    else
        fmt_join(out, n, "N/A", NULL);
}

/* A GPU's MIG devices on one line, as nvidia-smi's "MIG devices" table has them: profile, GPU
 * instance id, memory used of its own ("" with MIG mode off). */
static void mig_text(const top_gpu *g, int ascii, char *out, size_t n)
{
    out[0] = 0;
    for (int k = 0; k < g->nmig; k++) {
        const gpu_mig *m = &g->mig[k];
        char gi[16], used[32] = "N/A", total[32] = "N/A";
        snprintf(gi, sizeof gi, " GI %u ", m->gi);
        if (m->has_mem) {
            fmt_mib(used, sizeof used, m->mem_used_mib);
            fmt_mib(total, sizeof total, m->mem_total_mib);
        }
        size_t len = strlen(out);
        fmt_join(out + len, n - len, k ? (ascii ? " | " : " · ") : "MIG ", m->profile[0] ? m->profile : "?", gi, used,
                 "/", total, NULL);
    }
}

void gpu_text_make(const top_gpu *g, const top_thresholds *th, int stale, int ascii, gpu_text *t)
{
    const gpu_sample *s = &g->s;
    const char *deg = ascii ? "C" : "°C";
    char x[32], y[32];
    double a, b;
    memset(t, 0, sizeof *t);
    fmt_join(t->name, sizeof t->name, g->info.str[M_NAME][0] ? g->info.str[M_NAME] : "(unknown GPU)", NULL);
    fmt_join(t->bus, sizeof t->bus, g->info.str[M_PCI_BUS_ID], NULL);
    fmt_join(t->state, sizeof t->state, g->lost ? "LOST" : stale ? "STALE" : !g->have_sample ? "WAIT" : "", NULL);
    if (get(s, M_PSTATE, &a))
        fmt_join(t->pstate, sizeof t->pstate, "P", fmt_fixed(x, sizeof x, a, 0, ""), NULL);

    num0(t->util, sizeof t->util, s, M_UTIL_GPU, "%");
    if (get(s, M_UTIL_GPU, &a)) {
        t->has_util = 1;
        t->util_frac = a / 100.0;
    }
    fmt_join(t->mem, sizeof t->mem, "N/A", NULL);
    if (get(s, M_MEM_USED, &a) && get(s, M_MEM_TOTAL, &b) && b > 0) {
        t->has_mem = 1;
        t->mem_frac = a / b;
        fmt_join(t->mem, sizeof t->mem, fmt_mib(x, sizeof x, a), "/", fmt_mib(y, sizeof y, b), NULL);
    }
    fmt_join(t->power, sizeof t->power, "N/A", NULL);
    if (get(s, M_POWER_DRAW, &a)) {
        if ((get(s, M_POWER_ENFORCED_LIMIT, &b) || get(s, M_POWER_LIMIT, &b)) && b > 0) {
            fmt_join(t->power, sizeof t->power, fmt_fixed(x, sizeof x, a, 0, "/"), fmt_fixed(y, sizeof y, b, 0, " W"),
                     NULL);
            t->power_lvl = fmt_level(a / b, 0.95, 1.5);
        } else {
            fmt_fixed(t->power, sizeof t->power, a, 0, " W");
        }
    }
    num0(t->temp, sizeof t->temp, s, M_TEMP_GPU, deg);
    if (get(s, M_TEMP_GPU, &a))
        t->temp_lvl = fmt_level(a, th->temp_warn, th->temp_crit);
    num0(t->hbm, sizeof t->hbm, s, M_TEMP_MEMORY, deg);
    if (get(s, M_TEMP_MEMORY, &a))
        t->hbm_lvl = fmt_level(a, th->hbm_warn, th->hbm_crit);
    num0(t->sm_clk, sizeof t->sm_clk, s, M_CLOCK_SM, " MHz");
    num0(t->mem_clk, sizeof t->mem_clk, s, M_CLOCK_MEM, " MHz");
    num0(t->fan, sizeof t->fan, s, M_FAN_SPEED, "%");

    fmt_join(x, sizeof x, "N/A", NULL);
    fmt_join(y, sizeof y, "N/A", NULL);
    if (get(s, M_PCIE_RX, &a))
        fmt_kbs(x, sizeof x, a);
    if (get(s, M_PCIE_TX, &a))
        fmt_kbs(y, sizeof y, a);
    fmt_join(t->pcie, sizeof t->pcie, "rx ", x, " tx ", y, NULL);

    /* GPM (Hopper and later): shown only where the GPU reports it, never as 0 otherwise. */
    if (get(s, M_GPM_TENSOR_ACTIVE, &a))
        fmt_fixed(t->tensor, sizeof t->tensor, a, 0, "%");
    int has_rx = get(s, M_GPM_NVLINK_RX, &a), has_tx = get(s, M_GPM_NVLINK_TX, &b);
    if (has_rx || has_tx) {
        fmt_join(x, sizeof x, "N/A", NULL);
        fmt_join(y, sizeof y, "N/A", NULL);
        if (has_rx)
            fmt_mibs(x, sizeof x, a);
        if (has_tx)
            fmt_mibs(y, sizeof y, b);
        fmt_join(t->nvlink, sizeof t->nvlink, "rx ", x, " tx ", y, NULL);
    }

    if (get(s, M_CER_ACTIVE, &a) && a >= 0)
        fmt_throttle_words((uint64_t)llround(a), 0, t->throttle, sizeof t->throttle);
    marks_make(s, t);
    mig_text(g, ascii, t->mig, sizeof t->mig);
}

/* ---- full panels ---- */

/* The product name without the vendor prefix, for narrow columns. */
static const char *short_name(const char *name)
{
    return strncmp(name, "NVIDIA ", 7) == 0 ? name + 7 : name;
}

/* One figure: a bold label and a value. wrap: may start the next line when it does not fit; join:
 * continues the previous figure after one space (the words of a list) instead of two. */
typedef struct figure {
    const char *label, *value;
    theme_role value_role;
    int wrap, join;
} figure;

/* Lays the figures out from column 4 of line y onwards, on at most maxlines lines; draws them when
 * cv is set. A figure that does not fit is left out, unless it may wrap and a line is left. Returns
 * the lines used. */
static int flow(canvas *cv, const figure *f, int n, int y, int cols, int maxlines)
{
    int x = 4, line = 0;
    for (int i = 0; i < n; i++) {
        int w = fmt_cols(f[i].label) + fmt_cols(f[i].value);
        if (f[i].join && x > 4)
            x--;
        if (x + w > cols) {
            if (!f[i].wrap || line + 1 >= maxlines)
                continue;
            line++;
            x = 4;
        }
        if (cv) {
            int lx = cv_text(cv, y + line, x, cols - x, TR_TITLE, f[i].label);
            cv_text(cv, y + line, x + lx, cols - x - lx, f[i].value_role, f[i].value);
        }
        x += w + 2;
    }
    return line + 1;
}

/* The figures in the order they matter during an incident; returns how many. */
static int figures(const gpu_text *t, int stale, int lines, char words[][48], figure *f)
{
    theme_role val = stale ? TR_DIM : TR_NORMAL;
    int n = 0;
    f[n++] = (figure){"TEMP ", t->temp, stale ? TR_DIM : role_of_level(t->temp_lvl), 0, 0};
    f[n++] = (figure){"HBM ", t->hbm, stale ? TR_DIM : role_of_level(t->hbm_lvl), 0, 0};
    if (t->marks[0])
        f[n++] = (figure){"", t->marks, role_of_level(t->marks_lvl), 0, 0};
    f[n++] = (figure){"SM ", t->sm_clk, val, 0, 0};
    f[n++] = (figure){"MEM ", t->mem_clk, val, 0, 0};
    /* Throttle reasons one by one, so that they wrap between words. */
    const char *p = t->throttle;
    for (int k = 0; *p && k < 8; k++) {
        const char *comma = strstr(p, ", ");
        size_t len = comma ? (size_t)(comma - p) + 1 : strlen(p);
        snprintf(words[k], 48, "%.*s", (int)len, p);
        f[n++] = (figure){k == 0 ? "throttle: " : "", words[k], TR_WARN, 1, k > 0};
        p = comma ? comma + 2 : p + len;
    }
    if (t->tensor[0])
        f[n++] = (figure){"TENSOR ", t->tensor, val, 0, 0};
    if (t->nvlink[0])
        f[n++] = (figure){"NVLINK ", t->nvlink, val, 0, 0};
    f[n++] = (figure){"PCIe ", t->pcie, val, 0, 0};
    f[n++] = (figure){"FAN ", t->fan, val, 0, 0};
    if (lines == 2 && t->pstate[0])
        f[n++] = (figure){"", t->pstate, val, 0, 0};
    return n;
}

int gpu_figure_lines(const gpu_text *t, int cols, int lines)
{
    char words[8][48];
    figure f[24];
    int n = figures(t, 0, lines, words, f);
    return flow(NULL, f, n, 0, cols - (t->state[0] ? 8 : 0), 2);
}

/* "LABEL ▕bar▏ value" with the bar taking `cells` columns; returns the next x. */
static int put_bar(canvas *cv, int y, int x, int cols, const char *label, double frac, int has, int cells,
                   theme_role bar_role, const char *value, int value_cols)
{
    char bar[256];
    int ascii = cv->ascii;
    x += cv_text(cv, y, x, cols - x, TR_TITLE, label);
    x += cv_text(cv, y, x, cols - x, TR_NORMAL, ascii ? " [" : " ▕");
    x += cv_text(cv, y, x, cols - x, bar_role, fmt_bar(bar, sizeof bar, has ? frac : 0, cells, ascii));
    x += cv_text(cv, y, x, cols - x, TR_NORMAL, ascii ? "] " : "▏ ");
    cv_text(cv, y, x, cols - x, TR_NORMAL, value);
    return x + value_cols + 2;
}

static int clamp_cells(int c)
{
    return c < 6 ? 6 : c > 40 ? 40 : c;
}

static void draw_full(canvas *cv, const top_gpu *g, const gpu_text *t, int y, int lines, int fig_lines, int cols,
                      int selected)
{
    int stale = !strcmp(t->state, "STALE");
    theme_role val = stale ? TR_DIM : TR_NORMAL;
    /* " 3 name" in a fixed width, so the bars of every GPU line up. */
    int name_w = lines == 2 ? 24 : 28;
    cv_fmt(cv, y, 0, 2, selected ? TR_SELECTED : TR_TITLE, "%2d", g->info.index);
    cv_text(cv, y, 3, name_w, TR_TITLE, short_name(t->name));
    int x = 3 + name_w + 1;
    if (t->state[0]) {
        cv_text(cv, y, cols - 7, 6, t->state[0] == 'L' ? TR_CRIT : TR_WARN, t->state);
        cols -= 8;
    }
    int bars_y = lines == 3 ? y + 1 : y;
    if (lines == 3) {
        x += cv_text(cv, y, x, cols - x, TR_DIM, t->bus) + 2;
        x += cv_text(cv, y, x, cols - x, val, t->pstate) + 2;
        cv_text(cv, y, x, cols - x, stale ? TR_DIM : role_of_level(t->power_lvl), t->power);
        x = 4;
    }
    /* The bars share what the labels and values leave: "GPU ▕▏ 100%", "MEM ▕▏ 59.6 GiB/79.6 GiB",
     * and on the two-line layout the power and the state too. */
    int cells = clamp_cells(lines == 2 ? (cols - x - 12 - 26 - 11 - 8) / 2 : (cols - 4 - 12 - 26) / 2);
    x = put_bar(cv, bars_y, x, cols, "GPU", t->util_frac, t->has_util, cells, TR_BAR_UTIL, t->util, 4);
    x = put_bar(cv, bars_y, x, cols, "MEM", t->mem_frac, t->has_mem, cells, TR_BAR_MEM, t->mem, 17);
    if (lines == 2)
        cv_text(cv, y, x, cols - x, stale ? TR_DIM : role_of_level(t->power_lvl), t->power);
    char words[8][48];
    figure f[24];
    int n = figures(t, stale, lines, words, f);
    flow(cv, f, n, y + lines - 1, cols, fig_lines);
}

/* ---- compact lines ---- */

static void draw_compact_header(canvas *cv, int y, int cols, int spark)
{
    char buf[256];
    cv_fill(cv, y, 0, cols, ' ', TR_HEADER);
    snprintf(buf, sizeof buf, "GPU %-14s %-*s %-*s %6s %5s %5s  %s", "NAME", spark + 5, "UTIL", spark + 5, "MEM",
             "POWER", "TEMP", "HBM", "STATE");
    cv_text(cv, y, 0, cols, TR_HEADER, buf);
}

static void draw_compact(canvas *cv, const top_model *m, const top_gpu *g, const gpu_text *t, int y, int cols,
                         int spark, int selected, const top_ui *u, uint64_t now_us)
{
    char line[512];
    double vals[64];
    int stale = !strcmp(t->state, "STALE");
    theme_role val = stale ? TR_DIM : TR_NORMAL;
    int x = cv_fmt(cv, y, 0, cols, selected ? TR_SELECTED : TR_TITLE, "%2d", g->info.index) + 2;
    cv_text(cv, y, x, 14, TR_TITLE, short_name(t->name));
    x += 15;
    series_kind kinds[2] = {SER_UTIL, SER_MEM_PCT};
    char mem_pct[16] = "N/A";
    if (t->has_mem)
        snprintf(mem_pct, sizeof mem_pct, "%.0f%%", 100 * t->mem_frac);
    const char *pct[2] = {t->util, mem_pct};
    for (int k = 0; k < 2; k++) {
        series_fill(m->hist, g->info.index, kinds[k], now_us, u->o->interval_s, spark, vals);
        cv_text(cv, y, x, spark, k ? TR_BAR_MEM : TR_BAR_UTIL,
                fmt_sparkline(line, sizeof line, vals, spark, 0, 100, cv->ascii));
        cv_fmt(cv, y, x + spark, 5, val, "%5s", pct[k]);
        x += spark + 6;
    }
    char pw[16] = "N/A";
    double p;
    if (sample_get(&g->s, M_POWER_DRAW, &p))
        snprintf(pw, sizeof pw, "%.0fW", p);
    cv_fmt(cv, y, x, 6, stale ? TR_DIM : role_of_level(t->power_lvl), "%6s", pw);
    x += 7;
    cv_fmt(cv, y, x, 5, stale ? TR_DIM : role_of_level(t->temp_lvl), "%5s", t->temp);
    x += 6;
    cv_fmt(cv, y, x, 5, stale ? TR_DIM : role_of_level(t->hbm_lvl), "%5s", t->hbm);
    x += 7;
    if (t->state[0])
        x += cv_text(cv, y, x, cols - x, t->state[0] == 'L' ? TR_CRIT : TR_WARN, t->state) + 2;
    if (t->marks[0])
        x += cv_text(cv, y, x, cols - x, role_of_level(t->marks_lvl), t->marks) + 2;
    if (t->finding[0])
        x += cv_text(cv, y, x, cols - x, role_of_level(t->finding_lvl), t->finding) + 2;
    if (t->throttle[0] && x < cols)
        cv_text(cv, y, x, cols - x, TR_WARN, fmt_fit_list(line, sizeof line, t->throttle, cols - x, "throttled"));
}

void gpus_draw(canvas *cv, const top_model *m, const top_ui *u, const top_layout *l, const gpu_text *texts,
               const unsigned char *extra, uint64_t now_us)
{
    int y = l->gpu_y, cols = cv->cols;
    int spark = (cols - 80) / 2 + 8;
    spark = spark < 4 ? 4 : spark > 60 ? 60 : spark;
    if (l->compact && l->gpu_shown > 0)
        draw_compact_header(cv, y++, cols, spark);
    for (int i = l->gpu_first; i < m->ngpus && i < l->gpu_first + l->gpu_shown; i++) {
        const top_gpu *g = &m->gpus[i];
        int selected = u->sel_gpu == i;
        if (l->compact) {
            draw_compact(cv, m, g, &texts[i], y, cols, spark, selected, u, now_us);
            y++;
        } else {
            /* extra: the wrapped figures line, then the MIG devices' line, then the findings line */
            const gpu_text *t = &texts[i];
            int fig = 1 + (extra ? extra[i] : 0) - (t->finding[0] ? 1 : 0) - (t->mig[0] ? 1 : 0);
            fig = fig < 1 ? 1 : fig;
            draw_full(cv, g, t, y, l->gpu_lines, fig, cols, selected);
            y += l->gpu_lines + fig - 1;
            if (t->mig[0])
                cv_text(cv, y++, 4, cols - 4, TR_NORMAL, t->mig);
            if (t->finding[0])
                cv_text(cv, y++, 4, cols - 4, role_of_level(t->finding_lvl), t->finding);
        }
    }
}
