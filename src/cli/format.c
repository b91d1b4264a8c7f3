/* format.c - value -> text per metric_fmt (nvidia-smi csv conventions) and -> typed JSON. */
#include "format.h"
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "util.h"

int fmt_int(char *buf, long long v)
{
    char tmp[24];
    int n = 0, neg = v < 0;
    unsigned long long u = neg ? 0ull - (unsigned long long)v : (unsigned long long)v;
    do {
        tmp[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (neg)
        tmp[n++] = '-';
    for (int i = 0; i < n; i++)
        buf[i] = tmp[n - 1 - i];
    buf[n] = 0;
    return n;
}

/* %.0f of a whole number, without snprintf; other values go to snprintf (same rounding). */
static void whole_text(char *buf, size_t n, double v)
{
    if (v == floor(v) && fabs(v) < 1e15 && n >= 24 && !(v == 0 && signbit(v)))
        fmt_int(buf, (long long)v);
    else
        snprintf(buf, n, "%.0f", v);
}

/* names[v] of an MF_ENUM metric, or NULL when v is not one of its values. */
static const char *enum_name(const metric_def *d, double v)
{
    if (!d->names || !(v >= 0) || v != floor(v))
        return NULL;
    for (int i = 0; d->names[i]; i++)
        if (i == (int)v)
            return d->names[i];
    return NULL;
}

static void number_text(char *buf, size_t n, const metric_def *d, double v)
{
    const char *name;
    switch (d->fmt) {
    case MF_FLOOR: whole_text(buf, n, floor(v)); break;
    case MF_FIXED1: snprintf(buf, n, "%.1f", v); break;
    case MF_FIXED2: snprintf(buf, n, "%.2f", v); break;
    case MF_HEX64: snprintf(buf, n, "0x%016llX", (unsigned long long)v); break;
    case MF_ACTIVE: gw_strlcpy(buf, v != 0 ? "Active" : "Not Active", n); break;
    case MF_ENABLED: gw_strlcpy(buf, v != 0 ? "Enabled" : "Disabled", n); break;
    case MF_YESNO: gw_strlcpy(buf, v != 0 ? "Yes" : "No", n); break;
    case MF_PSTATE: snprintf(buf, n, "P%d", (int)v); break;
    case MF_ENUM:
        if ((name = enum_name(d, v)) != NULL)
            gw_strlcpy(buf, name, n);
        else
            whole_text(buf, n, v);
        break;
    case MF_STRING:
    case MF_INT:
    default: whole_text(buf, n, v); break;
    }
}

void fmt_value(char *buf, size_t n, const metric_def *d, double v, int with_unit)
{
    number_text(buf, n, d, v);
    if (with_unit && d->unit) {
        size_t len = strlen(buf), ulen = strlen(d->unit);
        if (len + 1 + ulen < n) {
            buf[len] = ' ';
            memcpy(buf + len + 1, d->unit, ulen + 1);
        }
    }
}

void fmt_header(char *buf, size_t n, const metric_def *d, int with_unit)
{
    if (with_unit && d->unit)
        snprintf(buf, n, "%s [%s]", d->field, d->unit);
    else
        snprintf(buf, n, "%s", d->field);
}

void fmt_cell(char *buf, size_t n, const metric_def *d, const gpu_info *info, const gpu_sample *s, int with_unit)
{
    if (metric_is_string(d->id)) {
        const char *absent = s->status == GPU_LOST ? FMT_LOST : FMT_NA;
        gw_strlcpy(buf, mset_has(&info->str_present, d->id) ? info->str[d->id] : absent, n);
        return;
    }
    if (d->id == M_INDEX) {
        if (n >= 24)
            fmt_int(buf, info->index);
        else
            snprintf(buf, n, "%d", info->index);
        return;
    }
    double v;
    if (s->status == GPU_LOST)
        gw_strlcpy(buf, FMT_LOST, n);
    else if (!sample_get(s, d->id, &v))
        gw_strlcpy(buf, FMT_NA, n);
    else
        fmt_value(buf, n, d, v, with_unit);
}

cJSON *fmt_json(const metric_def *d, const gpu_info *info, const gpu_sample *s)
{
    if (metric_is_string(d->id))
        return mset_has(&info->str_present, d->id) ? cJSON_CreateString(info->str[d->id]) : cJSON_CreateNull();
    if (d->id == M_INDEX)
        return cJSON_CreateNumber(info->index);
    double v;
    if (s->status == GPU_LOST || !sample_get(s, d->id, &v))
        return cJSON_CreateNull();
    char text[FMT_CELL_LEN];
    switch (d->fmt) {
    case MF_FLOOR: return cJSON_CreateNumber(floor(v));
    case MF_FIXED1: return cJSON_CreateNumber(round(v * 10) / 10);
    case MF_FIXED2: return cJSON_CreateNumber(round(v * 100) / 100);
    case MF_ACTIVE:
    case MF_ENABLED:
    case MF_YESNO: return cJSON_CreateBool(v != 0);
    case MF_HEX64:
    case MF_ENUM:
    case MF_PSTATE: number_text(text, sizeof text, d, v); return cJSON_CreateString(text);
    case MF_INT:
    case MF_STRING:
    default: return cJSON_CreateNumber(round(v));
    }
}

void fmt_smi_date(char *buf, size_t n)
{
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(buf, n, "%a %b %e %H:%M:%S %Y", &tm);
}

void fmt_timestamp(char *buf, size_t n, uint64_t t_us)
{
    time_t sec = (time_t)(t_us / 1000000u);
    struct tm tm;
    localtime_r(&sec, &tm);
    char day[32];
    strftime(day, sizeof day, "%Y/%m/%d %H:%M:%S", &tm);
    snprintf(buf, n, "%s.%03u", day, (unsigned)(t_us % 1000000u / 1000u));
}
