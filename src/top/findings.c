/* findings.c - the diagnosis on screen: the findings panel (the worst findings, one line each:
 * severity, detector, GPUs, since when, summary), its list (`f`) with a selection, one finding's
 * evidence and advice (the diagnosis layer's text, wrapped to the screen, with its signal as a
 * sparkline), the short mark under each GPU a finding names, and why there is nothing to show. */
#include "top_ui.h"
#include "text.h"
#include <math.h>
#include <stdio.h>
#include <ctype.h>
#include <string.h>
#include <time.h>

#define DETAIL_MAX 400 /* lines of one finding's detail, wrapped */

/* ---- texts ---- */

const char *finding_tag(const diag_finding *f)
{
    return f->severity == DIAG_CRITICAL ? "CRIT" : f->severity == DIAG_WARNING ? "WARN" : "INFO";
}

static top_level level_of(diag_severity s)
{
    return s == DIAG_CRITICAL ? LVL_CRIT : s == DIAG_WARNING ? LVL_WARN : LVL_OK;
}

char *finding_gpus(const diag_finding *f, char *out, size_t n)
{
    size_t pos = 0;
    out[0] = 0;
    if (f->n_gpus == 0)
        return out;
    int run = 1; /* consecutive GPUs read as a range: "GPUs 0-3" */
    for (int i = 1; i < f->n_gpus; i++)
        run &= f->gpus[i] == f->gpus[i - 1] + 1;
    if (f->n_gpus == 1)
        snprintf(out, n, "GPU %d", f->gpus[0]);
    else if (run)
        snprintf(out, n, "GPUs %d-%d", f->gpus[0], f->gpus[f->n_gpus - 1]);
    else
        for (int i = 0; i < f->n_gpus && pos + 1 < n; i++)
            pos += (size_t)snprintf(out + pos, n - pos, "%s%d", i ? "," : "GPUs ", f->gpus[i]);
    return out;
}

/* "42s", "18m", "2h05m", "3d04h" */
static void span_words(uint64_t us, char *out, size_t n)
{
    unsigned long long m = us / 60000000u;
    if (m < 1)
        snprintf(out, n, "%llus", (unsigned long long)(us / 1000000u));
    else if (m < 60)
        snprintf(out, n, "%llum", m);
    else if (m < 24 * 60)
        snprintf(out, n, "%lluh%02llum", m / 60, m % 60);
    else
        snprintf(out, n, "%llud%02lluh", m / 1440, m / 60 % 24);
}

/* "14:05" (local time; "12-01 14:05" when not within the last 20 hours), or "14:05:07" with secs. */
static void clock_words(uint64_t t_us, uint64_t now_us, int secs, char *out, size_t n)
{
    time_t t = (time_t)(t_us / 1000000u);
    struct tm tm;
    localtime_r(&t, &tm);
    int far = now_us > t_us && now_us - t_us > 20ull * 3600 * 1000000;
    strftime(out, n, far ? "%m-%d %H:%M" : secs ? "%H:%M:%S" : "%H:%M", &tm);
}

/* "  GPU 1  since 22:42 (18m)  SUMMARY": what follows the tag and the detector. */
static void finding_rest(const diag_finding *f, uint64_t now_us, char *out, size_t n)
{
    char gpus[96], when[32] = "", span[16] = "", since[64] = "";
    finding_gpus(f, gpus, sizeof gpus);
    if (f->from_us) {
        clock_words(f->from_us, now_us, 0, when, sizeof when);
        span_words(now_us > f->from_us ? now_us - f->from_us : 0, span, sizeof span);
        snprintf(since, sizeof since, "since %s (%s)  ", when, span);
    }
    snprintf(out, n, "%s%s  %s%s", gpus[0] ? "  " : "", gpus, since, f->summary);
}

void finding_line(const diag_finding *f, uint64_t now_wall_us, char *out, size_t n)
{
    char rest[512];
    finding_rest(f, now_wall_us, rest, sizeof rest);
    snprintf(out, n, "%s %s%s", finding_tag(f), f->detector, rest);
}

static int num(const diag_finding *f, const char *key, double *v)
{
    const diag_evidence *e = diag_finding_get(f, key);
    if (!e || e->is_str)
        return 0;
    *v = e->num;
    return 1;
}

static const char *str(const diag_finding *f, const char *key)
{
    const diag_evidence *e = diag_finding_get(f, key);
    return e && e->is_str ? e->str : NULL;
}

void finding_mark(const diag_finding *f, char *out, size_t n)
{
    const char *d = f->detector;
    const char *fault = str(f, "fault");
    double v, w;
    char buf[32];
    if (!strcmp(d, "input_stall") && num(f, "period_s", &v)) /* "6 s", "2.5 s" */
        snprintf(out, n, "input stall (period %s s)",
                 fmt_fixed(buf, sizeof buf, v, v < 10 && fabs(v - round(v)) >= 0.05 ? 1 : 0, ""));
    else if (!strcmp(d, "launch_bound") && num(f, "median_sm_active", &v))
        snprintf(out, n, "launch bound (SM active %.0f %%)", v);
    else if (!strcmp(d, "low_util") && num(f, "median_util", &v))
        snprintf(out, n, "low utilization (median %.0f %%)", v);
    else if (!strcmp(d, "power_cap") && num(f, "user_lowered", &v) && v > 0)
        snprintf(out, n, "power limit lowered");
    else if (!strcmp(d, "power_cap") && num(f, "clock_loss", &v))
        snprintf(out, n, "power capped (clock -%.0f %%)", v * 100);
    else if (!strcmp(d, "thermal") && num(f, "hw_thermal_s", &v) && v > 0)
        snprintf(out, n, "thermal slowdown");
    else if (!strcmp(d, "thermal") && num(f, "max_temp_c", &v))
        snprintf(out, n, "hot (%.0f C)", v);
    else if (!strcmp(d, "memory_leak") && num(f, "time_to_full_s", &v) && v > 0) {
        char span[16];
        span_words((uint64_t)(v * 1e6), span, sizeof span);
        snprintf(out, n, "memory leak (full in %s)", span);
    } else if (!strcmp(d, "memory_full") && num(f, "max_used_share", &v))
        snprintf(out, n, "memory full (%.0f %%)", v * 100);
    else if (!strcmp(d, "imbalance") && num(f, "peer_median_util", &v))
        snprintf(out, n, "imbalance (its peers at %.0f %%)", v);
    else if (!strcmp(d, "idle_holding") && num(f, "held_mib", &v))
        snprintf(out, n, "idle, holding %s", fmt_mib(buf, sizeof buf, v));
    else if (!strcmp(d, "pcie_bound") && num(f, "link_share", &v))
        snprintf(out, n, "PCIe bound (%.0f %% of the link)", v * 100);
    else if (!strcmp(d, "hw_health") && num(f, "xid", &v) && str(f, "action"))
        snprintf(out, n, "hardware XID %.0f: %s", v, str(f, "action"));
    else if (!strcmp(d, "hw_health") && num(f, "xid", &v))
        snprintf(out, n, "%s XID %.0f", fault && !strcmp(fault, "application") ? "application" : "hardware", v);
    else if (!strcmp(d, "app_fault") && num(f, "xid", &v))
        snprintf(out, n, "application XID %.0f", v);
    else if (!strcmp(d, "row_remap") && num(f, "remap_failure", &v) && v > 0)
        snprintf(out, n, "row remap failed");
    else if (!strcmp(d, "row_remap") && num(f, "remap_pending", &v) && v > 0)
        snprintf(out, n, "row remap pending");
    else if (!strcmp(d, "nvlink_errors") && num(f, "links_down", &v) && v > 0 && num(f, "link", &w))
        snprintf(out, n, "NVLink %.0f down", w);
    else if (!strcmp(d, "nvlink_errors") && num(f, "link", &v))
        snprintf(out, n, "NVLink %.0f errors", v);
    else if (!strcmp(d, "pcie_degraded") && str(f, "link"))
        snprintf(out, n, "PCIe %s of %s", str(f, "link"), str(f, "link_max") ? str(f, "link_max") : "max");
    else if (!strcmp(d, "clocks_low") && num(f, "median_clock_mhz", &v))
        snprintf(out, n, "clocks low (%.0f MHz)", v);
    else if (!strcmp(d, "collective_hang") && num(f, "odd_gpu", &v))
        snprintf(out, n, "hung collective (odd GPU %.0f)", v);
    else if (!strcmp(d, "collective_hang"))
        snprintf(out, n, "hung collective");
    else if (!strcmp(d, "alloc_fragmentation"))
        snprintf(out, n, "allocator fragmented");
    else if (!strcmp(d, "hw_health") && num(f, "lost_times", &v) && num(f, "lost_s", &w))
        snprintf(out, n, "lost %.0fx", v);
    else if (!strcmp(d, "hw_health"))
        snprintf(out, n, "hardware fault");
    else {
        snprintf(out, n, "%s", d);
        for (char *s = out; *s; s++)
            if (*s == '_')
                *s = ' ';
    }
}

static int names_gpu(const diag_finding *f, int index)
{
    for (int i = 0; i < f->n_gpus; i++)
        if (f->gpus[i] == index)
            return 1;
    return 0;
}

void finding_gpu_marks(const top_model *m, int index, int ascii, char *out, size_t n, top_level *lvl)
{
    size_t pos = 0;
    out[0] = 0;
    *lvl = LVL_OK;
    if (m->find.state != FIND_OK)
        return;
    for (int i = 0; i < m->find.r.n && pos + 1 < n; i++) {
        const diag_finding *f = &m->find.r.f[i];
        if (!names_gpu(f, index))
            continue;
        char mark[96];
        finding_mark(f, mark, sizeof mark);
        if (pos == 0)
            *lvl = level_of(f->severity); /* the report is worst first */
        pos += (size_t)snprintf(out + pos, n - pos, "%s%s %s", pos ? "  " : "", ascii ? "!" : "⚠", mark);
    }
}

void findings_status(const top_findings *fs, int remote, uint64_t now_wall_us, char *out, size_t n)
{
    char at[32], next[32], span[16], every[16], window[16];
    clock_words(fs->at_us, now_wall_us, 1, at, sizeof at);
    clock_words(fs->next_us, now_wall_us, 1, next, sizeof next);
    span_words((uint64_t)(fs->interval_s * 1e6), every, sizeof every);
    span_words((uint64_t)(fs->window_s * 1e6), window, sizeof window);
    switch (fs->state) {
    case FIND_OFF: snprintf(out, n, "off (diagnosis.enabled: false in top.yaml)"); return;
    case FIND_WAITING:
        snprintf(out, n, "none yet: first diagnosis at %s, then every %s over the last %s", next, every, window);
        return;
    case FIND_OK:
        if (remote) {
            snprintf(out, n, "none: the agent's diagnosis finds nothing (read at %s)", at);
            return;
        }
        span_words(fs->r.to_us > fs->r.from_us ? fs->r.to_us - fs->r.from_us : 0, span, sizeof span);
        snprintf(out, n, "none over the last %s (diagnosed at %s, next at %s)", span, at, next);
        return;
    default: snprintf(out, n, "%s", fs->why); return;
    }
}

int findings_rows_wanted(const top_model *m)
{
    if (m->find.state == FIND_OFF)
        return 0;
    return m->find.state == FIND_OK && m->find.r.n > 0 ? m->find.r.n : 1;
}

/* ---- the panel ---- */

static int first_gpu(const diag_finding *f)
{
    return f->n_gpus ? f->gpus[0] : -1;
}

/* The selection follows its finding (detector and first GPU) from one report to the next. */
static void follow(top_ui *u, const diag_report *r)
{
    for (int i = 0; u->fsel_det[0] && i < r->n; i++)
        if (strcmp(r->f[i].detector, u->fsel_det) == 0 && first_gpu(&r->f[i]) == u->fsel_gpu) {
            u->fsel = i;
            break;
        }
    if (u->fsel >= r->n)
        u->fsel = r->n - 1;
    if (u->fsel < 0)
        u->fsel = 0;
    u->fsel_det[0] = 0;
    if (r->n > 0) {
        snprintf(u->fsel_det, sizeof u->fsel_det, "%s", r->f[u->fsel].detector);
        u->fsel_gpu = first_gpu(&r->f[u->fsel]);
    }
}

static void draw_finding(canvas *cv, int y, const diag_finding *f, uint64_t wall_us, int selected)
{
    char rest[512];
    int cols = cv->cols;
    finding_rest(f, wall_us, rest, sizeof rest);
    if (selected)
        cv_fill(cv, y, 0, cols, ' ', TR_SELECTED);
    int x = cv_text(cv, y, 0, cols, selected ? TR_SELECTED : role_of_level(level_of(f->severity)), finding_tag(f));
    x += cv_text(cv, y, x, cols - x, selected ? TR_SELECTED : TR_TITLE, " ");
    x += cv_text(cv, y, x, cols - x, selected ? TR_SELECTED : TR_TITLE, f->detector);
    cv_text(cv, y, x, cols - x, selected ? TR_SELECTED : TR_NORMAL, rest);
}

/* One line of the detail: a slice of the text, shown after `indent` spaces. */
typedef struct detail_line {
    const char *s;
    int len, indent;
    theme_role role;
} detail_line;

/* A space that binds a number to its unit ("88 C", "4.9 GiB", "73 %", "92 °C"): no break there. */
static int binds(const char *s, int i, int len)
{
    if (i == 0 || i + 1 >= len || !isdigit((unsigned char)s[i - 1]))
        return 0;
    unsigned char c = (unsigned char)s[i + 1];
    return isalpha(c) || c == '%' || c == 0xC2 /* the first byte of the degree sign */;
}

/* Adds text line s (len bytes), wrapped at cols: a continuation starts 2 columns right of the line's
 * own indentation. first >= 0: the line's leading spaces are replaced by first columns, and its
 * continuations start there too (a line that continues the previous one). Returns the new count. */
static int wrap(detail_line *out, int k, const char *s, int len, int cols, theme_role role, int first)
{
    int lead = 0;
    while (lead < len && s[lead] == ' ')
        lead++;
    int indent = 0, pos = 0;
    if (first >= 0) {
        indent = first;
        pos = lead;
        lead = first - 2;
    }
    while (pos < len && k < DETAIL_MAX) {
        int width = cols - indent, w = 0, i = pos, brk = -1;
        if (width < 8)
            width = 8;
        while (i < len) {
            uint32_t cp;
            size_t b = gw_utf8_next(s + i, &cp);
            int cw = fmt_cp_cols(cp);
            if (w + cw > width)
                break;
            if (cp == ' ' && i > pos && !binds(s, i, len))
                brk = i;
            w += cw;
            i += (int)b;
        }
        if (i < len && brk > pos)
            i = brk; /* at the last space that fits */
        if (i == pos)
            i = pos + (int)gw_utf8_next(s + pos, &(uint32_t){0});
        out[k++] = (detail_line){s + pos, i - pos, indent, role};
        pos = i;
        while (pos < len && s[pos] == ' ')
            pos++;
        indent = lead + 2;
    }
    return k;
}

/* The finding's text (the diagnosis layer's rendering, without its heading) as wrapped lines, with
 * its signal as a sparkline before the advice. text and chart hold what the lines point into. */
static int detail_lines(const diag_finding *f, int cols, int ascii, gw_buf *text, gw_buf *chart, detail_line *out)
{
    diag_report one = {.f = (diag_finding *)f, .n = 1, .cap = 1};
    diag_report_text(&one, text, DIAG_TEXT_NO_CHART | (ascii ? DIAG_TEXT_ASCII : 0));
    const diag_chart *ch = &f->chart;
    if (ch->n > 0) {
        double v[DIAG_CHART_POINTS];
        char spark[DIAG_CHART_POINTS * 4 + 1];
        for (int i = 0; i < ch->n; i++)
            v[i] = ch->v[i];
        buf_printf(chart, "    %s%s%s%s: %g..%g over the finding's time\n", ch->metric, ch->unit[0] ? " (" : "",
                   ch->unit, ch->unit[0] ? ")" : "", (double)ch->lo, (double)ch->hi);
        buf_printf(chart, "    %s%s%s\n", ascii ? "|" : "▕",
                   fmt_sparkline(spark, sizeof spark, v, ch->n, ch->lo, ch->hi, ascii), ascii ? "|" : "▏");
    }
    if (text->oom || chart->oom || !text->data)
        return 0;
    int k = 0, charted = !chart->len, line = 0, evidence = 0;
    for (const char *s = text->data; *s && k < DETAIL_MAX; line++) {
        const char *e = strchr(s, '\n');
        int len = e ? (int)(e - s) : (int)strlen(s);
        /* The diagnosis layer breaks long evidence into lines aligned after "evidence:"; here they
         * continue the evidence line at its own continuation's indentation. */
        int lead = (int)strspn(s, " ");
        int more = evidence && lead > 4 && lead < len;
        evidence = more || (len > 13 && !strncmp(s, "    evidence:", 13));
        int advice = len > 6 && !strncmp(s, "    - ", 6);
        if (advice && !charted) {
            for (const char *c = chart->data; *c;) {
                const char *ce = strchr(c, '\n');
                k = wrap(out, k, c, (int)(ce - c), cols, TR_SERIES_A, -1);
                c = ce + 1;
            }
            charted = 1;
        }
        theme_role role = s[0] != ' '              ? TR_TITLE
                          : len > 2 && s[2] != ' ' ? role_of_level(level_of(f->severity)) /* the finding's head */
                                                   : TR_NORMAL;
        if (line > 0 && len > 0) /* the first line counts the findings: one */
            k = wrap(out, k, s, len, cols, role, more ? 6 : -1);
        s += len + (e ? 1 : 0);
    }
    return k;
}

static void draw_detail(canvas *cv, const top_model *m, top_ui *u, int y, int h)
{
    static detail_line lines[DETAIL_MAX];
    const diag_report *r = &m->find.r;
    const diag_finding *f = &r->f[u->fsel];
    gw_buf text, chart;
    buf_init(&text);
    buf_init(&chart);
    int n = detail_lines(f, cv->cols, cv->ascii, &text, &chart, lines);
    int rows = h - 1;
    if (u->fdetail_top > n - rows)
        u->fdetail_top = n - rows;
    if (u->fdetail_top < 0)
        u->fdetail_top = 0;
    char lines_shown[48] = "";
    if (n > rows)
        snprintf(lines_shown, sizeof lines_shown, "lines %d-%d of %d, ", u->fdetail_top + 1,
                 u->fdetail_top + rows < n ? u->fdetail_top + rows : n, n);
    int x = cv_fmt(cv, y, 0, cv->cols, TR_TITLE, "FINDING %d of %d: ", u->fsel + 1, r->n);
    x += cv_text(cv, y, x, cv->cols - x, role_of_level(level_of(f->severity)), finding_tag(f));
    cv_fmt(cv, y, x, cv->cols - x, TR_TITLE, " %s  (%s%s)", f->detector, lines_shown,
           cv->ascii ? "left/right: the others, Esc: back" : "←→ the others, Esc: back");
    for (int i = 0; i < rows && u->fdetail_top + i < n; i++) {
        const detail_line *d = &lines[u->fdetail_top + i];
        char buf[1024];
        snprintf(buf, sizeof buf, "%*s%.*s", d->indent, "", d->len, d->s);
        cv_text(cv, y + 1 + i, 0, cv->cols, d->role, buf);
    }
    buf_release(&text);
    buf_release(&chart);
}

void findings_draw(canvas *cv, const top_model *m, top_ui *u, const top_layout *l, uint64_t wall_us)
{
    const top_findings *fs = &m->find;
    int y = l->find_y, h = l->find_h, cols = cv->cols;
    if (h == 0)
        return;
    int n = fs->state == FIND_OK ? fs->r.n : 0;
    follow(u, &fs->r);
    if (n == 0) {
        char status[400];
        findings_status(fs, m->remote, wall_us, status, sizeof status);
        int x = cv_text(cv, y, 0, cols, TR_TITLE, "FINDINGS ");
        int trouble = fs->state == FIND_NOT_SERVED || fs->state == FIND_ERROR;
        cv_text(cv, y, x, cols - x, trouble ? TR_WARN : TR_DIM, status);
        return;
    }
    if (u->fdetail && h >= 2) {
        draw_detail(cv, m, u, y, h);
        return;
    }
    const diag_finding *f = fs->r.f;
    if (h == 1 && n > 1) {
        char line[600];
        int crit = 0;
        for (int i = 0; i < n; i++)
            crit += f[i].severity == DIAG_CRITICAL;
        finding_line(&f[0], wall_us, line, sizeof line);
        cv_fmt(cv, y, 0, cols, role_of_level(level_of(f[0].severity)), "%d findings (%d critical; f: list), worst: %s",
               n, crit, line);
        return;
    }
    int list = u->findings_expanded && h >= 2;
    if (list) {
        cv_fmt(cv, y, 0, cols, TR_TITLE, "FINDINGS %d, worst first  (%s select, Enter: evidence and advice, f: close)",
               n, cv->ascii ? "up/down" : "↑↓");
        y++;
        h--;
        if (u->fsel < u->ftop)
            u->ftop = u->fsel;
        if (u->fsel >= u->ftop + h)
            u->ftop = u->fsel - h + 1;
        if (u->ftop > n - h)
            u->ftop = n - h > 0 ? n - h : 0;
        for (int i = 0; i < h && u->ftop + i < n; i++)
            draw_finding(cv, y + i, &f[u->ftop + i], wall_us, u->ftop + i == u->fsel);
        return;
    }
    int shown = n > h ? h - 1 : n;
    for (int i = 0; i < shown; i++)
        draw_finding(cv, y + i, &f[i], wall_us, 0);
    if (shown < n)
        cv_fmt(cv, y + shown, 0, cols, TR_WARN, "+%d more finding%s (f: the list, Enter: evidence and advice)",
               n - shown, n - shown == 1 ? "" : "s");
}
