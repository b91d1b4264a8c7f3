/* lead.h - the leading columns of dmon/pmon lines: optional date/time (-o D|T|DT) and the gpu index,
 * laid out as nvidia-smi does (the header's '#' takes the first character). */
#ifndef GPUWATCH_LEAD_H
#define GPUWATCH_LEAD_H

#include <stdint.h>
#include "outbuf.h"

enum { LEAD_HEADER1 = 1, LEAD_HEADER2 = 2, LEAD_ROW = 0 };

/* Appends the lead of one line: for LEAD_HEADER1 the names ("gpu"), for LEAD_HEADER2 the units
 * ("Idx"), for LEAD_ROW the time t_us (local time) and idx_text. */
void lead_add(gw_buf *b, int with_date, int with_time, int line, uint64_t t_us, const char *idx_text);

/* csv: "YYYYMMDD, " and/or "HH:MM:SS, " before a row; "date, " / "time, " before the header. */
void lead_csv_row(gw_buf *b, int with_date, int with_time, uint64_t t_us);
void lead_csv_header(gw_buf *b, int with_date, int with_time);

#endif
