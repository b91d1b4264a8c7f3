/* view.c - composes one screen of top from the model: header, GPUs, charts, alerts,
 * processes and the footer (key hints, a message, or a y/n question). */
#include "top_draw.h"
#include "top_alerts.h"
#include "util.h"
#include <signal.h>
#include <stdio.h>
#include <string.h>

static void draw_header(const top_model *m, const top_ui *u, const top_layout *l, int cols)
{
    char head[400];
    top_header_text(m, head, sizeof head);
    int x = draw_text(0, 0, cols, theme_attr(TR_TITLE), "gpuwatch top  ");
    draw_text(0, x, cols - x, A_NORMAL, head);
    x = 0;
    if (m->versions.simulated)
        x += draw_text(1, x, cols, theme_attr(TR_BANNER), " SIMULATED GPUs ") + 2;
    if (u->paused)
        x += draw_text(1, x, cols - x, theme_attr(TR_WARN), "PAUSED") + 2;
    x += draw_fmt(1, x, cols - x, theme_attr(TR_DIM), "every %gs", u->o->interval_s) + 2;
    if (l->gpu_shown < m->ngpus)
        x += draw_fmt(1, x, cols - x, theme_attr(TR_WARN), "GPUs %d-%d of %d shown (g: next)", l->gpu_first,
                      l->gpu_first + l->gpu_shown - 1, m->ngpus) +
             2;
    if (m->error[0])
        draw_text(1, x, cols - x, theme_attr(TR_CRIT), m->error);
    else if (m->updated_us == 0)
        draw_text(1, x, cols - x, theme_attr(TR_DIM), "reading GPUs...");
}

/* The alerts, worst first; when they do not all fit, the last line says how many more. */
static void draw_alerts(const top_alert_line *al, int n, const top_layout *l, int cols)
{
    if (n == 0) {
        int x = draw_text(l->alert_y, 0, cols, theme_attr(TR_TITLE), "ALERTS ");
        draw_text(l->alert_y, x, cols - x, theme_attr(TR_DIM), "no alerts");
        return;
    }
    if (l->alert_h == 1 && n > 1) {
        draw_fmt(l->alert_y, 0, cols, theme_level((top_level)al[0].level), "%d alerts, worst: %s", n, al[0].text);
        return;
    }
    int shown = n > l->alert_h ? l->alert_h - 1 : n;
    for (int i = 0; i < shown; i++)
        draw_text(l->alert_y + i, 0, cols, theme_level((top_level)al[i].level), al[i].text);
    if (shown < n)
        draw_fmt(l->alert_y + shown, 0, cols, theme_attr(TR_WARN),
                 "+%d more alert%s (gpuwatch top --once lists them all)", n - shown, n - shown == 1 ? "" : "s");
}

static void draw_footer(top_ui *u, int y, int cols)
{
    mvhline(y, 0, ' ' | theme_attr(TR_HEADER), cols);
    if (u->confirm_sig) {
        draw_fmt(y, 0, cols, theme_attr(TR_CRIT), "Send %s to pid %u (%s)? y/n",
                 u->confirm_sig == SIGKILL ? "SIGKILL" : "SIGTERM", u->confirm_pid, u->confirm_name);
        return;
    }
    if (u->msg[0] && gw_mono_us() < u->msg_until_us) {
        draw_text(y, 0, cols, theme_level((top_level)u->msg_level) | A_BOLD, u->msg);
        return;
    }
    if (u->editing_filter) {
        draw_text(y, 0, cols, theme_attr(TR_HEADER), "filter: type text, Enter to keep, Esc to clear");
        return;
    }
    draw_text(y, 0, cols, theme_attr(TR_HEADER),
              "?:help q:quit p:pause +/-:interval l:layout c:charts g/0-9:GPU s/</>:sort /:filter k/K:kill");
}

void draw_view(top_model *m, top_ui *u)
{
    int rows = LINES, cols = COLS;
    erase();
    if (u->help) {
        draw_help(u);
        return;
    }
    pthread_mutex_lock(&m->lock);
    top_alert_line alerts[TOP_MAX_ALERTS];
    int nalerts = top_alerts_collect(m, alerts, TOP_MAX_ALERTS);
    top_layout l;
    layout_compute(rows, cols, m->ngpus, u->layout, u->chart, nalerts, u->sel_gpu, &l);
    u->lay = l;
    draw_header(m, u, &l, cols);
    draw_gpus(m, u, &l, cols);
    if (l.chart_h)
        draw_charts(m, u, &l, cols);
    draw_alerts(alerts, nalerts, &l, cols);
    draw_procs(m, u, &l, cols);
    pthread_mutex_unlock(&m->lock);
    draw_footer(u, l.footer_y, cols);
}
