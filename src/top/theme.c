/* theme.c - colours and attributes of top's roles; plain attributes with NO_COLOR or no colours. */
#include "top_draw.h"
#include "top_fmt.h"
#include <stdarg.h>
#include <stdio.h>

static attr_t roles[TR_ROLES];
static int ascii_only;

void theme_init(int no_color, int ascii)
{
    ascii_only = ascii;
    for (int i = 0; i < TR_ROLES; i++)
        roles[i] = A_NORMAL;
    roles[TR_TITLE] = A_BOLD;
    roles[TR_BANNER] = A_REVERSE | A_BOLD;
    roles[TR_WARN] = A_BOLD;
    roles[TR_CRIT] = A_REVERSE | A_BOLD;
    roles[TR_SELECTED] = A_REVERSE;
    roles[TR_HEADER] = A_REVERSE;
    roles[TR_DIM] = A_DIM;
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
        roles[pal[i].r] = COLOR_PAIR(pair) | pal[i].extra;
    }
}

attr_t theme_attr(theme_role r)
{
    return roles[r];
}

attr_t theme_level(top_level l)
{
    return l == LVL_CRIT ? roles[TR_CRIT] : l == LVL_WARN ? roles[TR_WARN] : roles[TR_OK];
}

int draw_text(int y, int x, int maxcols, attr_t a, const char *s)
{
    if (maxcols <= 0 || y < 0 || y >= LINES || x >= COLS)
        return 0;
    if (x + maxcols > COLS)
        maxcols = COLS - x;
    char buf[1024], plain[1024];
    if (ascii_only)
        s = fmt_ascii(plain, sizeof plain, s);
    fmt_fit(buf, sizeof buf, s, maxcols);
    attron(a);
    mvaddstr(y, x, buf);
    attroff(a);
    return fmt_cols(buf);
}

int draw_fmt(int y, int x, int maxcols, attr_t a, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return draw_text(y, x, maxcols, a, buf);
}
