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

/* (see expo_text.h) */
char *expo_digits_before(char *end, unsigned long long u)
{
    do {
        *--end = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    return end;
}

/* v in [1e-4, 1e9) that is a whole number of microseconds (ages and durations are): its fixed-point
 * text without trailing zeros, which is exactly what %.15g prints for it (at most 15 significant
 * digits, no exponent in that range). 0 when v is not such a number. */
static int put_micros(gw_buf *b, double v)
{
    double a = fabs(v);
    if (!(a >= 1e-4 && a < 1e9))
        return 0;
    long long k = llround(a * 1e6);
    if ((double)k / 1e6 != a || k % 1000000 == 0)
        return 0;
    char tmp[32], *end = tmp + sizeof tmp;
    unsigned long long frac = (unsigned long long)(k % 1000000);
    int width = 6;
    while (frac % 10 == 0) {
        frac /= 10;
        width--;
    }
    char *p = expo_digits_before(end, frac);
    while (end - p < width)
        *--p = '0';
    *--p = '.';
    p = expo_digits_before(p, (unsigned long long)(k / 1000000));
    if (v < 0)
        *--p = '-';
    buf_append(b, p, (size_t)(end - p));
    return 1;
}

void expo_value(gw_buf *b, double v)
{
    char tmp[40];
    if (isnan(v))
        buf_puts(b, "NaN");
    else if (isinf(v))
        buf_puts(b, v > 0 ? "+Inf" : "-Inf");
    else if (v == floor(v) && fabs(v) < 9007199254740992.0) {
        /* what %lld prints, without printf (a scrape writes many of these) */
        long long i = (long long)v;
        char *end = tmp + sizeof tmp;
        char *p = expo_digits_before(end, i < 0 ? 0ull - (unsigned long long)i : (unsigned long long)i);
        if (i < 0)
            *--p = '-';
        buf_append(b, p, (size_t)(end - p));
    } else if (!put_micros(b, v)) {
        snprintf(tmp, sizeof tmp, "%.15g", v);
        buf_puts(b, tmp);
    }
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
