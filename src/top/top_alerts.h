/* top_alerts.h - the place in top for alerts and findings. The alerts engine registers one
 * provider; top calls it (model locked) at each redraw and shows "no alerts" when it returns 0. */
#ifndef GPUWATCH_TOP_ALERTS_H
#define GPUWATCH_TOP_ALERTS_H

#include "top_model.h"

typedef struct top_alert_line {
    int level;                        /* 0 info, 1 warning, 2 critical (top_level) */
    char text[160];
} top_alert_line;

/* Fills up to max lines (most important first); returns how many. */
typedef int (*top_alerts_fn)(void *ctx, const top_model *m, top_alert_line *out, int max);

void top_alerts_register(top_alerts_fn fn, void *ctx);
int top_alerts_collect(const top_model *m, top_alert_line *out, int max);

#endif
