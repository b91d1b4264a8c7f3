/* util.h - small helpers used across gpuwatch: clocks, logging (logfmt), parsing. */
#ifndef GPUWATCH_UTIL_H
#define GPUWATCH_UTIL_H

#include <stdint.h>
#include <stddef.h>

uint64_t gw_now_us(void);  /* CLOCK_REALTIME in microseconds */
uint64_t gw_mono_us(void); /* CLOCK_MONOTONIC in microseconds */
void gw_sleep_us(uint64_t us);

/* logfmt to stderr: ts=... level=... msg="..." then key=value pairs given as fmt. */
typedef enum { GW_LOG_DEBUG, GW_LOG_INFO, GW_LOG_WARN, GW_LOG_ERROR } gw_log_level;
void gw_log_set_level(gw_log_level lvl);
int gw_log_parse_level(const char *s, gw_log_level *out);
void gw_log(gw_log_level lvl, const char *msg, const char *kv_fmt, ...) __attribute__((format(printf, 3, 4)));

/* The one duration grammar, for flags, config, rules, rule tests, scenarios and query parameters:
 * Prometheus durations plus decimals. A bare number is seconds ("90", "1.5"); otherwise numbers each
 * followed by a unit, largest first, each unit once ("500ms", "1.5m", "1h30m", "13m20s"): ms, s,
 * m (or min), h, d, w (7 days), y (365 days). Negative, non-finite and over GW_DURATION_MAX_S are
 * refused. Returns 0, or -1 when s is not a duration. */
#define GW_DURATION_MAX_S (100.0 * 365 * 86400)
int gw_parse_duration(const char *s, double *seconds);
int gw_parse_duration_us(const char *s, int64_t *us); /* the same, in whole microseconds */
/* A size in bytes: a number with an optional unit, decimal (k, kB, M, MB, G, GB, T, TB) or binary
 * (KiB, MiB, GiB, TiB), any case ("500MB", "2GiB", "1048576"). Returns 0, or -1. */
int gw_parse_size(const char *s, uint64_t *bytes);
/* "0,2,5-7" -> flags in sel[0..max-1]. Returns 0 on success. */
int gw_parse_index_list(const char *s, unsigned char *sel, int max);

/* A duration as gw_parse_duration reads it back, in its largest whole unit: "1d", "30m", "100ms", "1500ms". */
void gw_format_duration(double seconds, char *out, size_t n);

/* A number as Go's fmt prints a float64 with %v, the shortest text that reads back as v (what
 * Prometheus shows for $value and what the history writes of an alert's value): 95, 0.25, 1e+21,
 * 2.5e-05, NaN, +Inf. */
void gw_format_number(double v, char *buf, size_t n);

/* Copies at most n-1 bytes and always terminates. */
void gw_strlcpy(char *dst, const char *src, size_t n);

#endif
