/* keys.c - top's interactive state and what each key does to it (help, pause, interval, layout,
 * charts, alerts, findings, GPU, sort, filter, process selection, tree, colours, ASCII), which of
 * those choices are preferences to save, and signals: `k` opens a menu of INT (a graceful stop that
 * lets a trainer checkpoint), TERM and KILL, y confirms. On simulated GPUs a signal only goes to
 * gpuwatch itself or its parent: a scenario's other pids are numbers that may belong to any process
 * of this host. */
#include "top_ui.h"
#include "util.h"
#include <ctype.h>
#include <errno.h>
#include <ncurses.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const double intervals[] = {0.25, 0.5, 1, 2, 5, 10, 30, 60};
#define N_INTERVALS (int)(sizeof intervals / sizeof intervals[0])

void top_ui_init(top_ui *u, top_opts *o)
{
    memset(u, 0, sizeof *u);
    u->o = o;
    u->layout = o->layout;
    u->chart = o->prefs ? o->prefs->chart : CHART_SELECTED;
    u->sel_gpu = -1;
    u->sort_col = o->prefs ? o->prefs->sort_col : PC_GPUMEM;
    u->sort_desc = o->prefs ? o->prefs->sort_desc : 1;
    u->remote = o->remote_on;
    u->clock_mono_us = gw_mono_us;
    u->clock_wall_us = gw_now_us;
}

/* The preferences a key can change. */
typedef enum { PREF_INTERVAL, PREF_LAYOUT, PREF_CHART, PREF_SORT, PREF_COLOR, PREF_ASCII } pref_key;

/* A key changed preference k: that one value goes into the file's values, to be saved. Only that
 * one: the others may hold what an option, NO_COLOR or the terminal chose for this run alone. */
static void prefs_changed(top_ui *u, pref_key k)
{
    top_prefs *p = u->o->prefs;
    if (!p)
        return;
    switch (k) {
    case PREF_INTERVAL: p->interval_s = u->o->interval_s; break;
    case PREF_LAYOUT: p->layout = u->layout; break;
    case PREF_CHART: p->chart = u->chart; break;
    case PREF_SORT:
        p->sort_col = u->sort_col;
        p->sort_desc = u->sort_desc;
        break;
    case PREF_COLOR: p->color = !u->o->no_color; break;
    case PREF_ASCII: p->ascii = u->o->ascii && !u->o->ascii_forced; break;
    }
    u->prefs_dirty = 1;
}

void top_ui_message(top_ui *u, int level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(u->msg, sizeof u->msg, fmt, ap);
    va_end(ap);
    u->msg_level = level;
    u->msg_until_us = u->clock_mono_us() + 5000000u;
}

void top_screen_time(const top_ui *u, uint64_t now_mono_us, uint64_t now_wall_us, uint64_t *mono_us, uint64_t *wall_us)
{
    *mono_us = u->paused ? u->paused_mono_us : now_mono_us;
    *wall_us = u->paused ? u->paused_wall_us : now_wall_us;
}

/* ---- signals ---- */

const char *top_signal_name(int sig)
{
    return sig == SIGINT ? "SIGINT" : sig == SIGKILL ? "SIGKILL" : sig == SIGTERM ? "SIGTERM" : "signal";
}

int top_signal_allowed(unsigned pid, sig_mode mode)
{
    if (mode == SIG_REMOTE || pid == 0)
        return 0;
    if (mode == SIG_SIMULATED)
        return pid == (unsigned)getpid() || pid == (unsigned)getppid();
    return 1;
}

int top_signal_process(unsigned pid, int sig, sig_mode mode, char *msg, size_t n)
{
    const char *name = top_signal_name(sig);
    char path[64];
    if (mode == SIG_REMOTE) {
        snprintf(msg, n, "%s not sent: pid %u runs on the remote host", name, pid);
        return LVL_WARN;
    }
    if (!top_signal_allowed(pid, mode)) {
        snprintf(msg, n, "simulated GPUs: no signal sent (pid %u is the scenario's, not a process of these GPUs)", pid);
        return LVL_WARN;
    }
    snprintf(path, sizeof path, "/proc/%u", pid);
    if (access(path, F_OK) != 0) {
        snprintf(msg, n, "%s not sent: pid %u is gone or not visible here (another pid namespace)", name, pid);
        return LVL_WARN;
    }
    if (kill((pid_t)pid, sig) == 0) {
        snprintf(msg, n, "%s sent to pid %u", name, pid);
        return LVL_OK;
    }
    if (errno == EPERM)
        snprintf(msg, n, "%s not permitted: pid %u belongs to another user (run gpuwatch as that user or root)", name,
                 pid);
    else if (errno == ESRCH)
        snprintf(msg, n, "%s not sent: pid %u is gone", name, pid);
    else
        snprintf(msg, n, "%s to pid %u failed: %s", name, pid, strerror(errno));
    return LVL_CRIT;
}

static sig_mode mode_of(const top_ui *u)
{
    return u->remote ? SIG_REMOTE : u->sim_guard ? SIG_SIMULATED : SIG_LOCAL;
}

/* k / K: the menu (or straight to the y/n question for K), unless no signal could go anywhere. */
static void signal_start(top_ui *u, int sig)
{
    char msg[200];
    if (!u->sel_pid) {
        top_ui_message(u, LVL_WARN, "no process selected");
        return;
    }
    if (!top_signal_allowed(u->sel_pid, mode_of(u))) {
        int lvl = top_signal_process(u->sel_pid, sig ? sig : SIGTERM, mode_of(u), msg, sizeof msg);
        top_ui_message(u, lvl, "%s", msg);
        return;
    }
    u->confirm_pid = u->sel_pid;
    snprintf(u->confirm_name, sizeof u->confirm_name, "%s", u->sel_name);
    if (sig)
        u->confirm_sig = sig;
    else
        u->sig_menu = 1;
}

static void signal_menu_key(top_ui *u, int ch)
{
    u->sig_menu = 0;
    if (ch == 'i' || ch == 'I')
        u->confirm_sig = SIGINT;
    else if (ch == 't' || ch == 'T' || ch == '\n' || ch == '\r' || ch == KEY_ENTER)
        u->confirm_sig = SIGTERM;
    else if (ch == 'K')
        u->confirm_sig = SIGKILL;
    else
        top_ui_message(u, LVL_OK, "no signal sent");
}

/* ---- keys ---- */

static const char *const layout_words[] = {"auto", "full", "compact"};

static void change_interval(top_ui *u, top_poller *p, int dir)
{
    double cur = u->o->interval_s;
    int i = 0;
    while (i < N_INTERVALS - 1 && intervals[i] < cur)
        i++;
    /* intervals[i] is the first step at or above cur; from between two steps (-d 0.3), + goes to
     * that step and - to the one below */
    i += intervals[i] == cur ? dir : dir > 0 ? (intervals[i] > cur ? 0 : 1) : -1;
    i = i < 0 ? 0 : i >= N_INTERVALS ? N_INTERVALS - 1 : i;
    if ((dir < 0 && intervals[i] > cur) || (dir > 0 && intervals[i] < cur)) {
        top_ui_message(u, LVL_OK, "refresh every %gs", cur); /* past the last step (-d 0.1 and -): it stays */
        return;
    }
    u->o->interval_s = intervals[i];
    if (p)
        top_poller_set_interval(p, u->o->interval_s);
    top_ui_message(u, LVL_OK, "refresh every %gs", u->o->interval_s);
    prefs_changed(u, PREF_INTERVAL);
}

/* `f`, then the keys of the findings list and of one finding's detail; returns 0 when the key is
 * not theirs. */
static int findings_key(top_ui *u, int ch)
{
    if (ch == 'f') {
        if (u->findings_off) {
            top_ui_message(u, LVL_WARN, "findings: diagnosis is off (diagnosis.enabled: false in top.yaml)");
            return 1;
        }
        u->findings_expanded = !(u->findings_expanded || u->fdetail);
        u->fdetail = 0;
        return 1;
    }
    if (u->fdetail) {
        switch (ch) {
        case KEY_UP: u->fdetail_top--; return 1;
        case KEY_DOWN: u->fdetail_top++; return 1;
        case KEY_PPAGE: u->fdetail_top -= 10; return 1;
        case KEY_NPAGE: u->fdetail_top += 10; return 1;
        case KEY_HOME: u->fdetail_top = 0; return 1;
        case KEY_LEFT:
        case KEY_RIGHT:
            u->fsel += ch == KEY_LEFT ? -1 : 1;
            u->fsel = u->fsel < 0 ? 0 : u->fsel;
            u->fsel_det[0] = 0; /* the panel takes the finding at the new index */
            u->fdetail_top = 0;
            return 1;
        case 27:
        case '\n':
        case '\r':
        case KEY_ENTER: u->fdetail = 0; return 1;
        default: return 0;
        }
    }
    if (!u->findings_expanded)
        return 0;
    switch (ch) {
    case KEY_UP:
    case KEY_DOWN:
    case KEY_PPAGE:
    case KEY_NPAGE:
        u->fsel += ch == KEY_UP ? -1 : ch == KEY_DOWN ? 1 : ch == KEY_PPAGE ? -10 : 10;
        u->fsel = u->fsel < 0 ? 0 : u->fsel;
        u->fsel_det[0] = 0;
        return 1;
    case '\n':
    case '\r':
    case KEY_ENTER:
        u->fdetail = 1;
        u->fdetail_top = 0;
        return 1;
    case 27: u->findings_expanded = 0; return 1;
    default: return 0;
    }
}

static int filter_key(top_ui *u, int ch)
{
    size_t len = strlen(u->filter);
    if (ch == 27) {
        u->filter[0] = 0;
        u->editing_filter = 0;
    } else if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
        u->editing_filter = 0;
    } else if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
        if (len)
            u->filter[len - 1] = 0;
    } else if (ch >= 32 && ch < 127 && len + 1 < sizeof u->filter) {
        u->filter[len] = (char)ch;
        u->filter[len + 1] = 0;
    }
    u->sel_row = 0;
    u->sel_pid = 0;
    return 1;
}

static void move_selection(top_ui *u, int delta)
{
    u->sel_pid = 0; /* the table reads the pid at the new row */
    u->sel_row += delta;
    if (u->sel_row < 0)
        u->sel_row = 0;
}

static void select_gpu(top_ui *u, int gpu, int ngpus)
{
    if (gpu >= ngpus) {
        top_ui_message(u, LVL_WARN, "no GPU %d (there are %d)", gpu, ngpus);
        return;
    }
    u->sel_gpu = gpu;
    u->sel_row = 0;
    u->sel_pid = 0;
}

static void toggle_tree(top_ui *u)
{
    if (u->tree) {
        u->tree = 0;
        return;
    }
    if (u->remote) {
        top_ui_message(u, LVL_WARN, "process tree: only for this machine's processes (not with --host)");
        return;
    }
    if (!u->sel_pid) {
        top_ui_message(u, LVL_WARN, "no process selected");
        return;
    }
    u->tree = 1;
    u->tree_pid = u->sel_pid;
    u->tree_n = 0;
    u->tree_read_us = 0; /* read at the next draw */
}

/* A click selects the GPU or the process under it. */
static int mouse_click(top_ui *u, int ngpus)
{
    MEVENT ev;
    if (getmouse(&ev) != OK || !(ev.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED)))
        return 0;
    const top_layout *l = &u->lay;
    int rows_y = l->proc_y + 2; /* title and column header first */
    if (!u->tree && l->proc_h > 2 && ev.y >= rows_y && ev.y < l->proc_y + l->proc_h) {
        u->sel_row = u->proc_top + (ev.y - rows_y);
        u->sel_pid = 0;
        return 1;
    }
    /* The GPU whose lines hold the click (a full panel may have a wrapped figures line). */
    int y = l->gpu_y + (l->compact ? 1 : 0);
    for (int i = l->gpu_first; i < l->gpu_first + l->gpu_shown && ev.y >= y; i++) {
        int h = l->compact ? 1 : l->gpu_lines + u->gpu_extra[i];
        if (ev.y < y + h) {
            select_gpu(u, i == u->sel_gpu ? -1 : i, ngpus);
            return 1;
        }
        y += h;
    }
    return 0;
}

int top_handle_key(top_ui *u, int ch, int ngpus, top_poller *p)
{
    if (u->help) {
        u->help = 0;
        return 1;
    }
    if (u->confirm_sig) {
        if (ch == 'y' || ch == 'Y') {
            char msg[200];
            int lvl = top_signal_process(u->confirm_pid, u->confirm_sig, mode_of(u), msg, sizeof msg);
            top_ui_message(u, lvl, "%s", msg);
            if (p)
                top_poller_kick(p);
        } else {
            top_ui_message(u, LVL_OK, "no signal sent");
        }
        u->confirm_sig = 0;
        return 1;
    }
    if (u->sig_menu) {
        signal_menu_key(u, ch);
        return 1;
    }
    if (u->editing_filter)
        return filter_key(u, ch);
    if (u->tree && (ch == 27 || ch == 't')) {
        u->tree = 0;
        return 1;
    }
    if (findings_key(u, ch))
        return 1;
    switch (ch) {
    case 'q':
    case 'Q':
    case KEY_F(10): u->quit = 1; break;
    case '?':
    case 'h':
    case KEY_F(1): u->help = 1; break;
    case 'p':
    case ' ':
        u->paused = !u->paused;
        u->paused_mono_us = u->clock_mono_us();
        u->paused_wall_us = u->clock_wall_us();
        if (p)
            top_poller_pause(p, u->paused);
        break;
    case '+':
    case '=': change_interval(u, p, +1); break;
    case '-': change_interval(u, p, -1); break;
    case 'l':
        u->layout = (layout_pref)((u->layout + 1) % 3);
        top_ui_message(u, LVL_OK, "layout: %s", layout_words[u->layout]);
        prefs_changed(u, PREF_LAYOUT);
        break;
    case 'c':
        u->chart = (chart_mode)((u->chart + 1) % CHART_MODES);
        u->chart_said = 1;
        if (u->chart != CHART_OFF && (u->alerts_expanded || u->findings_expanded))
            top_ui_message(u, LVL_WARN, "charts hidden while the %s list is expanded (%s shrinks it)",
                           u->alerts_expanded ? "alert" : "findings", u->alerts_expanded ? "e" : "f");
        else
            top_ui_message(u, LVL_OK, "charts: %s",
                           u->chart == CHART_SELECTED ? "selected GPU"
                           : u->chart == CHART_ALL    ? "all GPUs"
                                                      : "off");
        prefs_changed(u, PREF_CHART);
        break;
    case 'C':
        u->o->no_color = !u->o->no_color;
        u->restyle = 1;
        top_ui_message(u, LVL_OK, "colours %s", u->o->no_color ? "off" : "on");
        prefs_changed(u, PREF_COLOR);
        break;
    case 'A':
        if (u->o->ascii && u->o->ascii_forced) {
            top_ui_message(u, LVL_WARN, "ASCII stays: this terminal or locale cannot show Unicode");
            break;
        }
        u->o->ascii = !u->o->ascii;
        u->restyle = 1;
        top_ui_message(u, LVL_OK, "ASCII %s", u->o->ascii ? "on" : "off");
        prefs_changed(u, PREF_ASCII);
        break;
    case 'e':
        u->alerts_expanded = !u->alerts_expanded;
        top_ui_message(u, LVL_OK, "alert list: %s", u->alerts_expanded ? "expanded" : "normal");
        break;
    case 'g': select_gpu(u, u->sel_gpu + 1 >= ngpus ? -1 : u->sel_gpu + 1, ngpus); break;
    case 'a': select_gpu(u, -1, ngpus); break;
    case KEY_UP: move_selection(u, -1); break;
    case KEY_DOWN: move_selection(u, +1); break;
    case KEY_PPAGE: move_selection(u, -10); break;
    case KEY_NPAGE: move_selection(u, +10); break;
    case KEY_HOME: move_selection(u, -1000000); break;
    case KEY_END: move_selection(u, +1000000); break;
    case 's':
    case KEY_F(6):
    case '>':
        u->sort_col = (proc_col)((u->sort_col + 1) % PC_COUNT);
        prefs_changed(u, PREF_SORT);
        break;
    case '<':
        u->sort_col = (proc_col)((u->sort_col + PC_COUNT - 1) % PC_COUNT);
        prefs_changed(u, PREF_SORT);
        break;
    case 'r':
        u->sort_desc = !u->sort_desc;
        prefs_changed(u, PREF_SORT);
        break;
    case '/': u->editing_filter = 1; break;
    case 't': toggle_tree(u); break;
    case 'k': signal_start(u, 0); break;
    case 'K': signal_start(u, SIGKILL); break;
    case KEY_RESIZE: break;
    case KEY_MOUSE: return mouse_click(u, ngpus);
    default:
        if (isdigit(ch)) {
            select_gpu(u, ch - '0', ngpus);
            break;
        }
        return 0;
    }
    return 1;
}
