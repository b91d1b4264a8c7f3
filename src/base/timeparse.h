/* timeparse.h - times on the history command line: RFC 3339, Unix seconds, relative durations. */
#ifndef GPUWATCH_TIMEPARSE_H
#define GPUWATCH_TIMEPARSE_H

#include <stddef.h>
#include <stdint.h>

/* The latest time accepted: the year 5138 in Unix seconds; every time is finite and from 1970. */
#define TP_MAX_UNIX_S 1e11
/* Accepts "now"; RFC 3339 ("2025-12-02T11:00:00Z", "...T11:00:00.250+02:00", a space for the T,
 * a date alone = its midnight UTC); Unix seconds ("1764673200", "1764673200.5"); relative times
 * "-3h" / "3h" (a duration with a unit = that long before now). Returns 0, or -1 when invalid. */
int tp_parse_time(const char *s, int64_t now_us, int64_t *out_us);
/* "2025-12-02T11:00:00Z" (with .mmm when not whole seconds). */
void tp_format_rfc3339(int64_t t_us, char *out, size_t n);
/* Local time, as short as the span allows: "HH:MM:SS", "HH:MM" or "MM-DD HH:MM". */
void tp_format_local(int64_t t_us, int64_t span_us, char *out, size_t n);

#endif
