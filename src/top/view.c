/* view.c - one screen of top composed into a canvas: where each part goes for a terminal size (pure,
 * unit tested), the header (host, versions, host CPU and memory bars, banners), the GPUs, charts,
 * alerts, findings and processes, the footer (key hints, a message, the signal menu or a y/n
 * question), and the help screen, which fits 80x24. */
#include "top_ui.h"
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* ---- layout ---- */

#define PROC_MIN_FULL 6    /* table header + 5 rows */
#define PROC_MIN_COMPACT 3 /* table header + 2 rows */
#define CHART_MIN 8
#define CHART_MAX 14
#define ALERTS_BASE 3   /* alert lines before the processes' spare rows are counted */
#define FINDINGS_BASE 3 /* the same for findings */

int layout_gpu_lines(int cols)
{
    return cols >= 120 ? 2 : 3;
}

/* Lines of GPU i in the layout. */
static int gpu_height(const layout_in *in, const top_layout *l, int i)
{
    return l->compact ? 1 : l->gpu_lines + (in->gpu_extra ? in->gpu_extra[i] : 0);
}

/* More lines for a panel that wants them, out of *spare (and the rows left, *rest). */
static void grow(int *lines, int want, int *spare, int *rest)
{
    int more = want - *lines, add = more < *spare ? more : *spare;
    if (add <= 0)
        return;
    *lines += add;
    *spare -= add;
    *rest -= add;
}

void layout_compute(const layout_in *in, top_layout *l)
{
    *l = (top_layout){0};
    int rows = in->rows, ngpus = in->ngpus;
    l->gpu_lines = layout_gpu_lines(in->cols);
    int want = in->alerts < 1 ? 1 : in->alerts;
    int alerts = want > ALERTS_BASE ? ALERTS_BASE : want;
    int fwant = in->findings < 0 ? 0 : in->findings;
    int finds = fwant > FINDINGS_BASE ? FINDINGS_BASE : fwant;
    int quiet = finds && in->findings_quiet;           /* a line saying there is no finding: gives way first */
    int fixed = TOP_HEADER_LINES + alerts + finds + 1; /* header, alerts, findings, footer */
    int full_h = 0;
    for (int i = 0; i < ngpus; i++)
        full_h += l->gpu_lines + (in->gpu_extra ? in->gpu_extra[i] : 0);
    if (in->pref == LAYOUT_COMPACT)
        l->compact = 1;
    else if (in->pref == LAYOUT_AUTO)
        l->compact = fixed - quiet + full_h + PROC_MIN_FULL > rows;
    int proc_min = l->compact ? PROC_MIN_COMPACT : PROC_MIN_FULL;
    int gpu_h = l->compact ? ngpus + 1 : full_h; /* compact has a column header */
    /* GPUs come before the details of findings and alerts: each squeezes to one line ("N findings,
     * worst: ...") if needed, the findings first; then a line saying there is none goes. */
    if (finds > 1 && fixed + gpu_h + proc_min > rows) {
        fixed -= finds - 1;
        finds = 1;
    }
    if (quiet && fixed + gpu_h + proc_min > rows) {
        fixed--;
        finds = fwant = 0;
    }
    if (in->alerts < 1 && finds && fixed + gpu_h + proc_min > rows) { /* "no alerts" goes too */
        fixed--;
        alerts = want = 0;
    }
    if (alerts > 1 && fixed + gpu_h + proc_min > rows) {
        fixed -= alerts - 1;
        alerts = 1;
    }
    /* The GPUs that fit, scrolled so that the selected one is shown. */
    int room = rows - fixed - proc_min - (l->compact ? 1 : 0), used = 0;
    while (l->gpu_shown < ngpus && used + gpu_height(in, l, l->gpu_shown) <= room)
        used += gpu_height(in, l, l->gpu_shown++);
    if (in->sel_gpu >= l->gpu_shown && in->sel_gpu < ngpus) {
        l->gpu_first = in->sel_gpu;
        used = gpu_height(in, l, in->sel_gpu);
        while (l->gpu_first > 0 && used + gpu_height(in, l, l->gpu_first - 1) <= room)
            used += gpu_height(in, l, --l->gpu_first);
        l->gpu_shown = in->sel_gpu - l->gpu_first + 1;
        if (used > room)
            l->gpu_shown = 0, used = 0;
    }
    l->gpu_h = used + (l->gpu_shown && l->compact ? 1 : 0);
    l->gpu_y = TOP_HEADER_LINES;
    int rest = rows - fixed - l->gpu_h;
    int y = l->gpu_y + l->gpu_h;
    int expanded = in->alerts_expanded || (fwant && (in->findings_expanded || in->findings_detail));
    if (in->chart != CHART_OFF && !expanded) {
        if (rest - CHART_MIN >= PROC_MIN_FULL) {
            l->chart_h = rest * 45 / 100;
            l->chart_h = l->chart_h < CHART_MIN ? CHART_MIN : l->chart_h > CHART_MAX ? CHART_MAX : l->chart_h;
            l->chart_y = y;
            y += l->chart_h;
            rest -= l->chart_h;
        } else {
            l->chart_need = rows + CHART_MIN + PROC_MIN_FULL - rest;
        }
    }
    /* More alerts or findings than their base lines: they take the rows the process table does not
     * fill, or, when one is expanded (`e`, `f`), all but the table's minimum; the expanded one first,
     * else the alerts. One finding's detail takes every row below the alerts. */
    int table = in->procs > PROC_MIN_COMPACT ? in->procs : PROC_MIN_COMPACT;
    int spare = rest - (expanded ? PROC_MIN_COMPACT : table);
    if (fwant && in->findings_detail) {
        finds += rest > 0 ? rest : 0;
        rest = 0;
    } else if (fwant && in->findings_expanded && !in->alerts_expanded) {
        grow(&finds, fwant, &spare, &rest);
        grow(&alerts, want, &spare, &rest);
    } else {
        grow(&alerts, want, &spare, &rest);
        grow(&finds, fwant, &spare, &rest);
    }
    l->alert_y = y;
    l->alert_h = alerts;
    y += alerts;
    l->find_y = y;
    l->find_h = finds;
    y += finds;
    l->proc_y = y;
    l->proc_h = rest > 0 ? rest : 0;
    l->footer_y = rows - 1;
}

/* ---- header ---- */

void top_header_text(const top_model *m, uint64_t wall_us, char *out, size_t n)
{
    char when[32];
    time_t t = (time_t)(wall_us / 1000000);
    struct tm tm;
    localtime_r(&t, &tm);
    strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
    /* A remote agent does not say which CUDA version its driver supports: left out then. */
    snprintf(out, n, "%s  driver %s%s%s  %d GPU%s  %s", m->host, m->versions.driver[0] ? m->versions.driver : "?",
             m->versions.cuda[0] ? "  CUDA " : "", m->versions.cuda, m->ngpus, m->ngpus == 1 ? "" : "s", when);
}

/* Draws an item at *x when it fits in full (or cut, when `cut`); returns 1 when drawn. */
static int put_item(canvas *cv, int y, int *x, theme_role r, const char *s, int cut)
{
    int w = fmt_cols(s);
    if (*x >= cv->cols || (!cut && *x + w > cv->cols))
        return 0;
    *x += cv_text(cv, y, *x, cv->cols - *x, r, s) + 2;
    return 1;
}

/* "CPU ▕███  ▏ 61%": a label, a bar and a value, when it all fits. */
static void put_meter(canvas *cv, int y, int *x, const char *label, double frac, const char *value, int cells,
                      theme_role bar_role)
{
    char bar[128];
    int w = fmt_cols(label) + 3 + cells + fmt_cols(value);
    if (*x + w > cv->cols)
        return;
    *x += cv_text(cv, y, *x, w, TR_TITLE, label);
    *x += cv_text(cv, y, *x, w, TR_NORMAL, cv->ascii ? " [" : " ▕");
    *x += cv_text(cv, y, *x, cells, bar_role, fmt_bar(bar, sizeof bar, frac, cells, cv->ascii));
    *x += cv_text(cv, y, *x, 2, TR_NORMAL, cv->ascii ? "]" : "▏");
    *x += cv_text(cv, y, *x, cv->cols - *x, TR_NORMAL, value) + 2;
}

static void draw_header(canvas *cv, const top_model *m, const top_ui *u, const top_layout *l, uint64_t wall_us)
{
    char head[400], buf[128];
    top_header_text(m, wall_us, head, sizeof head);
    int x = cv_text(cv, 0, 0, cv->cols, TR_TITLE, "gpuwatch top  ");
    cv_text(cv, 0, x, cv->cols - x, TR_NORMAL, head);
    /* Line 2, most important first; what does not fit is left out (an error is cut instead). */
    x = 0;
    if (m->versions.simulated)
        put_item(cv, 1, &x, TR_BANNER, " SIMULATED GPUs ", 1);
    if (u->paused)
        put_item(cv, 1, &x, TR_WARN, "PAUSED", 1);
    if (l->gpu_shown < m->ngpus) {
        snprintf(buf, sizeof buf, "GPUs %d-%d of %d shown (g: next)", l->gpu_first, l->gpu_first + l->gpu_shown - 1,
                 m->ngpus);
        put_item(cv, 1, &x, TR_WARN, buf, 1);
    }
    if (m->error[0])
        put_item(cv, 1, &x, TR_CRIT, m->error, 1);
    else if (m->updated_us == 0)
        put_item(cv, 1, &x, TR_DIM, "reading GPUs...", 1);
    const top_host *h = &m->hoststat;
    int cells = cv->cols >= 120 ? 10 : 6;
    if (h->has_cpu) {
        snprintf(buf, sizeof buf, " %3.0f%%", h->cpu_pct);
        put_meter(cv, 1, &x, "CPU", h->cpu_pct / 100.0, buf, cells, TR_BAR_UTIL);
    }
    if (h->has_mem && h->mem_total_mib > 0) {
        snprintf(buf, sizeof buf, " %.1f/%.0f GiB", h->mem_used_mib / 1024.0, h->mem_total_mib / 1024.0);
        put_meter(cv, 1, &x, "MEM", h->mem_used_mib / h->mem_total_mib, buf, cells, TR_BAR_MEM);
    }
    snprintf(buf, sizeof buf, "every %gs", u->o->interval_s);
    put_item(cv, 1, &x, TR_DIM, buf, 0);
}

/* ---- alerts ---- */

static theme_role alert_role(const top_alert *a)
{
    return a->firing ? role_of_level((top_level)a->level) : TR_NORMAL; /* pending: not yet an alarm */
}

/* The alerts, worst first; when they do not all fit, the last line says how many more. */
static void draw_alerts(canvas *cv, const top_model *m, const top_ui *u, const top_layout *l, uint64_t wall_us)
{
    char text[400];
    int n = m->nalerts, cols = cv->cols;
    if (l->alert_h == 0)
        return;
    if (n == 0) {
        int x = cv_text(cv, l->alert_y, 0, cols, TR_TITLE, "ALERTS ");
        x += cv_text(cv, l->alert_y, x, cols - x, TR_DIM, "no alerts") + 2;
        if (l->find_h == 0 && m->find.state != FIND_OFF && (m->find.state != FIND_OK || m->find.r.n == 0)) {
            findings_status(&m->find, m->remote, wall_us, text, sizeof text); /* the findings line gave way */
            x += cv_text(cv, l->alert_y, x, cols - x, TR_TITLE, "FINDINGS ");
            cv_text(cv, l->alert_y, x, cols - x, TR_DIM, text);
        }
        return;
    }
    if (l->alert_h == 1 && n > 1) {
        int firing = 0;
        for (int i = 0; i < n; i++)
            firing += m->alerts[i].firing;
        top_alert_text(&m->alerts[0], (int64_t)wall_us, text, sizeof text);
        cv_fmt(cv, l->alert_y, 0, cols, alert_role(&m->alerts[0]), "%d alerts (%d firing; e: list), worst: %s", n,
               firing, text);
        return;
    }
    int shown = n > l->alert_h ? l->alert_h - 1 : n;
    for (int i = 0; i < shown; i++) {
        top_alert_text(&m->alerts[i], (int64_t)wall_us, text, sizeof text);
        cv_text(cv, l->alert_y + i, 0, cols, alert_role(&m->alerts[i]), text);
    }
    if (shown < n)
        cv_fmt(cv, l->alert_y + shown, 0, cols, TR_WARN, "+%d more alert%s (%s)", n - shown, n - shown == 1 ? "" : "s",
               u->alerts_expanded ? "gpuwatch top --once lists them all" : "e: expand the list");
}

/* ---- footer ---- */

static void draw_footer(canvas *cv, const top_ui *u, int y, uint64_t mono_us, int findings)
{
    int cols = cv->cols;
    cv_fill(cv, y, 0, cols, ' ', TR_HEADER);
    if (u->confirm_sig) {
        cv_fmt(cv, y, 0, cols, TR_CRIT, "Send %s to pid %u (%s)? y/n", top_signal_name(u->confirm_sig), u->confirm_pid,
               u->confirm_name);
        return;
    }
    if (u->sig_menu) {
        cv_fmt(cv, y, 0, cols, TR_WARN, "Signal to pid %u (%s): i INT (graceful stop)  t TERM  K KILL  Esc: none",
               u->confirm_pid, u->confirm_name);
        return;
    }
    if (u->msg[0] && mono_us < u->msg_until_us) {
        cv_text(cv, y, 0, cols, role_of_level((top_level)u->msg_level), u->msg);
        return;
    }
    if (u->editing_filter) {
        cv_text(cv, y, 0, cols, TR_HEADER, "filter: type text, Enter to keep, Esc to clear");
        return;
    }
    if (findings) {
        cv_text(cv, y, 0, cols, TR_HEADER,
                u->fdetail ? "up/down PgUp/PgDn: scroll  left/right: the other findings  Esc/Enter: the list"
                           : "up/down: select a finding  Enter: its evidence and advice  f/Esc: close the list");
        return;
    }
    cv_text(cv, y, 0, cols, TR_HEADER,
            "?:help q:quit p:pause f:findings e:alerts l:layout c:charts g/0-9:GPU s/</>:sort /:filter t:tree "
            "k:signal");
}

/* ---- help ---- */

const char *const top_help_lines[] = {
    "gpuwatch top - keys                                    any key closes this help",
    "  q F10     quit                    p space   pause / resume",
    "  + -       slower / faster refresh l         layout: auto, full, compact",
    "  c         charts: selected GPU, all GPUs, off",
    "  g 0-9 a   next GPU, GPU n, all GPUs (the process table follows)",
    "  up down   select a process (PgUp PgDn Home End; a mouse click too)",
    "  s < > r   sort by the next / previous column, reverse",
    "  /         filter processes (pid, user, container, command, gpuN)",
    "  t         process tree of the selected process (parents, children)",
    "  k         signal it: i INT (graceful stop, lets a trainer checkpoint),",
    "            t TERM or K KILL, then y to confirm;  K  SIGKILL, then y",
    "  e         expand / shrink the alert list",
    "  f         the findings: up down select one, Enter its evidence and advice",
    "  C A       colours, ASCII on/off  (l c s r + - C A are kept in top.yaml)",
    "marks",
    "  LOST      the driver lost the GPU;  STALE  no new reading for 3 intervals",
    "  throttle  active clock event reasons (sw power cap, hw slowdown, ...)",
    "  XID n     last XID error;  ECC DBE/SBE n  ECC errors;  REMAP  row remapping",
    "  TENSOR    tensor-core activity; NVLINK traffic (GPUs with GPM only)",
    "  N/A       the GPU or driver does not report this value",
    "  pending   an alert whose condition holds, not yet for its rule's `for`",
    "  ⚠ words   a finding of the diagnosis about this GPU (f: the findings)",
    NULL,
};

void help_draw(canvas *cv, const top_ui *u)
{
    int y = 0;
    for (; top_help_lines[y] && y < cv->rows - 1; y++) {
        const char *s = top_help_lines[y];
        cv_text(cv, y, 0, cv->cols, y == 0 || s[0] != ' ' ? TR_TITLE : TR_NORMAL, s);
    }
    cv_fmt(cv, cv->rows - 1, 0, cv->cols, TR_DIM, "colours: core %g/%g C, HBM %g/%g C (--temp-warn ... --hbm-crit)",
           u->o->th.temp_warn, u->o->th.temp_crit, u->o->th.hbm_warn, u->o->th.hbm_crit);
}

/* ---- the screen ---- */

void view_draw(canvas *cv, top_model *m, top_ui *u, uint64_t mono_us, uint64_t wall_us)
{
    static gpu_text texts[TOP_MAX_GPUS];
    unsigned char extra[TOP_MAX_GPUS];
    canvas_clear(cv);
    if (u->help) {
        help_draw(cv, u);
        return;
    }
    int gl = layout_gpu_lines(cv->cols);
    procs_tree_read(u, mono_us);
    pthread_mutex_lock(&m->lock);
    for (int i = 0; i < m->ngpus; i++) {
        const top_gpu *g = &m->gpus[i];
        gpu_text *t = &texts[i];
        gpu_text_make(g, &u->o->th, top_gpu_stale(g, mono_us, u->o->interval_s), cv->ascii, t);
        finding_gpu_marks(m, g->info.index, cv->ascii, t->finding, sizeof t->finding, &t->finding_lvl);
        extra[i] =
            (unsigned char)(gpu_figure_lines(t, cv->cols, gl) - 1 + (t->finding[0] ? 1 : 0) + (t->mig[0] ? 1 : 0));
    }
    int nfind = m->find.state == FIND_OK ? m->find.r.n : 0;
    if (nfind == 0)
        u->fdetail = 0;
    layout_in in = {cv->rows,
                    cv->cols,
                    m->ngpus,
                    u->layout,
                    u->chart,
                    m->nalerts,
                    u->alerts_expanded,
                    procs_rows_wanted(m, u),
                    u->sel_gpu,
                    extra,
                    findings_rows_wanted(m) + (u->findings_expanded && nfind > 0), /* the list's title */
                    nfind == 0,
                    u->findings_expanded,
                    u->fdetail};
    top_layout l;
    layout_compute(&in, &l);
    u->lay = l;
    memcpy(u->gpu_extra, extra, (size_t)m->ngpus);
    draw_header(cv, m, u, &l, wall_us);
    gpus_draw(cv, m, u, &l, texts, extra, wall_us);
    charts_draw(cv, m, u, &l, wall_us);
    draw_alerts(cv, m, u, &l, wall_us);
    findings_draw(cv, m, u, &l, wall_us);
    procs_draw(cv, m, u, &l, wall_us / 1000000);
    pthread_mutex_unlock(&m->lock);
    if (u->chart_said && u->chart != CHART_OFF && l.chart_need) {
        top_layout lc;
        in.pref = LAYOUT_COMPACT;
        layout_compute(&in, &lc);
        top_ui_message(u, LVL_WARN, "terminal too small for charts: need %d rows, have %d%s", l.chart_need, cv->rows,
                       !l.compact && lc.chart_h ? " (l: compact GPUs make room)" : "");
    }
    u->chart_said = 0;
    draw_footer(cv, u, l.footer_y, mono_us, l.find_h > 1 && nfind > 0 && (u->findings_expanded || u->fdetail));
}
