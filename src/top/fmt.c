/* fmt.c - pure text helpers for top (see top_fmt.h): bars, sparklines, units, UTF-8 widths. No curses. */
#include "top_fmt.h"
#include "catalog.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>
#include "text.h"
#include "util.h"

top_level fmt_level(double value, double warn, double crit)
{
    if (value >= crit)
        return LVL_CRIT;
    if (value >= warn)
        return LVL_WARN;
    return LVL_OK;
}

/* Appends s to out at *pos if it fits. */
static void append(char *out, size_t n, size_t *pos, const char *s)
{
    size_t len = strlen(s);
    if (*pos + len + 1 > n)
        return;
    memcpy(out + *pos, s, len + 1);
    *pos += len;
}

char *fmt_bar(char *out, size_t n, double frac, int cells, int ascii)
{
    static const char *eighths[] = {"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"};
    size_t pos = 0;
    if (n)
        out[0] = 0;
    if (!(frac > 0))
        frac = 0;
    if (frac > 1)
        frac = 1;
    int total = (int)lround(frac * cells * 8);
    int full = total / 8, part = total % 8;
    if (ascii) {
        full = (int)lround(frac * cells);
        part = 0;
    }
    for (int i = 0; i < cells; i++) {
        if (i < full)
            append(out, n, &pos, ascii ? "|" : "█");
        else if (i == full && part)
            append(out, n, &pos, eighths[part]);
        else
            append(out, n, &pos, " ");
    }
    return out;
}

char *fmt_sparkline(char *out, size_t n, const double *vals, int count, double lo, double hi, int ascii)
{
    static const char *blocks[] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
    static const char levels[] = "_.-:=+*#";
    size_t pos = 0;
    if (n)
        out[0] = 0;
    double span = hi > lo ? hi - lo : 1;
    for (int i = 0; i < count; i++) {
        if (isnan(vals[i])) {
            append(out, n, &pos, " ");
            continue;
        }
        double f = (vals[i] - lo) / span;
        int k = (int)(f * 8);
        if (k < 0)
            k = 0;
        if (k > 7)
            k = 7;
        char one[2] = {levels[k], 0};
        append(out, n, &pos, ascii ? one : blocks[k]);
    }
    return out;
}

int fmt_throttle_words(uint64_t mask, int include_idle, char *out, size_t n)
{
    static const char prefix[] = "clocks_event_reasons.";
    size_t pos = 0;
    int count = 0;
    if (n)
        out[0] = 0;
    for (int id = M_STR_END; id < M_COUNT; id++) {
        const metric_def *d = catalog_get((metric_id)id);
        if (!(d->flags & MF_BIT) || d->parent != M_CER_ACTIVE || !(mask & d->bit))
            continue;
        if (d->id == M_CER_GPU_IDLE && !include_idle)
            continue;
        if (strncmp(d->field, prefix, sizeof prefix - 1) != 0)
            continue;
        char word[64];
        snprintf(word, sizeof word, "%s%s", count ? ", " : "", d->field + sizeof prefix - 1);
        for (char *c = word; *c; c++)
            if (*c == '_')
                *c = ' ';
        append(out, n, &pos, word);
        count++;
    }
    return count;
}

char *fmt_fit_list(char *out, size_t n, const char *list, int cols, const char *what)
{
    if (!n)
        return out;
    out[0] = 0;
    if (fmt_cols(list) <= cols) {
        gw_strlcpy(out, list, n);
        return out;
    }
    int items = 1;
    for (const char *p = list; (p = strstr(p, ", ")) != NULL; p += 2)
        items++;
    /* the longest run of leading items that fits with its " +K" */
    const char *end = list;
    for (int kept = 1; kept < items; kept++) {
        end = strstr(end, ", ");
        char buf[512];
        snprintf(buf, sizeof buf, "%.*s +%d", (int)(end - list), list, items - kept);
        if (fmt_cols(buf) > cols)
            break;
        gw_strlcpy(out, buf, n);
        end += 2;
    }
    if (!out[0]) {
        char buf[128];
        snprintf(buf, sizeof buf, "%s (%d)", what, items);
        if (fmt_cols(buf) <= cols)
            gw_strlcpy(out, buf, n);
    }
    return out;
}

char *fmt_fixed(char *out, size_t n, double v, int decimals, const char *suffix)
{
    static const double scale[] = {1, 10, 100, 1000};
    double scaled = decimals >= 0 && decimals <= 3 ? v * scale[decimals] : -1;
    /* printf rounds a tie (x.5 exactly) to even on the exact binary value: leave those, negative
     * values and huge ones to it. Otherwise rint of the scaled value gives the same digits. */
    if (!(scaled >= 0 && scaled < 1e15) || signbit(scaled) || scaled - floor(scaled) == 0.5) {
        snprintf(out, n, "%.*f%s", decimals, v, suffix);
        return out;
    }
    unsigned long long r = (unsigned long long)rint(scaled);
    char digits[24], text[64];
    int k = 0;
    do {
        digits[k++] = (char)('0' + r % 10);
        r /= 10;
    } while (r || k <= decimals);
    size_t pos = 0;
    for (int i = k - 1; i >= 0; i--) {
        text[pos++] = digits[i];
        if (i == decimals && decimals)
            text[pos++] = '.';
    }
    for (; *suffix && pos + 1 < sizeof text; suffix++)
        text[pos++] = *suffix;
    if (n) {
        size_t len = pos < n - 1 ? pos : n - 1;
        memcpy(out, text, len);
        out[len] = 0;
    }
    return out;
}

char *fmt_join(char *out, size_t n, ...)
{
    va_list ap;
    size_t pos = 0;
    va_start(ap, n);
    for (const char *p; (p = va_arg(ap, const char *)) != NULL;)
        for (; *p && pos + 1 < n; p++)
            out[pos++] = *p;
    va_end(ap);
    if (n)
        out[pos] = 0;
    return out;
}

char *fmt_mib(char *out, size_t n, double mib)
{
    if (mib >= 1024.0 * 1024.0)
        return fmt_fixed(out, n, mib / (1024.0 * 1024.0), 2, " TiB");
    if (mib >= 1024.0)
        return fmt_fixed(out, n, mib / 1024.0, 1, " GiB");
    return fmt_fixed(out, n, mib, 0, " MiB");
}

char *fmt_kbs(char *out, size_t n, double kbs)
{
    if (kbs >= 1e6)
        return fmt_fixed(out, n, kbs / 1e6, 1, " GB/s");
    if (kbs >= 1e3)
        return fmt_fixed(out, n, kbs / 1e3, 0, " MB/s");
    return fmt_fixed(out, n, kbs, 0, " KB/s");
}

char *fmt_duration(char *out, size_t n, uint64_t s)
{
    unsigned long long d = s / 86400, h = s / 3600 % 24, m = s / 60 % 60, sec = s % 60;
    if (d)
        snprintf(out, n, "%llud%02lluh", d, h);
    else if (h)
        snprintf(out, n, "%llu:%02llu:%02llu", h, m, sec);
    else if (m)
        snprintf(out, n, "%llu:%02llu", m, sec);
    else
        snprintf(out, n, "%llus", sec);
    return out;
}

int fmt_cp_cols(uint32_t cp)
{
    /* What top draws most: ASCII, Latin-1 (°), block elements and box drawing, braille. */
    if (cp < 0x7F || (cp >= 0xA0 && cp < 0x300) || (cp >= 0x2500 && cp < 0x2600) || (cp >= 0x2800 && cp < 0x2900))
        return 1;
    int w = wcwidth((wchar_t)cp);
    return w < 0 ? 1 : w;
}

/* Decodes one UTF-8 character: its byte length (>= 1) and its column width (>= 0). */
static size_t next_char(const char *s, int *cols)
{
    uint32_t cp;
    size_t len = gw_utf8_next(s, &cp);
    *cols = fmt_cp_cols(cp);
    return len;
}

int fmt_cols(const char *s)
{
    int total = 0, w;
    while (*s) {
        s += next_char(s, &w);
        total += w;
    }
    return total;
}

char *fmt_pad(char *out, size_t n, const char *s, int cols, int right)
{
    int pad = cols - fmt_cols(s);
    if (pad < 0)
        pad = 0;
    snprintf(out, n, "%*s%s%*s", right ? pad : 0, "", s, right ? 0 : pad, "");
    return out;
}

char *fmt_ascii(char *out, size_t n, const char *s)
{
    size_t pos = 0;
    int w;
    while (*s && pos + 1 < n) {
        size_t len = next_char(s, &w);
        if ((unsigned char)*s < 0x80)
            out[pos++] = *s;
        else if (strncmp(s, "°", len) != 0 || len != strlen("°"))
            out[pos++] = '?';
        s += len;
    }
    if (n)
        out[pos] = 0;
    return out;
}
