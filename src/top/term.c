/* term.c - the terminal side of top: curses set-up, the theme (roles to colours, or bold/reverse
 * without colour), and the interactive loop. Each frame is drawn into a canvas; only the cells that
 * differ from the previous frame go to curses, which then sends the terminal what changed. The loop
 * sleeps in poll() on the keyboard and the refresh thread's pipe, and draws on new data, a key, a
 * resize (SIGWINCH interrupts poll), a message expiring, or when no data came for 1.5 intervals (so
 * the clock moves and a stalled source shows STALE). No busy loop. */
#include "top_ui.h"
#include "util.h"
#include <errno.h>
#include <ncurses.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct theme_attr {
    attr_t attr;
    short pair;
} theme_attr;

static theme_attr theme[TR_ROLES];

static void theme_init(int no_color)
{
    for (int i = 0; i < TR_ROLES; i++)
        theme[i] = (theme_attr){A_NORMAL, 0};
    theme[TR_TITLE].attr = A_BOLD;
    theme[TR_BANNER].attr = A_REVERSE | A_BOLD;
    theme[TR_WARN].attr = A_BOLD;
    theme[TR_CRIT].attr = A_REVERSE | A_BOLD;
    theme[TR_SELECTED].attr = A_REVERSE;
    theme[TR_HEADER].attr = A_REVERSE;
    theme[TR_DIM].attr = A_DIM;
    if (no_color || !has_colors() || start_color() == ERR)
        return;
    use_default_colors();
    static const struct {
        theme_role r;
        short fg, bg;
        attr_t extra;
    } pal[] = {
        {TR_TITLE, COLOR_CYAN, -1, A_BOLD},
        {TR_BANNER, COLOR_BLACK, COLOR_YELLOW, A_BOLD},
        {TR_OK, COLOR_GREEN, -1, 0},
        {TR_WARN, COLOR_YELLOW, -1, A_BOLD},
        {TR_CRIT, COLOR_WHITE, COLOR_RED, A_BOLD},
        {TR_BAR_UTIL, COLOR_GREEN, -1, 0},
        {TR_BAR_MEM, COLOR_CYAN, -1, 0},
        {TR_SERIES_A, COLOR_GREEN, -1, 0},
        {TR_SERIES_B, COLOR_MAGENTA, -1, 0},
        {TR_HEADER, COLOR_BLACK, COLOR_CYAN, 0},
    };
    for (size_t i = 0; i < sizeof pal / sizeof pal[0]; i++) {
        short pair = (short)(i + 1);
        init_pair(pair, pal[i].fg, pal[i].bg);
        theme[pal[i].r] = (theme_attr){pal[i].extra, pair};
    }
}

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
    theme_init(o->no_color);
    /* ncurses sends its output after every cursor movement (one write, and a wake-up of the terminal,
     * each) while its screen is in the state initscr leaves it in; once the screen has been left and
     * entered again, as after a shell escape, a frame goes out in one write. */
    endwin();
    refresh();
    typeahead(-1); /* and no poll of the keyboard in the middle of each update */
}

/* The frame being drawn and the one the terminal shows (cell 0 = not known: sent again). */
typedef struct frames {
    canvas cur, shown;
    cchar_t *run; /* one row's changed cells for curses */
} frames;

static int frames_size(frames *f, int ascii)
{
    int rows = LINES, cols = COLS;
    if (canvas_resize(&f->cur, rows, cols) != 0 || canvas_resize(&f->shown, rows, cols) != 0)
        return -1;
    cchar_t *run = realloc(f->run, (size_t)(cols ? cols : 1) * sizeof *run);
    if (!run)
        return -1;
    f->run = run;
    f->cur.ascii = ascii;
    for (size_t i = 0; i < (size_t)rows * (size_t)cols; i++)
        f->shown.cells[i].ch = 0; /* nothing known to be on the screen: everything is sent */
    return 0;
}

static void frames_free(frames *f)
{
    canvas_free(&f->cur);
    canvas_free(&f->shown);
    free(f->run);
}

/* Hands curses the cells of one run (a wide character's second column is curses's own business). */
static void send_run(frames *f, int y, int first, int last)
{
    const tcell *row = f->cur.cells + (size_t)y * (size_t)f->cur.cols;
    int k = 0, prev_wide = 0;
    for (int x = first; x <= last; x++) {
        wchar_t wc[2] = {(wchar_t)row[x].ch, 0};
        if (row[x].ch == CELL_WIDE_TAIL) {
            if (prev_wide) {
                prev_wide = 0;
                continue;
            }
            wc[0] = L' '; /* its first half was overwritten */
        }
        prev_wide = fmt_cp_cols((uint32_t)wc[0]) == 2;
        const theme_attr *t = &theme[row[x].role < TR_ROLES ? row[x].role : TR_NORMAL];
        setcchar(&f->run[k++], wc, t->attr, t->pair, NULL);
    }
    mvadd_wchnstr(y, first, f->run, k);
    memcpy(f->shown.cells + (size_t)y * (size_t)f->cur.cols + first, row + first,
           (size_t)(last - first + 1) * sizeof *row);
}

/* Sends curses the runs of cells that changed since the last frame (a gap of a few unchanged cells
 * is sent along rather than cut), then updates the terminal. */
static void flush(frames *f)
{
    for (int y = 0; y < f->cur.rows; y++) {
        int first, last = -1;
        while (cv_row_run(&f->cur, &f->shown, y, last + 1, 4, &first, &last))
            send_run(f, y, first, last);
    }
    wnoutrefresh(stdscr);
    doupdate();
}

static void draw(frames *f, top_model *m, top_ui *u)
{
    uint64_t mono, wall;
    top_screen_time(u, gw_mono_us(), gw_now_us(), &mono, &wall);
    view_draw(&f->cur, m, u, mono, wall);
    flush(f);
}

int top_run(top_source *src, top_model *m, top_opts *o)
{
    top_ui u;
    top_ui_init(&u, o);
    pthread_mutex_lock(&m->lock);
    u.sim_guard = m->versions.simulated && !m->remote;
    pthread_mutex_unlock(&m->lock);
    top_poller *p = top_poller_start(src, m, o->interval_s);
    if (!p) {
        fprintf(stderr, "gpuwatch top: cannot start the refresh thread\n");
        return 1;
    }
    curses_start(o);
    frames f = {0};
    int rc = 0, dirty = 1;
    if (frames_size(&f, o->ascii) != 0) {
        u.quit = 1;
        rc = 1;
    }
    uint64_t msg_shown_until = 0, drawn_at = 0;
    while (!u.quit) {
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
            continue;
        }
        if (r > 0 && (fds[1].revents & POLLIN)) {
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
            if (ch == KEY_RESIZE && frames_size(&f, o->ascii) != 0) {
                u.quit = 1;
                rc = 1;
            }
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
    frames_free(&f);
    return rc;
}
