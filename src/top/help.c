/* help.c - the help screen: every key, and what the marks and colours mean. */
#include "top_draw.h"

static const char *const help_lines[] = {
    "gpuwatch top - keys",
    "",
    "  ? F1        this help (any key closes it)",
    "  q F10       quit",
    "  p space     pause / resume",
    "  + -         refresh interval longer / shorter",
    "  l           layout: auto, full panels, compact (one line per GPU)",
    "  c           charts: selected GPU, all GPUs, off",
    "  g           next GPU (all, 0, 1, ...); 0-9 select that GPU; a all GPUs",
    "  up down     select a process (also PgUp PgDn Home End); a mouse click selects a GPU or process",
    "  s F6        sort by the next column;  < >  previous / next column;  r  reverse",
    "  /           filter processes by text (pid, user, container, command, gpuN)",
    "  k           send SIGTERM to the selected process (asks y/n)",
    "  K           send SIGKILL to the selected process (asks y/n)",
    "",
    "marks",
    "  LOST        the driver lost the GPU;  STALE  no fresh reading for 3 intervals",
    "  throttle:   active clock event reasons (sw power cap, sw thermal slowdown, ...)",
    "  XID n       last XID error;  ECC DBE/SBE n  volatile ECC errors;  REMAP  row remapping",
    "  N/A         the GPU or driver does not report this value",
    "  colours     temperature: warning / critical thresholds (--temp-warn, --hbm-crit, ...)",
};

void draw_help(const top_ui *u)
{
    int n = (int)(sizeof help_lines / sizeof help_lines[0]);
    for (int i = 0; i < n && i < LINES - 1; i++)
        draw_text(i, 1, COLS - 2, i == 0 || help_lines[i][0] != ' ' ? theme_attr(TR_TITLE) : A_NORMAL, help_lines[i]);
    draw_fmt(LINES - 1, 1, COLS - 2, theme_attr(TR_DIM), "thresholds: core %g/%g C, HBM %g/%g C   press any key",
             u->o->th.temp_warn, u->o->th.temp_crit, u->o->th.hbm_warn, u->o->th.hbm_crit);
}
