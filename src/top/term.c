/* term.c - the terminal side of top and its interactive loop.
 *
 * curses sets the terminal up (modes, keypad, mouse) and reads keys. The screen itself is written
 * here: each frame is drawn into a canvas, and only the runs of cells that differ from the frame
 * before are sent, as terminfo cursor addressing, one precomputed attribute sequence per theme role
 * and UTF-8 text, in a single write. (curses's own update compared and re-optimised every cursor
 * move of every frame, and wrote each move separately: most of top's CPU time.)
 *
 * The loop sleeps in poll() on the keyboard and the refresh thread's pipe, and draws on new data, a
 * key, a resize (SIGWINCH interrupts poll; one that came outside it is seen at the next wake-up),
 * a message expiring, or when no data came for 1.5 intervals (so the clock moves and a stalled
 * source shows STALE). No busy loop. Ctrl-L (or a resume after Ctrl-Z) sends the whole screen
 * again. A preference changed by a key is saved at once (prefs.c); colours and ASCII switched by a
 * key remake the theme and send the whole screen. */
#include "top_ui.h"
#include "text.h"
#include "util.h"
#include <errno.h>
#include <ncurses.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <term.h>
#include <unistd.h>

/* ---- output ---- */

typedef struct tout {
    char *buf;
    size_t len, cap;
    char role[TR_ROLES][64]; /* the attribute sequence of each role, from a reset */
    const char *cup;
    int ansi_cup;  /* cup is ESC [ row ; col H (counted from 1): written without tiparm */
    int skip_last; /* auto margins without xenl: the bottom-right cell would scroll the screen */
    int cur_role;  /* in effect now; -1: not known */
} tout;

static tout *capture; /* where tputs' characters go */

static void out_add(tout *t, const char *s, size_t n)
{
    if (t->len + n > t->cap) {
        size_t cap = t->cap ? t->cap : 4096;
        while (cap < t->len + n)
            cap *= 2;
        char *b = realloc(t->buf, cap);
        if (!b)
            return; /* the frame is cut short; the next one sends the rest */
        t->buf = b;
        t->cap = cap;
    }
    memcpy(t->buf + t->len, s, n);
    t->len += n;
}

static int out_putc(int c)
{
    char ch = (char)c;
    out_add(capture, &ch, 1);
    return c;
}

/* A terminfo string (with its padding, if any) into t. */
static void out_cap(tout *t, const char *cap)
{
    if (cap && cap != (const char *)-1) {
        capture = t;
        tputs(cap, 1, out_putc);
    }
}

static void out_flush(tout *t)
{
    size_t off = 0;
    while (off < t->len) {
        ssize_t w = write(STDOUT_FILENO, t->buf + off, t->len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        off += (size_t)w;
    }
    t->len = 0;
}

static const char *cap_str(const char *name)
{
    char *s = tigetstr(name);
    return s == (char *)-1 ? NULL : s;
}

/* The theme: each role's attributes and colours (or only bold/reverse/dim without colour). */
static void theme_init(tout *t, int no_color)
{
    static const struct {
        theme_role r;
        int bold, rev, dim;
        short fg, bg; /* -1: the terminal's default */
    } pal[] = {
        {TR_NORMAL, 0, 0, 0, -1, -1},
        {TR_TITLE, 1, 0, 0, COLOR_CYAN, -1},
        {TR_BANNER, 1, 1, 0, COLOR_BLACK, COLOR_YELLOW},
        {TR_DIM, 0, 0, 1, -1, -1},
        {TR_OK, 0, 0, 0, COLOR_GREEN, -1},
        {TR_WARN, 1, 0, 0, COLOR_YELLOW, -1},
        {TR_CRIT, 1, 1, 0, COLOR_WHITE, COLOR_RED},
        {TR_BAR_UTIL, 0, 0, 0, COLOR_GREEN, -1},
        {TR_BAR_MEM, 0, 0, 0, COLOR_CYAN, -1},
        {TR_SERIES_A, 0, 0, 0, COLOR_GREEN, -1},
        {TR_SERIES_B, 0, 0, 0, COLOR_MAGENTA, -1},
        {TR_SELECTED, 0, 1, 0, -1, -1},
        {TR_HEADER, 0, 1, 0, COLOR_BLACK, COLOR_CYAN},
    };
    const char *setaf = cap_str("setaf"), *setab = cap_str("setab");
    int colors = !no_color && setaf && setab && tigetnum("colors") >= 8;
    for (size_t i = 0; i < sizeof pal / sizeof pal[0]; i++) {
        tout s = {0};
        out_cap(&s, cap_str("sgr0"));
        /* With colours, a colour replaces reverse video (the header's black on cyan). */
        int rev = pal[i].rev && !(colors && pal[i].bg >= 0);
        if (pal[i].bold)
            out_cap(&s, cap_str("bold"));
        if (rev)
            out_cap(&s, cap_str("rev"));
        if (pal[i].dim)
            out_cap(&s, cap_str("dim"));
        if (colors && pal[i].fg >= 0)
            out_cap(&s, tiparm(setaf, pal[i].fg));
        if (colors && pal[i].bg >= 0)
            out_cap(&s, tiparm(setab, pal[i].bg));
        size_t n = s.len < sizeof t->role[0] - 1 ? s.len : sizeof t->role[0] - 1;
        memcpy(t->role[pal[i].r], s.buf ? s.buf : "", n);
        t->role[pal[i].r][n] = 0;
        free(s.buf);
    }
}

/* ---- frames ---- */

/* The frame being drawn and the one the terminal shows (a cell of 0: not known, sent again). */
typedef struct frames {
    canvas cur, shown;
    tout out;
} frames;

static void frames_forget(frames *f)
{
    for (size_t i = 0; i < (size_t)f->shown.rows * (size_t)f->shown.cols; i++)
        f->shown.cells[i].ch = 0;
    f->out.cur_role = -1;
}

static int frames_size(frames *f, int ascii)
{
    if (canvas_resize(&f->cur, LINES, COLS) != 0 || canvas_resize(&f->shown, LINES, COLS) != 0)
        return -1;
    f->cur.ascii = ascii;
    frames_forget(f);
    return 0;
}

/* One cell as UTF-8. */
static void out_cell(tout *t, uint32_t cp)
{
    char u[4];
    out_add(t, u, gw_utf8_put(cp, u));
}

/* v in decimal at out; returns the digits written (at most 10). */
static size_t put_uint(char *out, unsigned v)
{
    char d[10];
    size_t n = 0;
    do {
        d[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (size_t i = 0; i < n; i++)
        out[i] = d[n - 1 - i];
    return n;
}

/* Cursor to (y, first), then the cells of the run, switching attributes only where roles change. */
static void send_run(frames *f, int y, int first, int last)
{
    tout *t = &f->out;
    const canvas *c = &f->cur;
    const tcell *row = c->cells + (size_t)y * (size_t)c->cols;
    if (t->skip_last && y == c->rows - 1 && last == c->cols - 1 && --last < first)
        return;
    if (t->ansi_cup) {
        char seq[32];
        size_t n = 0;
        seq[n++] = 27;
        seq[n++] = '[';
        n += put_uint(seq + n, (unsigned)y + 1);
        seq[n++] = ';';
        n += put_uint(seq + n, (unsigned)first + 1);
        seq[n++] = 'H';
        out_add(t, seq, n);
    } else {
        out_cap(t, tiparm(t->cup, y, first));
    }
    int prev_wide = 0;
    for (int x = first; x <= last; x++) {
        uint32_t cp = row[x].ch;
        if (cp == CELL_WIDE_TAIL) {
            if (prev_wide) {
                prev_wide = 0;
                continue; /* the terminal filled it with the wide character */
            }
            cp = ' ';
        }
        prev_wide = cp >= 0x1100 && fmt_cp_cols(cp) == 2;
        int role = row[x].role < TR_ROLES ? (int)row[x].role : TR_NORMAL;
        if (role != t->cur_role) {
            out_add(t, t->role[role], strlen(t->role[role]));
            t->cur_role = role;
        }
        out_cell(t, cp);
    }
    memcpy(f->shown.cells + (size_t)y * (size_t)c->cols + first, row + first, (size_t)(last - first + 1) * sizeof *row);
}

/* Sends the runs of cells that changed since the last frame (a gap of a few unchanged cells is sent
 * along rather than jumped over), in one write. */
static void flush(frames *f)
{
    size_t row_bytes = (size_t)f->cur.cols * sizeof *f->cur.cells;
    for (int y = 0; y < f->cur.rows; y++) {
        int first, last = -1;
        if (memcmp(cv_cell(&f->cur, y, 0), cv_cell(&f->shown, y, 0), row_bytes) == 0)
            continue; /* most rows are as they were */
        while (cv_row_run(&f->cur, &f->shown, y, last + 1, 4, &first, &last))
            send_run(f, y, first, last);
    }
    out_flush(&f->out);
}

static void draw(frames *f, top_model *m, top_ui *u)
{
    uint64_t mono, wall;
    top_screen_time(u, gw_mono_us(), gw_now_us(), &mono, &wall);
    view_draw(&f->cur, m, u, mono, wall);
    flush(f);
}

/* ---- set-up and loop ---- */

static volatile sig_atomic_t resumed;

static void on_cont(int sig)
{
    (void)sig;
    resumed = 1;
}

static int curses_start(frames *f, const top_opts *o)
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
    refresh(); /* curses enters its screen mode (alternate screen, keypad) and clears it */
    f->out.cup = cap_str("cup");
    f->out.ansi_cup = f->out.cup && strcmp(f->out.cup, "\033[%i%p1%d;%p2%dH") == 0;
    f->out.skip_last = tigetflag("am") > 0 && tigetflag("xenl") <= 0;
    theme_init(&f->out, o->no_color);
    signal(SIGCONT, on_cont);
    return f->out.cup ? frames_size(f, o->ascii) : -1;
}

static void curses_stop(frames *f)
{
    out_cap(&f->out, cap_str("sgr0"));
    if (f->out.cup)
        out_cap(&f->out, tiparm(f->out.cup, LINES - 1, 0));
    out_flush(&f->out);
    endwin();
    delwin(stdscr);
    canvas_free(&f->cur);
    canvas_free(&f->shown);
    free(f->out.buf);
}

/* Saves the preferences a key changed; a problem is said once on the screen. */
static void save_prefs(top_ui *u)
{
    char why[600];
    u->prefs_dirty = 0;
    const top_opts *o = u->o;
    if (!o->prefs)
        return;
    if (!o->prefs_path) {
        if (o->prefs_note[0])
            top_ui_message(u, LVL_WARN, "preferences not saved: the file has problems (fix or remove it)");
        else if (o->prefs_unsaved[0] && !u->prefs_unsaved_said)
            top_ui_message(u, LVL_WARN, "%s", o->prefs_unsaved);
        u->prefs_unsaved_said = 1;
        return;
    }
    if (top_prefs_write(o->prefs_path, o->prefs, why, sizeof why) != 0)
        top_ui_message(u, LVL_WARN, "preferences not saved: %s", why);
}

int top_run(top_source *src, top_model *m, top_opts *o)
{
    top_ui u;
    top_ui_init(&u, o);
    pthread_mutex_lock(&m->lock);
    u.sim_guard = m->versions.simulated && !m->remote;
    u.findings_off = m->find.state == FIND_OFF;
    pthread_mutex_unlock(&m->lock);
    if (o->prefs_note[0]) {
        top_ui_message(&u, LVL_WARN, "%s", o->prefs_note);
        u.msg_until_us = u.clock_mono_us() + 15000000u; /* a problem with the user's file: long enough to read */
    }
    top_poller *p = top_poller_start(src, m, o->interval_s);
    if (!p) {
        fprintf(stderr, "gpuwatch top: cannot start the refresh thread\n");
        return 1;
    }
    frames f = {0};
    int rc = 0, dirty = 1;
    if (curses_start(&f, o) != 0) {
        u.quit = 1;
        rc = 1;
    }
    uint64_t msg_shown_until = 0, drawn_at = 0;
    while (!u.quit) {
        if (resumed) {
            resumed = 0;
            frames_forget(&f); /* curses cleared the screen when it came back */
            dirty = 1;
        }
        if (dirty) {
            draw(&f, m, &u);
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
        }
        if (r > 0 && (fds[1].revents & POLLIN)) {
            top_poller_drain(p);
            if (!u.paused)
                dirty = 1;
        }
        /* Keys, and KEY_RESIZE after SIGWINCH, asked for on every wake-up: a SIGWINCH that came
         * while this thread was drawing (or to another thread) interrupted no poll, and would wait
         * for the next key otherwise. */
        int ch;
        while ((ch = getch()) != ERR) {
            int ngpus;
            pthread_mutex_lock(&m->lock);
            ngpus = m->ngpus;
            pthread_mutex_unlock(&m->lock);
            if (ch == KEY_RESIZE && frames_size(&f, o->ascii) != 0) {
                u.quit = 1;
                rc = 1;
            }
            if (ch == 12) /* Ctrl-L: the whole screen again */
                frames_forget(&f);
            dirty |= top_handle_key(&u, ch, ngpus, p) || ch == KEY_RESIZE || ch == 12;
            if (u.restyle) {
                u.restyle = 0;
                theme_init(&f.out, o->no_color);
                if (frames_size(&f, o->ascii) != 0) {
                    u.quit = 1;
                    rc = 1;
                }
            }
            if (u.prefs_dirty)
                save_prefs(&u);
            if (u.quit)
                break;
        }
    }
    /* A GPU read in progress is not interrupted (NVML is not cancellable): say why we wait. */
    if (f.cur.rows > 0) {
        cv_fill(&f.cur, f.cur.rows - 1, 0, f.cur.cols, ' ', TR_NORMAL);
        cv_text(&f.cur, f.cur.rows - 1, 0, f.cur.cols, TR_NORMAL, "stopping: waiting for the GPU read in progress...");
        flush(&f);
    }
    top_poller_stop(p);
    curses_stop(&f);
    return rc;
}

/* ---- the terminal for another screen (top --hosts) ---- */

struct top_term {
    frames f;
    const top_opts *o;
};

top_term *top_term_start(const top_opts *o)
{
    top_term *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->o = o;
    if (curses_start(&t->f, o) != 0) {
        curses_stop(&t->f);
        free(t);
        return NULL;
    }
    return t;
}

canvas *top_term_canvas(top_term *t)
{
    return &t->f.cur;
}

void top_term_flush(top_term *t)
{
    if (resumed) {
        resumed = 0;
        frames_forget(&t->f); /* curses cleared the screen when it came back */
    }
    flush(&t->f);
}

int top_term_resize(top_term *t)
{
    return frames_size(&t->f, t->o->ascii);
}

void top_term_forget(top_term *t)
{
    frames_forget(&t->f);
}

void top_term_suspend(top_term *t)
{
    out_cap(&t->f.out, cap_str("sgr0"));
    out_flush(&t->f.out);
    def_prog_mode();
    endwin();
}

void top_term_resume(top_term *t)
{
    reset_prog_mode();
    refresh();
    frames_size(&t->f, t->o->ascii); /* the terminal may have been resized meanwhile */
}

void top_term_stop(top_term *t)
{
    if (!t)
        return;
    curses_stop(&t->f);
    free(t);
}
