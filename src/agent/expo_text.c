/* expo_text.c - Prometheus text format primitives (see expo_text.h). */
#include "expo_text.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

static void escape(gw_buf *b, const char *s, int quote)
{
    for (const char *p = s; *p; p++) {
        const char *run = p;
        while (*p && *p != '\\' && *p != '\n' && !(quote && *p == '"'))
            p++;
        buf_append(b, run, (size_t)(p - run));
        if (!*p)
            break;
        buf_puts(b, *p == '\n' ? "\\n" : *p == '"' ? "\\\"" : "\\\\");
    }
}

void expo_family(gw_buf *b, const char *name, const char *help, const char *type)
{
    buf_puts(b, "# HELP ");
    buf_puts(b, name);
    buf_putc(b, ' ');
    escape(b, help ? help : "", 0);
    buf_puts(b, "\n# TYPE ");
    buf_puts(b, name);
    buf_putc(b, ' ');
    buf_puts(b, type);
    buf_putc(b, '\n');
}

void expo_label(gw_buf *b, int *first, const char *name, const char *value)
{
    if (!*first)
        buf_putc(b, ',');
    *first = 0;
    buf_puts(b, name);
    buf_puts(b, "=\"");
    escape(b, value ? value : "", 1);
    buf_putc(b, '"');
}

void expo_value(gw_buf *b, double v)
{
    if (isnan(v))
        buf_puts(b, "NaN");
    else if (isinf(v))
        buf_puts(b, v > 0 ? "+Inf" : "-Inf");
    else if (v == floor(v) && fabs(v) < 9007199254740992.0)
        buf_printf(b, "%lld", (long long)v);
    else
        buf_printf(b, "%.15g", v);
}

void expo_sample(gw_buf *b, const char *name, const char *labels, double value)
{
    buf_puts(b, name);
    if (labels && *labels) {
        buf_putc(b, '{');
        buf_puts(b, labels);
        buf_putc(b, '}');
    }
    buf_putc(b, ' ');
    expo_value(b, value);
    buf_putc(b, '\n');
}
