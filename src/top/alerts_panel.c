/* alerts_panel.c - holds the alerts provider registered by the alerts engine (none yet). */
#include "top_alerts.h"

static top_alerts_fn provider;
static void *provider_ctx;

void top_alerts_register(top_alerts_fn fn, void *ctx)
{
    provider = fn;
    provider_ctx = ctx;
}

int top_alerts_collect(const top_model *m, top_alert_line *out, int max)
{
    if (!provider || max <= 0) return 0;
    int n = provider(provider_ctx, m, out, max);
    return n < 0 ? 0 : n > max ? max : n;
}
