/* alerts_panel.c - the alerts panel's lines: the model's (rules or agent), then one provider's. */
#include "top_alerts.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static top_alerts_fn provider;
static void *provider_ctx;

void top_alerts_register(top_alerts_fn fn, void *ctx)
{
    provider = fn;
    provider_ctx = ctx;
}

int top_alerts_collect(const top_model *m, top_alert_line *out, int max)
{
    int n = 0;
    for (; n < m->nalerts && n < max; n++)
        out[n] = m->alerts[n];
    if (provider && n < max) {
        int k = provider(provider_ctx, m, out + n, max - n);
        if (k > 0)
            n += k > max - n ? max - n : k;
    }
    return n;
}

void top_alert_line_make(top_alert_line *out, const char *name, const char *severity, const char *state,
                         const char *summary)
{
    static const char *tags[] = {"INFO", "WARN", "CRIT"};
    int level = 0;
    if (severity && strcmp(severity, "critical") == 0)
        level = 2;
    else if (severity && strcmp(severity, "warning") == 0)
        level = 1;
    int pending = state && strcmp(state, "pending") == 0;
    out->level = level;
    snprintf(out->text, sizeof out->text, "%s%s %s: %s", tags[level], pending ? " (pending)" : "", name ? name : "?",
             summary && *summary ? summary : "");
}

static int worse_first(const void *a, const void *b)
{
    const top_alert_line *x = a, *y = b;
    int px = strstr(x->text, "(pending)") != NULL, py = strstr(y->text, "(pending)") != NULL;
    if (px != py)
        return px - py;
    if (x->level != y->level)
        return y->level - x->level;
    return strcmp(x->text, y->text);
}

void top_alert_lines_sort(top_alert_line *l, int n)
{
    qsort(l, (size_t)n, sizeof *l, worse_first);
}
