/* top.c - the interactive loop: curses set-up, a refresh thread, and a poll() on the keyboard
 * and the thread's wake-up pipe. It redraws only on new data, a key, a resize or a message
 * expiring; between those it sleeps (no busy loop). */
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
    mousemask(BUTTON1_CLICKED | BUTTON1_PRESSED, NULL);   /* click a GPU or a process to select it */
    mouseinterval(0);
    theme_init(o->no_color);
}

int top_run(top_source *src, top_model *m, top_opts *o)
{
    top_ui u;
    top_ui_init(&u, o);
    top_poller *p = top_poller_start(src, m, o->interval_s);
    if (!p) { fprintf(stderr, "gpuwatch top: cannot start the refresh thread\n"); return 1; }
    curses_start(o);
    int dirty = 1;
    uint64_t msg_shown_until = 0;
    while (!u.quit) {
        if (dirty) {
            draw_view(m, &u);
            refresh();
            dirty = 0;
            msg_shown_until = u.msg[0] ? u.msg_until_us : 0;
        }
        int timeout_ms = -1;
        if (msg_shown_until) {
            uint64_t now = gw_mono_us();
            timeout_ms = msg_shown_until > now ? (int)((msg_shown_until - now) / 1000) + 1 : 0;
        }
        struct pollfd fds[2] = {{.fd = STDIN_FILENO, .events = POLLIN}, {.fd = top_poller_fd(p), .events = POLLIN}};
        int r = poll(fds, 2, timeout_ms);
        if (r < 0 && errno != EINTR) break;
        if (r == 0) { u.msg[0] = 0; dirty = 1; continue; }   /* a message expired */
        if (fds[1].revents & POLLIN) {
            top_poller_drain(p);
            if (!u.paused) dirty = 1;
        }
        /* Keys, and KEY_RESIZE after SIGWINCH (which interrupts poll). */
        int ch;
        while ((ch = getch()) != ERR) {
            int ngpus;
            pthread_mutex_lock(&m->lock);
            ngpus = m->ngpus;
            pthread_mutex_unlock(&m->lock);
            dirty |= top_handle_key(&u, ch, ngpus, p) || ch == KEY_RESIZE;
            if (u.quit) break;
        }
    }
    top_poller_stop(p);
    endwin();
    delwin(stdscr);
    return 0;
}
