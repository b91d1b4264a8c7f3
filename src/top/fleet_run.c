/* fleet_run.c - `top --hosts`: the fleet source started, then the screen (or one snapshot when not
 * on a terminal). The loop sleeps in poll() on the keyboard and the readers' pipe and draws on a
 * key, a resize, a message expiring, or new data (at most 5 frames a second however many agents
 * answer; at least every 1.5 intervals, so that the clock moves). Enter on a host runs the
 * single-host view of it (`gpuwatch top --host HOST:PORT`, this program with the same connection
 * options) on the terminal, and its q comes back to the fleet. */
#include "top_fleet.h"
#include "http_client.h"
#include "util.h"
#include <errno.h>
#include <ncurses.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define FRAME_MIN_US 200000u /* new data draws at most this often */

/* Each request's bound: an agent that does not answer in it is unreachable for that round. */
static double request_timeout(double interval_s)
{
    return interval_s < 2 ? 2 : interval_s > 10 ? 10 : interval_s;
}

/* The single-host view of addr, with this run's connection and display options; its exit status. */
static int run_single(top_term *t, const top_opts *o, const char *addr)
{
    char interval[32];
    const char *argv[24];
    int n = 0;
    snprintf(interval, sizeof interval, "%g", o->interval_s);
    argv[n++] = "gpuwatch";
    argv[n++] = "top";
    argv[n++] = "--host";
    argv[n++] = addr;
    argv[n++] = "--interval";
    argv[n++] = interval;
    if (o->remote.tls)
        argv[n++] = "--tls";
    if (o->remote.insecure)
        argv[n++] = "--insecure";
    if (o->remote.cacert) {
        argv[n++] = "--cacert";
        argv[n++] = o->remote.cacert;
    }
    if (o->remote.user && o->remote.password_file) {
        argv[n++] = "--user";
        argv[n++] = o->remote.user;
        argv[n++] = "--password-file";
        argv[n++] = o->remote.password_file;
    }
    if (o->ascii && !o->ascii_forced)
        argv[n++] = "--ascii";
    if (o->no_color)
        argv[n++] = "--no-color";
    argv[n] = NULL;
    struct sigaction ign = {.sa_handler = SIG_IGN}, old_int, old_quit;
    top_term_suspend(t);
    /* Ctrl-C on the terminal is for the view in front, not for the fleet behind it. */
    sigaction(SIGINT, &ign, &old_int);
    sigaction(SIGQUIT, &ign, &old_quit);
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGINT, SIG_DFL);
        signal(SIGQUIT, SIG_DFL);
        execv("/proc/self/exe", (char *const *)argv);
        _exit(127);
    }
    int status = -1;
    while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    top_term_resume(t);
    if (pid < 0)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/* Enter on a host: its view, unless it is known to be down. */
static void open_host(top_term *t, fleet_model *m, fleet_ui *u, const top_opts *o)
{
    char addr[FLEET_ADDR_LEN], why[300], text[600];
    pthread_mutex_lock(&m->lock);
    const fleet_host *h = &m->hosts[u->open_host];
    int down = h->reach == HOST_DOWN || h->reach == HOST_SILENT;
    gw_strlcpy(addr, h->addr, sizeof addr);
    gw_strlcpy(why, h->why, sizeof why);
    pthread_mutex_unlock(&m->lock);
    u->open_host = -1;
    if (!down && m->engine[0] && http_client_valid_host(addr, why, sizeof why) != 0) {
        snprintf(text, sizeof text, "%s: no agent's HOST:PORT to open (an engine's instance label)", addr);
        fleet_ui_message(u, LVL_WARN, text);
        return;
    }
    if (down) {
        snprintf(text, sizeof text, "%s is unreachable (%s): nothing to open", addr, why);
        fleet_ui_message(u, LVL_WARN, text);
        return;
    }
    int rc = run_single(t, o, addr);
    if (rc != 0) {
        snprintf(text, sizeof text, "the view of %s ended with status %d", addr, rc);
        fleet_ui_message(u, LVL_WARN, text);
    }
}

/* Applies the keys waiting; returns 1 when the screen changed. */
static int read_keys(top_term *t, fleet_model *m, fleet_ui *u, fleet_source *src, const top_opts *o, int *failed)
{
    int ch, dirty = 0;
    while (!u->quit && (ch = getch()) != ERR) {
        int paused = u->paused;
        if (ch == KEY_RESIZE && top_term_resize(t) != 0) {
            u->quit = 1;
            *failed = 1;
        }
        if (ch == 12) /* Ctrl-L: the whole screen again */
            top_term_forget(t);
        dirty |= fleet_handle_key(u, ch) || ch == KEY_RESIZE || ch == 12;
        if (paused != u->paused)
            fleet_source_pause(src, u->paused);
        if (u->open_host >= 0) {
            open_host(t, m, u, o);
            dirty = 1;
        }
    }
    return dirty;
}

static int run_screen(fleet_model *m, fleet_source *src, top_opts *o)
{
    fleet_ui u;
    fleet_ui_init(&u, o);
    top_term *t = top_term_start(o);
    if (!t) {
        fprintf(stderr, "gpuwatch top: cannot use this terminal\n");
        return 1;
    }
    int failed = 0, dirty = 1;
    uint64_t drawn_at = 0;
    while (!u.quit) {
        uint64_t now = gw_mono_us();
        if (dirty && now >= drawn_at + FRAME_MIN_US) {
            fleet_draw(top_term_canvas(t), m, &u, now, gw_now_us());
            top_term_flush(t);
            dirty = 0;
            drawn_at = now;
        }
        uint64_t due = dirty ? drawn_at + FRAME_MIN_US : drawn_at + (uint64_t)(o->interval_s * 1.5e6);
        if (!dirty && u.msg_until_us && u.msg_until_us < due)
            due = u.msg_until_us;
        int timeout_ms = u.paused && !dirty && !u.msg_until_us ? -1 : due > now ? (int)((due - now) / 1000) + 1 : 0;
        struct pollfd fds[2] = {{.fd = STDIN_FILENO, .events = POLLIN}, {.fd = fleet_source_fd(src), .events = POLLIN}};
        int r = poll(fds, 2, timeout_ms);
        if (r < 0 && errno != EINTR)
            break;
        if (r == 0) {
            if (u.msg_until_us && gw_mono_us() >= u.msg_until_us)
                u.msg[0] = 0, u.msg_until_us = 0;
            dirty = 1;
        }
        if (r > 0 && (fds[1].revents & POLLIN)) {
            fleet_source_drain(src);
            dirty |= !u.paused;
        }
        if (read_keys(t, m, &u, src, o, &failed)) {
            dirty = 1;
            drawn_at = 0; /* a key shows at once */
        }
    }
    top_term_stop(t);
    fleet_ui_free(&u);
    return failed;
}

/* Waits for every agent's first read (each bounded by its timeout), then prints them. */
static int snapshot(fleet_model *m, fleet_source *src, const top_opts *o)
{
    uint64_t end = gw_mono_us() + (uint64_t)((request_timeout(o->interval_s) * 3 + 5) * 1e6);
    while (fleet_source_rounds_done(src) < fleet_source_readers(src) && gw_mono_us() < end) {
        struct timespec ts = {0, 20000000};
        nanosleep(&ts, NULL);
    }
    fleet_snapshot(stdout, m, o);
    int up = 0;
    pthread_mutex_lock(&m->lock);
    for (int h = 0; h < m->nhosts; h++)
        up += m->hosts[h].reach == HOST_UP;
    pthread_mutex_unlock(&m->lock);
    return up ? 0 : 1;
}

/* The screen or the snapshot of m, read by src (NULL: err says why it did not start). */
static int fleet_show(fleet_model *m, fleet_source *src, top_opts *o, const char *err)
{
    if (!src) {
        fprintf(stderr, "gpuwatch top: %s\n", err);
        fleet_model_free(m);
        return 1;
    }
    int rc = o->once ? snapshot(m, src, o) : run_screen(m, src, o);
    fleet_source_stop(src);
    fleet_model_free(m);
    return rc;
}

int fleet_main(top_opts *o, const fleet_hosts *h)
{
    fleet_model m;
    char err[512] = "";
    if (fleet_model_init(&m, h) != 0) {
        fprintf(stderr, "gpuwatch top: out of memory\n");
        return 1;
    }
    return fleet_show(
        &m, fleet_source_start(&m, &o->remote, o->interval_s, request_timeout(o->interval_s), err, sizeof err), o, err);
}

int fleet_main_engine(top_opts *o)
{
    fleet_model m;
    char err[512] = "";
    if (fleet_model_init_engine(&m, o->prometheus) != 0) {
        fprintf(stderr, "gpuwatch top: out of memory\n");
        return 1;
    }
    fleet_source *src = fleet_source_start_engine(&m, o->prometheus, o->match, &o->remote, o->interval_s,
                                                  request_timeout(o->interval_s), err, sizeof err);
    return fleet_show(&m, src, o, err);
}
