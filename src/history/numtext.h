/* numtext.h - numbers as text for query answers, exact and without printf per value: a double as
 * the shortest of its %.15g / %.16g / %.17g texts that reads back as the same double (the same
 * text printf gives), and a time in microseconds as decimal seconds. */
#ifndef GPUWATCH_NUMTEXT_H
#define GPUWATCH_NUMTEXT_H

#include <stddef.h>
#include <stdint.h>

#define NT_MAX 40 /* room nt_double and nt_seconds need, NUL included */

/* Writes v's text into out (NT_MAX bytes) and returns its length. */
size_t nt_double(double v, char *out);
/* Writes t_us / 1e6 as seconds: the whole seconds, then a point and up to six digits when there is a
 * fraction (trailing zeros dropped). The text reads back as the double (double)t_us / 1e6. */
size_t nt_seconds(int64_t t_us, char *out);

/* nt_seconds for a series of increasing times: the whole seconds' text is kept and counted up. */
typedef struct nt_clock {
    int64_t sec; /* whose text is in text[0, len) */
    size_t len;
    char text[24];
} nt_clock;
size_t nt_seconds_next(nt_clock *c, int64_t t_us, char *out);

#endif
