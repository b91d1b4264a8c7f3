/* timeparse.c - parsing and printing the times of history queries (UTC by default, offsets honoured). */
#include "timeparse.h"
#include "util.h"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int digits(const char *s, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (!isdigit((unsigned char)s[i]))
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return 0;
}

static int parse_rfc3339(const char *s, int64_t *out)
{
    int Y, M, D, h = 0, m = 0, sec = 0;
    if (strlen(s) < 10 || digits(s, 4, &Y) || s[4] != '-' || digits(s + 5, 2, &M) || s[7] != '-' ||
        digits(s + 8, 2, &D))
        return -1;
    const char *p = s + 10;
    double frac = 0;
    int offset_s = 0;
    if (*p == 'T' || *p == 't' || *p == ' ') {
        if (digits(p + 1, 2, &h) || p[3] != ':' || digits(p + 4, 2, &m))
            return -1;
        p += 6;
        if (*p == ':') {
            if (digits(p + 1, 2, &sec))
                return -1;
            p += 3;
        }
        if (*p == '.') {
            char *end;
            frac = strtod(p, &end);
            if (end == p + 1)
                return -1;
            p = end;
        }
        if (*p == 'Z' || *p == 'z') {
            p++;
        } else if (*p == '+' || *p == '-') {
            int oh, om;
            if (digits(p + 1, 2, &oh) || p[3] != ':' || digits(p + 4, 2, &om))
                return -1;
            offset_s = (oh * 3600 + om * 60) * (*p == '-' ? -1 : 1);
            p += 6;
        }
    }
    if (*p || Y < 1970 || M < 1 || M > 12 || D < 1 || D > 31 || h > 23 || m > 59 || sec > 60 || !(frac < 1))
        return -1;
    struct tm tm = {.tm_year = Y - 1900, .tm_mon = M - 1, .tm_mday = D, .tm_hour = h, .tm_min = m, .tm_sec = sec};
    time_t t = timegm(&tm);
    int64_t us = ((int64_t)t - offset_s) * 1000000 + (int64_t)llround(frac * 1e6);
    /* the range every time has (a year past ~5100, or 1970 less an offset, is none) */
    if (t == (time_t)-1 || us < 0 || (double)us > TP_MAX_UNIX_S * 1e6)
        return -1;
    *out = us;
    return 0;
}

int tp_parse_time(const char *s, int64_t now_us, int64_t *out_us)
{
    if (!s || !*s)
        return -1;
    if (strcmp(s, "now") == 0) {
        *out_us = now_us;
        return 0;
    }
    if (parse_rfc3339(s, out_us) == 0)
        return 0;
    size_t digits_len = strspn(s, "0123456789.");
    if (digits_len && s[digits_len] == 0) { /* a bare number: Unix seconds (plain decimals only) */
        char *end;
        errno = 0;
        double v = strtod(s, &end);
        if (errno || *end || !(v >= 0 && v <= TP_MAX_UNIX_S))
            return -1;
        *out_us = (int64_t)llround(v * 1e6);
        return 0;
    }
    int64_t d;
    const char *dur = s[0] == '-' ? s + 1 : s;
    if (!isdigit((unsigned char)dur[0]) && dur[0] != '.')
        return -1;
    if (gw_parse_duration_us(dur, &d) != 0)
        return -1;
    *out_us = d < now_us ? now_us - d : 0; /* further back than 1970: from the start */
    return 0;
}

void tp_format_rfc3339(int64_t t_us, char *out, size_t n)
{
    time_t secs = (time_t)(t_us >= 0 ? t_us / 1000000 : (t_us - 999999) / 1000000);
    int64_t us = t_us - (int64_t)secs * 1000000;
    struct tm tm;
    gmtime_r(&secs, &tm);
    char base[32];
    strftime(base, sizeof base, "%Y-%m-%dT%H:%M:%S", &tm);
    if (us)
        snprintf(out, n, "%s.%03dZ", base, (int)(us / 1000));
    else
        snprintf(out, n, "%sZ", base);
}

void tp_format_local(int64_t t_us, int64_t span_us, char *out, size_t n)
{
    time_t secs = (time_t)(t_us / 1000000);
    struct tm tm;
    localtime_r(&secs, &tm);
    const char *fmt = span_us > 86400ll * 1000000 ? "%m-%d %H:%M" : span_us > 3600ll * 1000000 ? "%H:%M" : "%H:%M:%S";
    strftime(out, n, fmt, &tm);
}
