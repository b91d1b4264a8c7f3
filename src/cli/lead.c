/* lead.c - date/time and gpu-index leading columns for dmon and pmon lines. */
#include "lead.h"
#include <time.h>

void lead_add(gw_buf *b, int with_date, int with_time, int line, uint64_t t_us, const char *idx_text)
{
    const char *idx = line == LEAD_HEADER1 ? "gpu" : line == LEAD_HEADER2 ? "Idx" : idx_text;
    if (!with_date && !with_time) {
        if (line == LEAD_ROW) {
            ob_pad(b, idx, 5);
        } else {
            buf_puts(b, "#");
            ob_pad(b, idx, 4);
        }
        return;
    }
    char day[16] = "", clock[16] = "";
    if (line == LEAD_ROW) {
        time_t sec = (time_t)(t_us / 1000000u);
        struct tm tm;
        localtime_r(&sec, &tm);
        strftime(day, sizeof day, "%Y%m%d", &tm);
        strftime(clock, sizeof clock, "%H:%M:%S", &tm);
    }
    /* Header line 1 puts '#' inside the first column's 8 characters; line 2 and rows before it. */
    if (with_date) {
        if (line == LEAD_HEADER1)
            ob_pad(b, "#Date", with_time ? -13 : -8);
        else if (line == LEAD_HEADER2)
            buf_puts(b, with_time ? "#YYYYMMDD    " : "#YYYYMMDD");
        else {
            buf_puts(b, " ");
            buf_puts(b, day);
            if (with_time)
                buf_puts(b, "    ");
        }
    }
    if (with_time) {
        if (line == LEAD_HEADER1)
            ob_pad(b, with_date ? "Time" : "#Time", -8);
        else if (line == LEAD_HEADER2)
            buf_puts(b, with_date ? "HH:MM:SS" : "#HH:MM:SS");
        else {
            if (!with_date)
                buf_puts(b, " ");
            buf_puts(b, clock);
        }
    }
    ob_pad(b, idx, 8);
}

void lead_csv_row(gw_buf *b, int with_date, int with_time, uint64_t t_us)
{
    if (!with_date && !with_time)
        return;
    time_t sec = (time_t)(t_us / 1000000u);
    struct tm tm;
    char text[16];
    localtime_r(&sec, &tm);
    if (with_date) {
        strftime(text, sizeof text, "%Y%m%d", &tm);
        buf_puts(b, text);
        buf_puts(b, ", ");
    }
    if (with_time) {
        strftime(text, sizeof text, "%H:%M:%S", &tm);
        buf_puts(b, text);
        buf_puts(b, ", ");
    }
}

void lead_csv_header(gw_buf *b, int with_date, int with_time)
{
    if (with_date)
        buf_puts(b, "date, ");
    if (with_time)
        buf_puts(b, "time, ");
}
