/* fleet_view.c - the screen of `top --hosts`: a header (hosts up and unreachable, GPUs, the
 * grouping and the sort), a line per GPU under a line per host (or per job), columns dropped by
 * priority on narrow terminals, the list scrolled with the selection, the fleet's findings worst
 * first, a footer of keys; what the keys do to it; and the plain-text snapshot (--once). */
#include "top_fleet.h"
#include "util.h"
#include <ncurses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const int col_width[FC_COUNT] = {16, 3, 5, 9, 6, 6, 8, 20, 0};
#define JOB_MIN 12
#define FINDINGS_BASE 3

void fleet_visible_cols(int cols, int visible[FC_COUNT])
{
    static const fleet_col drop[] = {FC_THROTTLE, FC_SMCLK, FC_POWER, FC_TEMP, FC_MEM, FC_HOST};
    int used = JOB_MIN;
    for (int c = 0; c < FC_COUNT; c++) {
        visible[c] = 1;
        used += col_width[c] + (c < FC_JOB ? 1 : 0);
    }
    for (size_t k = 0; k < sizeof drop / sizeof drop[0] && used > cols; k++) {
        visible[drop[k]] = 0;
        used -= col_width[drop[k]] + 1;
    }
}

void fleet_ui_init(fleet_ui *u, top_opts *o)
{
    memset(u, 0, sizeof *u);
    u->o = o;
    u->group = GROUP_HOST;
    u->sort_col = FC_GPU;
    u->sel_host = -1;
    u->sel_gpu = -1;
    u->open_host = -1;
}

void fleet_ui_free(fleet_ui *u)
{
    free(u->rows);
    u->rows = NULL;
    u->nrows = u->rows_cap = 0;
}

/* ---- keys ---- */

void fleet_ui_message(fleet_ui *u, int level, const char *text)
{
    snprintf(u->msg, sizeof u->msg, "%s", text);
    u->msg_level = level;
    u->msg_until_us = gw_mono_us() + 5000000u;
}

static void select_row(fleet_ui *u, int sel)
{
    if (u->nrows == 0)
        return;
    u->sel = sel < 0 ? 0 : sel >= u->nrows ? u->nrows - 1 : sel;
    u->sel_host = u->rows[u->sel].host;
    u->sel_gpu = u->rows[u->sel].gpu;
}

/* Numbers sort largest first, names and indexes in order. */
static int natural_desc(fleet_col c)
{
    return c != FC_HOST && c != FC_GPU && c != FC_JOB;
}

int fleet_handle_key(fleet_ui *u, int ch)
{
    if (u->help) {
        u->help = 0;
        return 1;
    }
    int page = u->list_h > 1 ? u->list_h - 1 : 1;
    switch (ch) {
    case 'q':
    case 'Q':
    case KEY_F(10): u->quit = 1; break;
    case '?':
    case 'h':
    case KEY_F(1): u->help = 1; break;
    case 'p':
    case ' ': u->paused = !u->paused; break;
    case KEY_UP: select_row(u, u->sel - 1); break;
    case KEY_DOWN: select_row(u, u->sel + 1); break;
    case KEY_PPAGE: select_row(u, u->sel - page); break;
    case KEY_NPAGE: select_row(u, u->sel + page); break;
    case KEY_HOME: select_row(u, 0); break;
    case KEY_END: select_row(u, u->nrows - 1); break;
    case 's':
    case KEY_F(6):
    case '>':
    case '<':
        u->sort_col = (fleet_col)((u->sort_col + (ch == '<' ? FC_COUNT - 1 : 1)) % FC_COUNT);
        u->sort_desc = natural_desc(u->sort_col);
        break;
    case 'r': u->sort_desc = !u->sort_desc; break;
    case 'j':
        u->group = u->group == GROUP_HOST ? GROUP_JOB : GROUP_HOST;
        u->sel_host = u->sel_gpu = -1;
        u->sel = u->top = 0;
        break;
    case 'f': u->findings_expanded = !u->findings_expanded; break;
    case '\n':
    case '\r':
    case KEY_ENTER:
        if (u->nrows && u->rows[u->sel].host >= 0)
            u->open_host = u->rows[u->sel].host;
        else
            fleet_ui_message(u, LVL_WARN, "Enter on a host's line or a GPU's line opens that host");
        break;
    default: return 0;
    }
    return 1;
}

/* ---- texts ---- */

/* Where a host is in its own words: "gpu07 (127.0.0.1:9401)", or the address before it answers. */
static void host_title(const fleet_host *h, char *out, size_t n)
{
    if (h->name[0])
        snprintf(out, n, "%s (%s)", h->name, h->addr);
    else
        snprintf(out, n, "%s", h->addr);
}

static void clock_text(uint64_t wall_us, const char *fmt, char *out, size_t n)
{
    time_t t = (time_t)(wall_us / 1000000);
    struct tm tm;
    localtime_r(&t, &tm);
    strftime(out, n, fmt, &tm);
}

/* A host's state: "8 GPUs  up", "UNREACHABLE since 14:02:07: connection refused". */
static top_level host_state(const fleet_host *h, char *out, size_t n)
{
    char since[16];
    switch (h->reach) {
    case HOST_WAITING: snprintf(out, n, "connecting..."); return LVL_OK;
    case HOST_UP:
        snprintf(out, n, "%d GPU%s  up%s", h->gpus.n, h->gpus.n == 1 ? "" : "s",
                 h->gpus.simulated ? "  simulated" : "");
        return LVL_OK;
    case HOST_DOWN:
        clock_text(h->since_us, "%H:%M:%S", since, sizeof since);
        snprintf(out, n, "UNREACHABLE since %s: %s%s", since, h->why, h->gpus.n ? " (its GPUs as last read)" : "");
        return LVL_CRIT;
    case HOST_SILENT:
        clock_text(h->since_us, "%H:%M:%S", since, sizeof since);
        snprintf(out, n, "NOT REPORTING since %s: %s%s", since, h->why, h->gpus.n ? " (its GPUs as last read)" : "");
        return LVL_CRIT;
    }
    return LVL_OK;
}

/* The engine's state: "engine http://...: read 14:02:07", "ENGINE UNREACHABLE since 14:02:07: ...". */
static top_level engine_state(const fleet_model *m, char *out, size_t n)
{
    char when[16];
    if (m->engine_why[0]) {
        clock_text(m->engine_since_us, "%H:%M:%S", when, sizeof when);
        snprintf(out, n, "ENGINE UNREACHABLE since %s: %s: %s (hosts as last read)", when, m->engine, m->engine_why);
        return LVL_CRIT;
    }
    if (!m->engine_read_us) {
        snprintf(out, n, "engine %s: asking...", m->engine);
        return LVL_OK;
    }
    clock_text(m->engine_read_us, "%H:%M:%S", when, sizeof when);
    snprintf(out, n, "engine %s read %s%s%s", m->engine, when, m->engine_note[0] ? ": " : "", m->engine_note);
    return m->engine_note[0] ? LVL_WARN : LVL_OK;
}

/* The cells of GPU g of host h. */
static void gpu_cells(const fleet_host *h, int g, const top_opts *o, int ascii, char cells[FC_COUNT][200],
                      top_level *temp_lvl, int *throttled)
{
    const api_gpu *ag = &h->gpus.gpus[g];
    top_gpu *tg = calloc(1, sizeof *tg);
    gpu_text *t = calloc(1, sizeof *t);
    for (int c = 0; c < FC_COUNT; c++)
        cells[c][0] = 0;
    if (!tg || !t) {
        free(tg);
        free(t);
        return;
    }
    tg->info = ag->info;
    tg->s = ag->s;
    tg->have_sample = 1;
    tg->lost = ag->lost;
    gpu_text_make(tg, &o->th, 0, ascii, t);
    double used;
    snprintf(cells[FC_HOST], 200, "%s", h->addr);
    snprintf(cells[FC_GPU], 200, "%d", ag->info.index);
    snprintf(cells[FC_UTIL], 200, "%s", ag->lost ? "LOST" : t->util);
    if (sample_get(&ag->s, M_MEM_USED, &used))
        fmt_mib(cells[FC_MEM], 200, used);
    else
        snprintf(cells[FC_MEM], 200, "N/A");
    double w;
    if (sample_get(&ag->s, M_POWER_DRAW, &w))
        fmt_fixed(cells[FC_POWER], 200, w, 0, " W");
    else
        snprintf(cells[FC_POWER], 200, "N/A");
    snprintf(cells[FC_TEMP], 200, "%s", t->temp);
    snprintf(cells[FC_SMCLK], 200, "%s", t->sm_clk);
    snprintf(cells[FC_THROTTLE], 200, "%s", t->throttle);
    char job[FLEET_JOB_LEN], user[32];
    fleet_gpu_job(h, g, job, sizeof job, user, sizeof user);
    snprintf(cells[FC_JOB], 200, "%s%s%s", job, job[0] && user[0] ? " / " : "", user);
    *temp_lvl = t->temp_lvl;
    *throttled = t->throttle[0] != 0;
    free(tg);
    free(t);
}

static int col_right(fleet_col c)
{
    return c == FC_GPU || c == FC_UTIL || c == FC_MEM || c == FC_POWER || c == FC_TEMP || c == FC_SMCLK;
}

/* ---- drawing ---- */

static void draw_header(canvas *cv, const fleet_model *m, const fleet_ui *u, int nrows, uint64_t wall_us)
{
    int up = 0, down = 0, silent = 0, gpus = 0, sim = 0;
    for (int h = 0; h < m->nhosts; h++) {
        up += m->hosts[h].reach == HOST_UP;
        down += m->hosts[h].reach == HOST_DOWN;
        silent += m->hosts[h].reach == HOST_SILENT;
        gpus += m->hosts[h].reach == HOST_UP ? m->hosts[h].gpus.n : 0;
        sim |= m->hosts[h].gpus.simulated;
    }
    char when[32], buf[160];
    clock_text(wall_us, "%Y-%m-%d %H:%M:%S", when, sizeof when);
    int x = cv_text(cv, 0, 0, cv->cols, TR_TITLE, "gpuwatch top  ");
    x += cv_fmt(cv, 0, x, cv->cols - x, TR_NORMAL, "fleet: %d host%s, %d up", m->nhosts, m->nhosts == 1 ? "" : "s", up);
    if (down)
        x += cv_fmt(cv, 0, x, cv->cols - x, TR_CRIT, ", %d unreachable", down);
    if (silent)
        x += cv_fmt(cv, 0, x, cv->cols - x, TR_CRIT, ", %d not reporting", silent);
    cv_fmt(cv, 0, x, cv->cols - x, TR_NORMAL, "  %d GPUs  %s", gpus, when);
    x = 0;
    if (m->engine[0]) {
        char line[1100];
        top_level lvl = engine_state(m, line, sizeof line);
        x += cv_text(cv, 1, x, cv->cols - x, lvl == LVL_OK ? TR_DIM : lvl == LVL_WARN ? TR_WARN : TR_CRIT, line) + 2;
    }
    if (sim)
        x += cv_text(cv, 1, x, cv->cols - x, TR_BANNER, " SIMULATED GPUs ") + 2;
    if (u->paused)
        x += cv_text(cv, 1, x, cv->cols - x, TR_WARN, "PAUSED") + 2;
    snprintf(buf, sizeof buf, "by %s (j: by %s)", u->group == GROUP_HOST ? "host" : "job",
             u->group == GROUP_HOST ? "job" : "host");
    x += cv_text(cv, 1, x, cv->cols - x, TR_DIM, buf) + 2;
    if (u->list_h < nrows) {
        snprintf(buf, sizeof buf, "lines %d-%d of %d", u->top + 1,
                 u->top + u->list_h < nrows ? u->top + u->list_h : nrows, nrows);
        x += cv_text(cv, 1, x, cv->cols - x, TR_WARN, buf) + 2;
    }
    snprintf(buf, sizeof buf, "every %gs", u->o->interval_s);
    cv_text(cv, 1, x, cv->cols - x, TR_DIM, buf);
}

static void draw_col_header(canvas *cv, const fleet_ui *u, const int *vis, int y)
{
    int x = 0;
    cv_fill(cv, y, 0, cv->cols, ' ', TR_HEADER);
    for (int c = 0; c < FC_COUNT; c++) {
        if (!vis[c])
            continue;
        char name[40], cell[64];
        snprintf(name, sizeof name, "%s%s", fleet_col_names[c],
                 (int)u->sort_col == c ? (u->sort_desc ? (cv->ascii ? "v" : "▼") : (cv->ascii ? "^" : "▲")) : "");
        int w = c == FC_JOB ? cv->cols - x : col_width[c];
        cv_text(cv, y, x, w, TR_HEADER, fmt_pad(cell, sizeof cell, name, w, col_right((fleet_col)c)));
        x += w + 1;
    }
}

static void draw_gpu_row(canvas *cv, const fleet_model *m, const fleet_ui *u, const fleet_row *r, const int *vis, int y,
                         int selected)
{
    const fleet_host *h = &m->hosts[r->host];
    char cells[FC_COUNT][200], cell[256];
    top_level temp_lvl = LVL_OK;
    int throttled = 0, x = 0;
    gpu_cells(h, r->gpu, u->o, cv->ascii, cells, &temp_lvl, &throttled);
    int stale = h->reach == HOST_DOWN || h->reach == HOST_SILENT; /* its GPUs as last read */
    theme_role base = selected ? TR_SELECTED : stale ? TR_DIM : TR_NORMAL;
    for (int c = 0; c < FC_COUNT; c++) {
        if (!vis[c])
            continue;
        int w = c == FC_JOB ? cv->cols - x : col_width[c];
        theme_role role = base;
        if (!selected && !stale) {
            if (c == FC_TEMP)
                role = role_of_level(temp_lvl);
            if (c == FC_THROTTLE && throttled)
                role = TR_WARN;
            if (c == FC_UTIL && h->gpus.gpus[r->gpu].lost)
                role = TR_CRIT;
            if (c == FC_TEMP && temp_lvl == LVL_OK)
                role = TR_NORMAL;
        }
        if (c == FC_THROTTLE) {
            char list[200];
            gw_strlcpy(list, cells[c], sizeof list);
            fmt_fit_list(cells[c], sizeof cells[c], list, w, "throttled");
        }
        if (fmt_cols(cells[c]) > w && c == FC_HOST) /* keep the port: it tells agents of one host apart */
            memmove(cells[c], cells[c] + strlen(cells[c]) - (size_t)w, (size_t)w + 1);
        cv_text(cv, y, x, w, role, fmt_pad(cell, sizeof cell, cells[c], w, col_right((fleet_col)c)));
        x += w + 1;
    }
}

/* A job's header: its name, and its GPUs on how many hosts (the lines under it, rows[at + 1...]). */
static void draw_job_row(canvas *cv, const fleet_ui *u, int at, char (*jobs)[FLEET_JOB_LEN], int y, int selected)
{
    int gpus = 0, hosts = 0;
    unsigned char seen[FLEET_MAX_HOSTS] = {0};
    for (int i = at + 1; i < u->nrows && u->rows[i].gpu >= 0; i++) {
        gpus++;
        hosts += !seen[u->rows[i].host];
        seen[u->rows[i].host] = 1;
    }
    const fleet_row *r = &u->rows[at];
    int x = cv_fmt(cv, y, 0, cv->cols, selected ? TR_SELECTED : TR_TITLE, "%s %s", cv->ascii ? "-" : "▪",
                   jobs[r->job][0] ? jobs[r->job] : "(no job)");
    cv_fmt(cv, y, x + 2, cv->cols - x - 2, selected ? TR_SELECTED : TR_DIM, "%d GPU%s on %d host%s", gpus,
           gpus == 1 ? "" : "s", hosts, hosts == 1 ? "" : "s");
}

static void draw_host_row(canvas *cv, const fleet_model *m, const fleet_row *r, int y, int selected)
{
    char title[300], state[400];
    const fleet_host *h = &m->hosts[r->host];
    host_title(h, title, sizeof title);
    top_level lvl = host_state(h, state, sizeof state);
    int x = cv_fmt(cv, y, 0, cv->cols, selected ? TR_SELECTED : TR_TITLE, "%s %s", cv->ascii ? "-" : "▪", title);
    x += 2;
    cv_text(cv, y, x, cv->cols - x, selected ? TR_SELECTED : lvl == LVL_OK ? TR_DIM : role_of_level(lvl), state);
}

/* "WARN 127.0.0.1:9401  input_stall  GPU 1  since ..." */
static void fleet_finding_line(const fleet_model *m, const fleet_finding *ff, uint64_t wall_us, char *out, size_t n)
{
    char line[800];
    const diag_finding *f = &m->hosts[ff->host].find.f[ff->i];
    finding_line(f, wall_us, line, sizeof line);
    const char *rest = strchr(line, ' ');
    snprintf(out, n, "%s %s  %.700s", finding_tag(f), m->hosts[ff->host].addr, rest ? rest + 1 : line);
}

/* Why there is no finding: waiting for the agents, none found, or none diagnose. */
static void findings_none(const fleet_model *m, char *out, size_t n)
{
    int ok = 0, off = 0, waiting = 0;
    if (m->engine[0]) {
        snprintf(out, n,
                 "none from an engine: it holds samples, not findings (gpuwatch diagnose --prometheus "
                 "diagnoses its history)");
        return;
    }
    for (int h = 0; h < m->nhosts; h++) {
        ok += m->hosts[h].fstate == FIND_OK;
        off += m->hosts[h].fstate == FIND_NOT_SERVED;
        waiting += m->hosts[h].fstate == FIND_WAITING;
    }
    if (ok)
        snprintf(out, n, "none on %d host%s (each agent diagnoses every minute)%s", ok, ok == 1 ? "" : "s",
                 off ? "; some agents do not diagnose (404 on /api/v1/findings)" : "");
    else if (waiting)
        snprintf(out, n, "reading the agents' findings...");
    else
        snprintf(out, n, "none: no agent answers /api/v1/findings%s", off ? " (diagnosis.enabled: false?)" : "");
}

static void draw_findings(canvas *cv, const fleet_model *m, int y, int h, uint64_t wall_us)
{
    char text[900];
    if (h <= 0)
        return;
    fleet_finding *ff = calloc((size_t)h + 1, sizeof *ff);
    int n = ff ? fleet_findings(m, ff, h + 1) : 0, total = 0;
    for (int k = 0; k < m->nhosts; k++)
        total += m->hosts[k].fstate == FIND_OK ? m->hosts[k].find.n : 0;
    if (n == 0) {
        int x = cv_text(cv, y, 0, cv->cols, TR_TITLE, "FINDINGS ");
        findings_none(m, text, sizeof text);
        cv_text(cv, y, x, cv->cols - x, TR_DIM, text);
        free(ff);
        return;
    }
    int shown = total > h ? h - 1 : total;
    for (int i = 0; i < shown && i < n; i++) {
        const diag_finding *f = &m->hosts[ff[i].host].find.f[ff[i].i];
        fleet_finding_line(m, &ff[i], wall_us, text, sizeof text);
        theme_role r = f->severity == DIAG_CRITICAL ? TR_CRIT : f->severity == DIAG_WARNING ? TR_WARN : TR_NORMAL;
        cv_text(cv, y + i, 0, cv->cols, r, text);
    }
    if (shown < total)
        cv_fmt(cv, y + shown, 0, cv->cols, TR_WARN, "+%d more finding%s (f: %s)", total - shown,
               total - shown == 1 ? "" : "s", h > FINDINGS_BASE ? "shrink" : "expand the list");
    free(ff);
}

static void draw_help(canvas *cv)
{
    static const char *const lines[] = {
        "gpuwatch top --hosts - keys                            any key closes this help",
        "  q F10       quit                      p space   pause / resume",
        "  up down     select a line (PgUp PgDn Home End)",
        "  Enter       the selected host in the single-host view (q there comes back)",
        "  s < > r     sort by the next / previous column, reverse",
        "  j           group the GPUs by host or by job (their processes' pod or job)",
        "  f           more / fewer lines for the findings",
        "marks",
        "  UNREACHABLE the agent does not answer: the reason, since when; read again",
        "              every interval, its GPUs dimmed as last read",
        "  LOST        the driver lost the GPU;  N/A  the GPU does not report the value",
        NULL,
    };
    for (int y = 0; lines[y] && y < cv->rows; y++)
        cv_text(cv, y, 0, cv->cols, y == 0 || lines[y][0] != ' ' ? TR_TITLE : TR_NORMAL, lines[y]);
}

static void draw_footer(canvas *cv, const fleet_ui *u, int y, uint64_t mono_us)
{
    cv_fill(cv, y, 0, cv->cols, ' ', TR_HEADER);
    if (u->msg[0] && mono_us < u->msg_until_us) {
        cv_text(cv, y, 0, cv->cols, role_of_level((top_level)u->msg_level), u->msg);
        return;
    }
    cv_text(cv, y, 0, cv->cols, TR_HEADER,
            "?:help q:quit p:pause Enter:open host s/</>:sort r:reverse j:host/job f:findings");
}

/* The rows for this screen into u->rows (grown as needed); 0, or -1 when out of memory. */
static int make_rows(fleet_model *m, fleet_ui *u, char (**jobs)[FLEET_JOB_LEN], int *njobs)
{
    int max = fleet_rows_max(m);
    if (max > u->rows_cap) {
        fleet_row *r = realloc(u->rows, (size_t)max * sizeof *r);
        if (!r)
            return -1;
        u->rows = r;
        u->rows_cap = max;
    }
    *jobs = calloc((size_t)max, FLEET_JOB_LEN);
    if (!*jobs)
        return -1;
    int n = fleet_rows(m, u->group, u->sort_col, u->sort_desc, u->rows, max, *jobs, max, njobs);
    u->nrows = n < 0 ? 0 : n;
    return n < 0 ? -1 : 0;
}

/* The selection follows its host and GPU (or job header) across a re-sort; the list scrolls to it. */
static void follow_selection(fleet_ui *u)
{
    for (int i = 0; i < u->nrows; i++)
        if (u->rows[i].host == u->sel_host && u->rows[i].gpu == u->sel_gpu && (u->sel_host >= 0 || i == u->sel)) {
            u->sel = i;
            break;
        }
    if (u->sel >= u->nrows)
        u->sel = u->nrows ? u->nrows - 1 : 0;
    if (u->sel < u->top)
        u->top = u->sel;
    if (u->list_h > 0 && u->sel >= u->top + u->list_h)
        u->top = u->sel - u->list_h + 1;
    if (u->top > u->nrows - u->list_h)
        u->top = u->nrows - u->list_h > 0 ? u->nrows - u->list_h : 0;
}

void fleet_draw(canvas *cv, fleet_model *m, fleet_ui *u, uint64_t mono_us, uint64_t wall_us)
{
    canvas_clear(cv);
    if (u->help) {
        draw_help(cv);
        return;
    }
    char(*jobs)[FLEET_JOB_LEN] = NULL;
    int njobs = 0, vis[FC_COUNT];
    pthread_mutex_lock(&m->lock);
    if (make_rows(m, u, &jobs, &njobs) != 0)
        fleet_ui_message(u, LVL_CRIT, "out of memory");
    int nfind = 0;
    for (int h = 0; h < m->nhosts; h++)
        nfind += m->hosts[h].fstate == FIND_OK ? m->hosts[h].find.n : 0;
    /* header 2, column header 1, footer 1; the findings 1 to 3 lines (half the screen with f) */
    int find_want = nfind ? nfind : 1;
    int find_max = u->findings_expanded ? (cv->rows - 4) / 2 : FINDINGS_BASE;
    int find_h = find_want < find_max ? find_want : find_max;
    if (cv->rows - 4 - find_h < 3)
        find_h = cv->rows - 4 - 3 > 0 ? 1 : 0;
    u->list_h = cv->rows - 4 - find_h;
    if (u->list_h < 0)
        u->list_h = 0;
    follow_selection(u);
    if (u->nrows && u->sel_host < 0 && u->sel_gpu < 0)
        select_row(u, u->sel);
    draw_header(cv, m, u, u->nrows, wall_us);
    fleet_visible_cols(cv->cols, vis);
    draw_col_header(cv, u, vis, 2);
    for (int i = 0; i < u->list_h && u->top + i < u->nrows; i++) {
        const fleet_row *r = &u->rows[u->top + i];
        int sel = u->top + i == u->sel;
        if (sel)
            cv_fill(cv, 3 + i, 0, cv->cols, ' ', TR_SELECTED);
        if (r->gpu < 0 && r->host < 0)
            draw_job_row(cv, u, u->top + i, jobs, 3 + i, sel);
        else if (r->gpu < 0)
            draw_host_row(cv, m, r, 3 + i, sel);
        else
            draw_gpu_row(cv, m, u, r, vis, 3 + i, sel);
    }
    draw_findings(cv, m, 3 + u->list_h, find_h, wall_us);
    pthread_mutex_unlock(&m->lock);
    free(jobs);
    draw_footer(cv, u, cv->rows - 1, mono_us);
}

/* ---- the snapshot ---- */

/* One line of the snapshot's table: every column, the job last. */
static void print_cells(FILE *f, const char *const *cells)
{
    for (int c = 0; c < FC_JOB; c++)
        fprintf(f, col_right((fleet_col)c) ? "%*s " : "%-*s ", col_width[c], cells[c]);
    fprintf(f, "%s\n", cells[FC_JOB]);
}

void fleet_snapshot(FILE *f, fleet_model *m, const top_opts *o)
{
    char when[32], title[300], state[400], text[900];
    clock_text(gw_now_us(), "%Y-%m-%d %H:%M:%S", when, sizeof when);
    pthread_mutex_lock(&m->lock);
    fprintf(f, "gpuwatch top  fleet: %d hosts  %s\n", m->nhosts, when);
    if (m->engine[0]) {
        engine_state(m, text, sizeof text);
        fprintf(f, "%s\n", text);
    }
    for (int h = 0; h < m->nhosts; h++) {
        const fleet_host *fh = &m->hosts[h];
        host_title(fh, title, sizeof title);
        host_state(fh, state, sizeof state);
        fprintf(f, "\n%s  %s\n", title, state);
        if (fh->gpus.n == 0)
            continue;
        print_cells(f, fleet_col_names);
        for (int g = 0; g < fh->gpus.n; g++) {
            char cells[FC_COUNT][200];
            top_level lvl;
            int throttled;
            const char *cell[FC_COUNT];
            gpu_cells(fh, g, o, o->ascii, cells, &lvl, &throttled);
            for (int c = 0; c < FC_COUNT; c++)
                cell[c] = cells[c];
            print_cells(f, cell);
        }
    }
    fprintf(f, "\nFINDINGS\n");
    int total = 0;
    for (int h = 0; h < m->nhosts; h++)
        total += m->hosts[h].fstate == FIND_OK ? m->hosts[h].find.n : 0;
    fleet_finding *ff = calloc((size_t)(total ? total : 1), sizeof *ff);
    int n = ff ? fleet_findings(m, ff, total) : 0;
    for (int i = 0; i < n; i++) {
        fleet_finding_line(m, &ff[i], gw_now_us(), text, sizeof text);
        fprintf(f, "%s\n", text);
    }
    if (n == 0) {
        findings_none(m, text, sizeof text);
        fprintf(f, "%s\n", text);
    }
    free(ff);
    pthread_mutex_unlock(&m->lock);
}
