/* dmon_format.c - dmon column selection from the catalog and its plain/csv/JSON lines. */
#include "dmon_format.h"
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>
#include "format.h"
#include "lead.h"

void dmon_layout_init(dmon_layout *l, const char *letters, int date, int time)
{
    memset(l, 0, sizeof *l);
    l->date = date;
    l->time = time;
    for (const char *g = letters; *g; g++)
        for (int pos = 1; pos < 16; pos++)
            for (int id = 0; id < M_COUNT; id++) {
                const metric_def *d = catalog_get((metric_id)id);
                if (d->dmon_group == *g && d->dmon_pos == pos && d->dmon_col && l->ncols < DMON_MAX_COLS)
                    l->cols[l->ncols++] = d;
            }
}

void dmon_want(const dmon_layout *l, metric_set *want)
{
    memset(want, 0, sizeof *want);
    for (int c = 0; c < l->ncols; c++)
        mset_add(want, l->cols[c]->id);
}

static int dmon_value(const metric_def *d, const gpu_sample *cur, const gpu_sample *prev, long long *out)
{
    double v, before;
    if (cur->status == GPU_LOST || !sample_get(cur, d->id, &v))
        return 0;
    if (d->kind == MK_COUNTER && d->dmon_unit &&
        (strcmp(d->dmon_unit, "%") == 0 || strcmp(d->dmon_unit, "bool") == 0)) {
        if (!prev || prev->status == GPU_LOST || !sample_get(prev, d->id, &before) || cur->t_us <= prev->t_us)
            return 0;
        double grew = v > before ? v - before : 0;
        if (d->dmon_unit[0] == 'b') {
            *out = grew > 0;
        } else {
            double pct = grew / (double)(cur->t_us - prev->t_us) * 100.0;
            *out = pct > 100 ? 100 : (long long)pct;
        }
        return 1;
    }
    *out = (long long)(v / (d->dmon_div > 0 ? d->dmon_div : 1.0));
    return 1;
}

static void cell_text(char *buf, const metric_def *d, const gpu_sample *cur, const gpu_sample *prev)
{
    long long v;
    if (dmon_value(d, cur, prev, &v))
        fmt_int(buf, v);
    else
        buf[0] = '-', buf[1] = 0;
}

void dmon_plain_header(const dmon_layout *l, gw_buf *b)
{
    lead_add(b, l->date, l->time, LEAD_HEADER1, 0, NULL);
    for (int c = 0; c < l->ncols; c++) {
        buf_puts(b, " ");
        ob_pad(b, l->cols[c]->dmon_col, 6);
    }
    buf_puts(b, " \n");
    lead_add(b, l->date, l->time, LEAD_HEADER2, 0, NULL);
    for (int c = 0; c < l->ncols; c++) {
        buf_puts(b, " ");
        ob_pad(b, l->cols[c]->dmon_unit ? l->cols[c]->dmon_unit : "-", 6);
    }
    buf_puts(b, " \n");
}

void dmon_plain_row(const dmon_layout *l, gw_buf *b, int gpu, const gpu_sample *cur, const gpu_sample *prev)
{
    char idx[24], cell[24];
    fmt_int(idx, gpu);
    lead_add(b, l->date, l->time, LEAD_ROW, cur->t_us, idx);
    for (int c = 0; c < l->ncols; c++) {
        cell_text(cell, l->cols[c], cur, prev);
        buf_puts(b, " ");
        ob_pad(b, cell, 6);
    }
    buf_puts(b, cur->status == GPU_LOST ? " " DMON_LOST_MARK "\n" : " \n");
}

void dmon_csv_header(const dmon_layout *l, gw_buf *b, int with_units)
{
    lead_csv_header(b, l->date, l->time);
    buf_puts(b, "gpu");
    for (int c = 0; c < l->ncols; c++) {
        buf_puts(b, ", ");
        buf_puts(b, l->cols[c]->dmon_col);
        if (with_units && l->cols[c]->dmon_unit)
            buf_printf(b, " [%s]", l->cols[c]->dmon_unit);
    }
    buf_puts(b, "\n");
}

void dmon_csv_row(const dmon_layout *l, gw_buf *b, int gpu, const gpu_sample *cur, const gpu_sample *prev)
{
    char cell[24];
    lead_csv_row(b, l->date, l->time, cur->t_us);
    buf_printf(b, "%d", gpu);
    for (int c = 0; c < l->ncols; c++) {
        buf_puts(b, ", ");
        if (cur->status == GPU_LOST) {
            buf_puts(b, FMT_LOST);
        } else {
            cell_text(cell, l->cols[c], cur, prev);
            buf_puts(b, cell);
        }
    }
    buf_puts(b, "\n");
}

void dmon_json_row(const dmon_layout *l, gw_buf *b, int gpu, const gpu_sample *cur, const gpu_sample *prev)
{
    char ts[40];
    fmt_timestamp(ts, sizeof ts, cur->t_us);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "timestamp", ts);
    cJSON_AddNumberToObject(o, "gpu", gpu);
    for (int c = 0; c < l->ncols; c++) {
        long long v;
        if (dmon_value(l->cols[c], cur, prev, &v))
            cJSON_AddNumberToObject(o, l->cols[c]->dmon_col, (double)v);
        else
            cJSON_AddNullToObject(o, l->cols[c]->dmon_col);
    }
    cJSON_AddBoolToObject(o, "lost", cur->status == GPU_LOST);
    char *text = cJSON_PrintUnformatted(o);
    if (text) {
        buf_puts(b, text);
        buf_puts(b, "\n");
    }
    cJSON_free(text);
    cJSON_Delete(o);
}
