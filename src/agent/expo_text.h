/* expo_text.h - Prometheus text format 0.0.4 primitives: families, escaped labels, values. */
#ifndef GPUWATCH_EXPO_TEXT_H
#define GPUWATCH_EXPO_TEXT_H

#include "buf.h"

/* "# HELP name help\n# TYPE name type\n" (help escaped: backslash, newline). */
void expo_family(gw_buf *b, const char *name, const char *help, const char *type);
/* Appends name="value" (value escaped: backslash, double quote, newline), with a leading comma
 * unless *first; clears *first. */
void expo_label(gw_buf *b, int *first, const char *name, const char *value);
/* "name{labels} value\n"; labels is the text between the braces ("" for none). */
void expo_sample(gw_buf *b, const char *name, const char *labels, double value);
/* A value as Prometheus reads it: integers exactly (%lld), NaN, +Inf, -Inf, else %.15g. */
void expo_value(gw_buf *b, double v);

#endif
