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

/* "1.5", "100ms", "10s", "5m", "2h", "7d" -> seconds. Returns 0 on success. */
int gw_parse_duration(const char *s, double *seconds);
/* "0,2,5-7" -> flags in sel[0..max-1]. Returns 0 on success. */
int gw_parse_index_list(const char *s, unsigned char *sel, int max);

/* Copies at most n-1 bytes and always terminates. */
void gw_strlcpy(char *dst, const char *src, size_t n);

#endif
