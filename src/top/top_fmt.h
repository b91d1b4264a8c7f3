/* top_fmt.h - pure text helpers for top: bars, sparklines, throttle words, thresholds, units. */
#ifndef GPUWATCH_TOP_FMT_H
#define GPUWATCH_TOP_FMT_H

#include <stddef.h>
#include <stdint.h>

/* Severity of a value against warn/critical thresholds. */
typedef enum { LVL_OK = 0, LVL_WARN = 1, LVL_CRIT = 2 } top_level;

top_level fmt_level(double value, double warn, double crit);

/* A bar of `cells` terminal columns filled to frac (0..1). Unicode uses eighth blocks,
 * ASCII uses '|'. Empty cells are spaces. Returns out. */
char *fmt_bar(char *out, size_t n, double frac, int cells, int ascii);

/* One character per value, scaled between lo and hi; NaN (no value) is a space. */
char *fmt_sparkline(char *out, size_t n, const double *vals, int count, double lo, double hi, int ascii);

/* Active clock-event (throttle) reasons of a mask, in words from the catalog's
 * clocks_event_reasons.* rows, comma separated ("" when none). Idle is left out unless
 * include_idle. Returns the number of reasons written. */
int fmt_throttle_words(uint64_t mask, int include_idle, char *out, size_t n);
/* A ", " separated list in at most cols columns, never cut inside an item: the leading items that
 * fit, then " +K" for the K left out; when not even one fits, "WHAT (K)" where that fits, else "".
 * Returns out. */
char *fmt_fit_list(char *out, size_t n, const char *list, int cols, const char *what);

/* v with 0 to 3 decimals then suffix, as snprintf("%.*f%s") writes it, without its cost for the
 * common case. Returns out. */
char *fmt_fixed(char *out, size_t n, double v, int decimals, const char *suffix);
/* The strings up to a NULL one after the other, cut to fit. Returns out. */
char *fmt_join(char *out, size_t n, ...) __attribute__((sentinel));
/* 812 MiB, 41.2 GiB, 1.50 TiB */
char *fmt_mib(char *out, size_t n, double mib);
/* KB/s (NVML's unit, 1000 bytes) as 12 KB/s, 350 MB/s, 1.2 GB/s */
char *fmt_kbs(char *out, size_t n, double kbs);
/* seconds as 45s, 12:34, 3:04:05, 2d03h */
char *fmt_duration(char *out, size_t n, uint64_t secs);

/* Terminal columns of a character (1 for ASCII; wcwidth, at least 0, otherwise). */
int fmt_cp_cols(uint32_t cp);
/* Terminal columns taken by a UTF-8 string. */
int fmt_cols(const char *s);

/* s in plain ASCII for terminals without Unicode: the degree sign is dropped ("92 °C" -> "92 C"),
 * any other non-ASCII character becomes '?'. */
char *fmt_ascii(char *out, size_t n, const char *s);

/* s padded with spaces to `cols` columns (left-aligned, or right-aligned when right), never cut. */
char *fmt_pad(char *out, size_t n, const char *s, int cols, int right);

#endif
