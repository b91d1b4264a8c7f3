/* util.c - clocks, logfmt logging and small parsers shared by every layer. */
#include "util.h"
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

int gw_parse_duration(const char *s, double *seconds)
{
    if (!s || !*s)
        return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || v < 0)
        return -1;
    double mult = 1;
    if (*end == 0 || strcmp(end, "s") == 0)
        mult = 1;
    else if (strcmp(end, "ms") == 0)
        mult = 0.001;
    else if (strcmp(end, "m") == 0)
        mult = 60;
    else if (strcmp(end, "h") == 0)
        mult = 3600;
    else if (strcmp(end, "d") == 0)
        mult = 86400;
    else if (strcmp(end, "w") == 0)
        mult = 7 * 86400;
    else
        return -1;
    *seconds = v * mult;
    return 0;
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
