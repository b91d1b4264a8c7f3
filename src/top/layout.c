/* layout.c - where each part of top goes for a terminal size (pure, unit tested):
 * the full GPU panels when they fit with room for processes, else one line per GPU. */
#include "top_ui.h"

#define PROC_MIN_FULL 6    /* table header + 5 rows */
#define PROC_MIN_COMPACT 3 /* table header + 2 rows */
#define CHART_MIN 8
#define CHART_MAX 14

void layout_compute(int rows, int cols, int ngpus, layout_pref pref, chart_mode chart, int alert_lines, int sel_gpu,
                    top_layout *l)
{
    *l = (top_layout){0};
    l->gpu_lines = cols >= 120 ? 2 : 3;
    int alerts = alert_lines < 1 ? 1 : alert_lines > 3 ? 3 : alert_lines;
    int fixed = TOP_HEADER_LINES + alerts + 1; /* header, alerts, footer */
    int full_h = ngpus * l->gpu_lines;
    if (pref == LAYOUT_COMPACT)
        l->compact = 1;
    else if (pref == LAYOUT_AUTO)
        l->compact = fixed + full_h + PROC_MIN_FULL > rows;
    int gpu_h = l->compact ? ngpus + 1 : full_h; /* compact has a column header */
    /* GPUs come before alert details: squeeze the alerts to one line ("+N more") if needed. */
    if (alerts > 1 && fixed + gpu_h + (l->compact ? PROC_MIN_COMPACT : PROC_MIN_FULL) > rows) {
        fixed -= alerts - 1;
        alerts = 1;
    }
    int room = rows - fixed - (l->compact ? PROC_MIN_COMPACT : PROC_MIN_FULL);
    if (gpu_h > room)
        gpu_h = room < 0 ? 0 : room;
    int per = l->compact ? 1 : l->gpu_lines;
    int header = l->compact ? 1 : 0;
    l->gpu_shown = gpu_h > header ? (gpu_h - header) / per : 0;
    if (l->gpu_shown > ngpus)
        l->gpu_shown = ngpus;
    l->gpu_h = l->gpu_shown * per + (l->gpu_shown ? header : 0);
    /* Scroll the GPU list so the selected GPU is visible. */
    if (sel_gpu >= l->gpu_shown)
        l->gpu_first = sel_gpu - l->gpu_shown + 1;
    l->gpu_y = TOP_HEADER_LINES;
    int rest = rows - fixed - l->gpu_h;
    int y = l->gpu_y + l->gpu_h;
    if (chart != CHART_OFF && rest - CHART_MIN >= PROC_MIN_FULL) {
        l->chart_h = rest * 45 / 100;
        if (l->chart_h < CHART_MIN)
            l->chart_h = CHART_MIN;
        if (l->chart_h > CHART_MAX)
            l->chart_h = CHART_MAX;
        l->chart_y = y;
        y += l->chart_h;
        rest -= l->chart_h;
    }
    l->alert_y = y;
    l->alert_h = alerts;
    y += alerts;
    l->proc_y = y;
    l->proc_h = rest > 0 ? rest : 0;
    l->footer_y = rows - 1;
}
