/* top_draw.h - the curses side of top: theme roles, text helpers and the panels' draw functions. */
#ifndef GPUWATCH_TOP_DRAW_H
#define GPUWATCH_TOP_DRAW_H

#include <ncurses.h>
#include "top_ui.h"

typedef enum {
    TR_NORMAL,
    TR_TITLE,
    TR_BANNER,
    TR_DIM,
    TR_OK,
    TR_WARN,
    TR_CRIT,
    TR_BAR_UTIL,
    TR_BAR_MEM,
    TR_SERIES_A,
    TR_SERIES_B,
    TR_SELECTED,
    TR_HEADER,
    TR_ROLES
} theme_role;

void theme_init(int no_color, int ascii); /* ascii: draw_text turns text into ASCII */
attr_t theme_attr(theme_role r);
attr_t theme_level(top_level l); /* TR_OK / TR_WARN / TR_CRIT (bold / reverse without colour) */

/* Writes s at (y, x) cut to maxcols columns; returns the columns written. */
int draw_text(int y, int x, int maxcols, attr_t a, const char *s);
/* printf-style draw_text. */
int draw_fmt(int y, int x, int maxcols, attr_t a, const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Panels; each draws inside its layout rectangle only. The model is locked by the caller. */
void draw_gpus(const top_model *m, const top_ui *u, const top_layout *l, int cols);
void draw_charts(top_model *m, const top_ui *u, const top_layout *l, int cols);
/* Draws the table; fills the visible order so keys can map the selection to a pid. */
void draw_procs(const top_model *m, top_ui *u, const top_layout *l, int cols);
void draw_view(top_model *m, top_ui *u);
void draw_help(const top_ui *u);

#endif
