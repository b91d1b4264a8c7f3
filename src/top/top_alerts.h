/* top_alerts.h - the alerts panel of top. Lines come from the model (the default alert rules
 * evaluated on top's own samples, or a remote agent's /api/v1/alerts) and from one optional
 * provider (e.g. findings of a future diagnosis engine), called with the model locked. */
#ifndef GPUWATCH_TOP_ALERTS_H
#define GPUWATCH_TOP_ALERTS_H

#include "top_model.h"

/* Fills up to max lines (most important first); returns how many. */
typedef int (*top_alerts_fn)(void *ctx, const top_model *m, top_alert_line *out, int max);

void top_alerts_register(top_alerts_fn fn, void *ctx);
/* The model's lines, then the provider's; returns how many (<= max). */
int top_alerts_collect(const top_model *m, top_alert_line *out, int max);

/* One line from an alert's fields: level from severity (critical 2, warning 1, else 0),
 * "pending" marked; summary may be NULL. */
void top_alert_line_make(top_alert_line *out, const char *name, const char *severity, const char *state,
                         const char *summary);
/* Sorts lines: firing before pending, then by level, worst first. */
void top_alert_lines_sort(top_alert_line *l, int n);

/* Local mode: the default alert rules (deploy/rules/gpuwatch-default.yaml) evaluated on top's
 * samples after each refresh, thresholds from top's options. Sets src->after. Returns 0, or -1
 * with a note in why (no rules file found, rules that do not load). */
struct top_thresholds;
int top_alerts_local_start(top_source *src, top_model *m, const struct top_thresholds *th, char *why, size_t n);
void top_alerts_local_stop(top_source *src);

#endif
