/* top.c - the interactive loop: curses set-up, a refresh thread, and a poll() on the keyboard
 * and the thread's wake-up pipe. It redraws on new data, a key, a resize, a message expiring, or
 * when no data came for 1.5 intervals (so the clock moves and a stalled source shows STALE);
 * between those it sleeps (no busy loop). */
#include "top_run.h"
#include "top_draw.h"
#include "top_keys.h"
#include "util.h"
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <unistd.h>

static void curses_start(const top_opts *o)
{
    initscr();
    cbreak();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    nodelay(stdscr, TRUE);
    curs_set(0);
    set_escdelay(25);
    mousemask(BUTTON1_CLICKED | BUTTON1_PRESSED, NULL); /* click a GPU or a process to select it */
    mouseinterval(0);
    theme_init(o->no_color, o->ascii);
}

int top_run(top_source *src, top_model *m, top_opts *o)
{
    top_ui u;
    top_ui_init(&u, o);
    top_poller *p = top_poller_start(src, m, o->interval_s);
    if (!p) {
        fprintf(stderr, "gpuwatch top: cannot start the refresh thread\n");
        return 1;
    }
    curses_start(o);
    int dirty = 1;
    uint64_t msg_shown_until = 0, drawn_at = 0;
    while (!u.quit) {
        if (dirty) {
            draw_view(m, &u);
            refresh();
            dirty = 0;
            msg_shown_until = u.msg[0] ? u.msg_until_us : 0;
            drawn_at = gw_mono_us();
        }
        /* Wake up for the next deadline: a message to clear, or data that is late. */
        uint64_t now = gw_mono_us();
        uint64_t due = drawn_at + (uint64_t)(o->interval_s * 1.5e6);
        if (msg_shown_until && msg_shown_until < due)
            due = msg_shown_until;
        int timeout_ms = u.paused && !msg_shown_until ? -1 : due > now ? (int)((due - now) / 1000) + 1 : 0;
        struct pollfd fds[2] = {{.fd = STDIN_FILENO, .events = POLLIN}, {.fd = top_poller_fd(p), .events = POLLIN}};
        int r = poll(fds, 2, timeout_ms);
        if (r < 0 && errno != EINTR)
            break;
        if (r == 0) { /* a deadline passed */
            if (msg_shown_until && gw_mono_us() >= msg_shown_until)
                u.msg[0] = 0;
            dirty = 1;
            continue;
        }
        if (fds[1].revents & POLLIN) {
            top_poller_drain(p);
            if (!u.paused)
                dirty = 1;
        }
        /* Keys, and KEY_RESIZE after SIGWINCH (which interrupts poll). */
        int ch;
        while ((ch = getch()) != ERR) {
            int ngpus;
            pthread_mutex_lock(&m->lock);
            ngpus = m->ngpus;
            pthread_mutex_unlock(&m->lock);
            dirty |= top_handle_key(&u, ch, ngpus, p) || ch == KEY_RESIZE;
            if (u.quit)
                break;
        }
    }
    /* A GPU read in progress is not interrupted (NVML is not cancellable): say why we wait. */
    mvhline(LINES - 1, 0, ' ', COLS);
    mvaddstr(LINES - 1, 0, "stopping: waiting for the GPU read in progress...");
    refresh();
    top_poller_stop(p);
    endwin();
    delwin(stdscr);
    return 0;
}
