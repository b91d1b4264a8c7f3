/* keys.c - what each key does to top's state (help, pause, interval, layout, GPU, sort,
 * filter, process selection and signals after a y/n confirmation). */
#include "top_keys.h"
#include "top_draw.h"
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const double intervals[] = {0.25, 0.5, 1, 2, 5, 10, 30, 60};
#define N_INTERVALS (int)(sizeof intervals / sizeof intervals[0])

int top_signal_process(unsigned pid, int sig, int remote, char *msg, size_t n)
{
    const char *name = sig == SIGKILL ? "SIGKILL" : "SIGTERM";
    char path[64];
    if (remote) {
        snprintf(msg, n, "%s not sent: pid %u runs on the remote host", name, pid);
        return LVL_WARN;
    }
    snprintf(path, sizeof path, "/proc/%u", pid);
    if (pid == 0 || access(path, F_OK) != 0) {
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

static void change_interval(top_ui *u, top_poller *p, int dir)
{
    int i = 0;
    while (i < N_INTERVALS - 1 && intervals[i] < u->o->interval_s)
        i++;
    if (intervals[i] != u->o->interval_s && dir < 0)
        i++; /* between two steps */
    i += dir;
    if (i < 0)
        i = 0;
    if (i >= N_INTERVALS)
        i = N_INTERVALS - 1;
    u->o->interval_s = intervals[i];
    if (p)
        top_poller_set_interval(p, u->o->interval_s);
    top_ui_message(u, LVL_OK, "refresh every %gs", u->o->interval_s);
}

static int filter_key(top_ui *u, int ch)
{
    size_t len = strlen(u->filter);
    if (ch == 27) {
        u->filter[0] = 0;
        u->editing_filter = 0;
    } else if (ch == '\n' || ch == '\r' || ch == KEY_ENTER)
        u->editing_filter = 0;
    else if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
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
    u->sel_pid = 0; /* the table re-reads the pid at the new row */
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

/* A click selects the GPU or the process under it. */
static int mouse_click(top_ui *u, int ngpus)
{
    MEVENT ev;
    if (getmouse(&ev) != OK || !(ev.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED)))
        return 0;
    const top_layout *l = &u->lay;
    int rows_y = l->proc_y + 2; /* title and column header first */
    if (l->proc_h > 2 && ev.y >= rows_y && ev.y < l->proc_y + l->proc_h) {
        u->sel_row = u->proc_top + (ev.y - rows_y);
        u->sel_pid = 0;
        return 1;
    }
    int first_y = l->gpu_y + (l->compact ? 1 : 0), per = l->compact ? 1 : l->gpu_lines;
    if (ev.y >= first_y && ev.y < l->gpu_y + l->gpu_h && per > 0) {
        int gpu = l->gpu_first + (ev.y - first_y) / per;
        select_gpu(u, gpu == u->sel_gpu ? -1 : gpu, ngpus);
        return 1;
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
            int lvl = top_signal_process(u->confirm_pid, u->confirm_sig, u->o->remote_on, msg, sizeof msg);
            top_ui_message(u, lvl, "%s", msg);
            if (p)
                top_poller_kick(p);
        } else {
            top_ui_message(u, LVL_OK, "no signal sent");
        }
        u->confirm_sig = 0;
        return 1;
    }
    if (u->editing_filter)
        return filter_key(u, ch);
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
        if (p)
            top_poller_pause(p, u->paused);
        break;
    case '+':
    case '=': change_interval(u, p, +1); break;
    case '-': change_interval(u, p, -1); break;
    case 'l':
        u->layout = (layout_pref)((u->layout + 1) % 3);
        top_ui_message(u, LVL_OK, "layout: %s",
                       u->layout == LAYOUT_AUTO   ? "auto"
                       : u->layout == LAYOUT_FULL ? "full"
                                                  : "compact");
        break;
    case 'c':
        u->chart = (chart_mode)((u->chart + 1) % CHART_MODES);
        top_ui_message(u, LVL_OK, "charts: %s",
                       u->chart == CHART_SELECTED ? "selected GPU"
                       : u->chart == CHART_ALL    ? "all GPUs"
                                                  : "off");
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
    case '>': u->sort_col = (proc_col)((u->sort_col + 1) % PC_COUNT); break;
    case '<': u->sort_col = (proc_col)((u->sort_col + PC_COUNT - 1) % PC_COUNT); break;
    case 'r': u->sort_desc = !u->sort_desc; break;
    case '/': u->editing_filter = 1; break;
    case 'k':
    case 'K':
        if (!u->sel_pid) {
            top_ui_message(u, LVL_WARN, "no process selected");
            break;
        }
        u->confirm_sig = ch == 'K' ? SIGKILL : SIGTERM;
        u->confirm_pid = u->sel_pid;
        break;
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
