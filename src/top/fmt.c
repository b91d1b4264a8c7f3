/* fmt.c - pure text helpers for top (see top_fmt.h): no curses, unit tested. */
#include "top_fmt.h"
#include "catalog.h"
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

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

char *fmt_mib(char *out, size_t n, double mib)
{
    if (mib >= 1024.0 * 1024.0)
        snprintf(out, n, "%.2f TiB", mib / (1024.0 * 1024.0));
    else if (mib >= 1024.0)
        snprintf(out, n, "%.1f GiB", mib / 1024.0);
    else
        snprintf(out, n, "%.0f MiB", mib);
    return out;
}

char *fmt_kbs(char *out, size_t n, double kbs)
{
    if (kbs >= 1e6)
        snprintf(out, n, "%.1f GB/s", kbs / 1e6);
    else if (kbs >= 1e3)
        snprintf(out, n, "%.0f MB/s", kbs / 1e3);
    else
        snprintf(out, n, "%.0f KB/s", kbs);
    return out;
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

/* Decodes one UTF-8 character: its byte length (>= 1) and its column width (>= 0). */
static size_t next_char(const char *s, int *cols)
{
    mbstate_t st;
    memset(&st, 0, sizeof st);
    wchar_t wc;
    size_t len = mbrtowc(&wc, s, strlen(s), &st);
    if (len == (size_t)-1 || len == (size_t)-2 || len == 0) {
        *cols = 1;
        return 1;
    }
    int w = wcwidth(wc);
    *cols = w < 0 ? 1 : w;
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

char *fmt_fit(char *out, size_t n, const char *s, int cols)
{
    size_t pos = 0;
    int used = 0, w;
    while (*s) {
        size_t len = next_char(s, &w);
        if (used + w > cols || pos + len + 1 > n)
            break;
        memcpy(out + pos, s, len);
        pos += len;
        used += w;
        s += len;
    }
    if (n)
        out[pos] = 0;
    return out;
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
