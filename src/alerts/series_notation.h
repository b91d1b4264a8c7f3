/* series_notation.h - promtool's expanding notation for test input: "80+1x10 95x20 _ _x3". */
#ifndef GPUWATCH_SERIES_NOTATION_H
#define GPUWATCH_SERIES_NOTATION_H

#include <stddef.h>

/* One value per step; present[i] is 0 for '_' (no sample). */
typedef struct series_values {
    double *v;
    unsigned char *present;
    int n;
} series_values;

/* The most values one series expands to (a rule test's input is a user's file). */
#define SERIES_MAX_VALUES 2000000

/* 'a' one value, 'axn' n+1 times a, 'a+bxn' / 'a-bxn' n+1 values from a by b, '_' one gap,
 * '_xn' n gaps, 'stale' a gap. Returns 0, -1 with a message naming the bad token, or SERIES_OOM
 * ("out of memory"); out is empty after an error. */
int series_expand(const char *text, series_values *out, char *err, size_t errlen);
#define SERIES_OOM -2
void series_values_free(series_values *s);

#endif
