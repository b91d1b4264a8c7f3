/* format.c - value -> text per metric_fmt (nvidia-smi csv conventions) and -> typed JSON. */
#include "cli/format.h"
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static void number_text(char *buf, size_t n, metric_fmt f, double v)
{
    switch (f) {
    case MF_FLOOR:   snprintf(buf, n, "%.0f", floor(v)); break;
    case MF_FIXED1:  snprintf(buf, n, "%.1f", v); break;
    case MF_FIXED2:  snprintf(buf, n, "%.2f", v); break;
    case MF_HEX64:   snprintf(buf, n, "0x%016llX", (unsigned long long)v); break;
    case MF_ACTIVE:  snprintf(buf, n, "%s", v != 0 ? "Active" : "Not Active"); break;
    case MF_ENABLED: snprintf(buf, n, "%s", v != 0 ? "Enabled" : "Disabled"); break;
    case MF_YESNO:   snprintf(buf, n, "%s", v != 0 ? "Yes" : "No"); break;
    case MF_PSTATE:  snprintf(buf, n, "P%d", (int)v); break;
    case MF_STRING:
    case MF_INT:
    default:         snprintf(buf, n, "%.0f", v); break;
    }
}

void fmt_value(char *buf, size_t n, const metric_def *d, double v, int with_unit)
{
    number_text(buf, n, d->fmt, v);
    if (with_unit && d->unit) {
        size_t len = strlen(buf);
        if (len < n)
            snprintf(buf + len, n - len, " %s", d->unit);
    }
}

void fmt_header(char *buf, size_t n, const metric_def *d, int with_unit)
{
    if (with_unit && d->unit)
        snprintf(buf, n, "%s [%s]", d->field, d->unit);
    else
        snprintf(buf, n, "%s", d->field);
}

void fmt_cell(char *buf, size_t n, const metric_def *d, const gpu_info *info, const gpu_sample *s,
              int with_unit)
{
    if (metric_is_string(d->id)) {
        const char *absent = s->status == GPU_LOST ? FMT_LOST : FMT_NA;
        snprintf(buf, n, "%s", mset_has(&info->str_present, d->id) ? info->str[d->id] : absent);
        return;
    }
    if (d->id == M_INDEX) {
        snprintf(buf, n, "%d", info->index);
        return;
    }
    double v;
    if (s->status == GPU_LOST)
        snprintf(buf, n, "%s", FMT_LOST);
    else if (!sample_get(s, d->id, &v))
        snprintf(buf, n, "%s", FMT_NA);
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
    case MF_FLOOR:   return cJSON_CreateNumber(floor(v));
    case MF_FIXED1:  return cJSON_CreateNumber(round(v * 10) / 10);
    case MF_FIXED2:  return cJSON_CreateNumber(round(v * 100) / 100);
    case MF_ACTIVE:
    case MF_ENABLED:
    case MF_YESNO:   return cJSON_CreateBool(v != 0);
    case MF_HEX64:
    case MF_PSTATE:
        number_text(text, sizeof text, d->fmt, v);
        return cJSON_CreateString(text);
    case MF_INT:
    case MF_STRING:
    default:         return cJSON_CreateNumber(round(v));
    }
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
