/* ui_state.c - top's interactive state: defaults and the status line message. */
#include "top_ui.h"
#include "util.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void top_ui_init(top_ui *u, top_opts *o)
{
    memset(u, 0, sizeof *u);
    u->o = o;
    u->layout = o->layout;
    u->chart = CHART_SELECTED;
    u->sel_gpu = -1;
    u->sort_col = PC_GPUMEM;
    u->sort_desc = 1;
}

void top_ui_message(top_ui *u, int level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(u->msg, sizeof u->msg, fmt, ap);
    va_end(ap);
    u->msg_level = level;
    u->msg_until_us = gw_mono_us() + 5000000u;
}
