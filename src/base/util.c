/* util.c - clocks, logfmt logging and small parsers shared by every layer. */
#include "util.h"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

uint64_t gw_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

uint64_t gw_mono_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

void gw_sleep_us(uint64_t us)
{
    struct timespec ts = {(time_t)(us / 1000000u), (long)(us % 1000000u) * 1000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

static gw_log_level log_level = GW_LOG_INFO;
static const char *level_names[] = {"debug", "info", "warn", "error"};

void gw_log_set_level(gw_log_level lvl)
{
    log_level = lvl;
}

int gw_log_parse_level(const char *s, gw_log_level *out)
{
    for (int i = 0; i < 4; i++)
        if (strcmp(s, level_names[i]) == 0) {
            *out = (gw_log_level)i;
            return 0;
        }
    return -1;
}

void gw_log(gw_log_level lvl, const char *msg, const char *kv_fmt, ...)
{
    if (lvl < log_level)
        return;
    char ts[40];
    struct timespec now;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &now);
    gmtime_r(&now.tv_sec, &tm);
    strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%S", &tm);
    char kv[1024] = "";
    if (kv_fmt && *kv_fmt) {
        va_list ap;
        va_start(ap, kv_fmt);
        vsnprintf(kv, sizeof kv, kv_fmt, ap);
        va_end(ap);
    }
    /* One write per line so concurrent threads do not interleave. */
    char line[1400];
    int n = snprintf(line, sizeof line, "ts=%s.%03ldZ level=%s msg=\"%s\"%s%s\n", ts, now.tv_nsec / 1000000L,
                     level_names[lvl], msg, *kv ? " " : "", kv);
    if (n > 0)
        fwrite(line, 1, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1, stderr);
}

/* One number and its unit at *p ("1.5m"); advances *p. Units: ms, s, m, min, h, d, w, y. */
static int duration_part(const char **p, double *us, int *rank)
{
    static const struct {
        const char *unit;
        double us;
    } units[] = {{"ms", 1e3},   {"min", 60e6},  {"s", 1e6},      {"m", 60e6},
                 {"h", 3600e6}, {"d", 86400e6}, {"w", 604800e6}, {"y", 31536000e6}};
    static const int ranks[] = {0, 2, 1, 2, 3, 4, 5, 6};
    /* Plain decimals only: digits with at most one point (no sign, exponent, hex, inf or nan). */
    size_t len = strspn(*p, "0123456789.");
    const char *point = memchr(*p, '.', len);
    if (len == 0 || len > 30 || (point && memchr(point + 1, '.', len - (size_t)(point - *p) - 1)) ||
        (len == 1 && point))
        return -1;
    char num[32];
    memcpy(num, *p, len);
    num[len] = 0;
    double v = strtod(num, NULL);
    const char *end = *p + len;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        size_t ulen = strlen(units[i].unit);
        if (strncmp(end, units[i].unit, ulen) == 0) { /* "ms" and "min" come before "m" */
            *us = v * units[i].us;
            *rank = ranks[i];
            *p = end + ulen;
            return 0;
        }
    }
    if (*end == 0) { /* a bare number: seconds */
        *us = v * 1e6;
        *rank = -1;
        *p = end;
        return 0;
    }
    return -1;
}

int gw_parse_duration_us(const char *s, int64_t *us)
{
    if (!s || !*s)
        return -1;
    double total = 0;
    int last_rank = 100, parts = 0;
    for (const char *p = s; *p; parts++) {
        double part;
        int rank;
        if (duration_part(&p, &part, &rank) != 0)
            return -1;
        if (rank < 0 && parts > 0) /* "1m30": a bare number only on its own */
            return -1;
        if (rank >= last_rank) /* units from the largest down, each once: "1h30m", not "30m1h" */
            return -1;
        last_rank = rank;
        total += part;
    }
    if (!(total <= GW_DURATION_MAX_S * 1e6))
        return -1;
    *us = (int64_t)llround(total);
    return 0;
}

int gw_parse_duration(const char *s, double *seconds)
{
    int64_t us;
    if (gw_parse_duration_us(s, &us) != 0)
        return -1;
    *seconds = (double)us / 1e6;
    return 0;
}

int gw_parse_size(const char *s, uint64_t *bytes)
{
    static const struct {
        const char *unit;
        double mult;
    } units[] = {{"", 1},
                 {"b", 1},
                 {"k", 1e3},
                 {"kb", 1e3},
                 {"kib", 1024.0},
                 {"m", 1e6},
                 {"mb", 1e6},
                 {"mib", 1048576.0},
                 {"g", 1e9},
                 {"gb", 1e9},
                 {"gib", 1073741824.0},
                 {"t", 1e12},
                 {"tb", 1e12},
                 {"tib", 1099511627776.0}};
    if (!s || !isdigit((unsigned char)*s))
        return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || !isfinite(v))
        return -1;
    while (isspace((unsigned char)*end))
        end++;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcasecmp(end, units[i].unit) == 0) {
            double b = v * units[i].mult;
            if (b >= 18446744073709551615.0)
                return -1;
            *bytes = (uint64_t)b;
            return 0;
        }
    return -1;
}

int gw_parse_index_list(const char *s, unsigned char *sel, int max)
{
    memset(sel, 0, (size_t)max);
    if (!s || !*s)
        return -1;
    const char *p = s;
    while (*p) {
        char *end;
        long a = strtol(p, &end, 10);
        if (end == p || a < 0 || a >= max)
            return -1;
        long b = a;
        if (*end == '-') {
            p = end + 1;
            b = strtol(p, &end, 10);
            if (end == p || b < a || b >= max)
                return -1;
        }
        for (long i = a; i <= b; i++)
            sel[i] = 1;
        if (*end == ',')
            p = end + 1;
        else if (*end == 0)
            p = end;
        else
            return -1;
    }
    return 0;
}

void gw_strlcpy(char *dst, const char *src, size_t n)
{
    if (n == 0)
        return;
    size_t len = strlen(src);
    if (len >= n)
        len = n - 1;
    memcpy(dst, src, len);
    dst[len] = 0;
}

void gw_format_number(double v, char *buf, size_t n)
{
    if (isnan(v)) {
        snprintf(buf, n, "NaN");
        return;
    }
    if (isinf(v)) {
        snprintf(buf, n, v > 0 ? "+Inf" : "-Inf");
        return;
    }
    int prec = 1;
    char tmp[64];
    for (; prec < 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*e", prec - 1, v);
        if (strtod(tmp, NULL) == v)
            break;
    }
    double a = fabs(v);
    if (v != 0 && (a >= 1e21 || a < 1e-4)) {
        /* Go writes 1e+21, 2.5e-05: mantissa without trailing zeros, exponent at least 2 digits. */
        snprintf(buf, n, "%.*e", prec - 1, v);
        return;
    }
    int exp10 = v == 0 ? 0 : (int)floor(log10(a));
    int decimals = prec - 1 - exp10;
    snprintf(buf, n, "%.*f", decimals > 0 ? decimals : 0, v);
}

void gw_format_duration(double s, char *out, size_t n)
{
    static const struct {
        const char *unit;
        double size;
    } units[] = {{"d", 86400}, {"h", 3600}, {"m", 60}, {"s", 1}, {"ms", 0.001}};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        double k = s / units[i].size;
        if (s >= units[i].size && fabs(k - round(k)) < 1e-9 * (k > 1 ? k : 1)) {
            snprintf(out, n, "%.0f%s", round(k), units[i].unit);
            return;
        }
    }
    snprintf(out, n, "%gs", s);
}
