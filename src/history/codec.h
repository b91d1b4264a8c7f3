/* codec.h - compressed columns for history chunks: timestamps (delta-of-delta integers) and
 * double values (constant / decimal- or binary-scaled integers with Rice codes / Gorilla XOR or the
 * bit patterns' deltas in Rice codes), with presence. */
#ifndef GPUWATCH_CODEC_H
#define GPUWATCH_CODEC_H

#include <stddef.h>
#include <stdint.h>
#include "bitio.h"

/* Largest count a reader accepts from a column header (larger is treated as corrupt). */
#define CODEC_MAX_COUNT (1u << 22)

/* Value column modes (first byte of a column), exposed for statistics and tests. COL_SCALED (integers
 * at a binary scale, or with a common step) and COL_BITS (the doubles' bit patterns as integers)
 * came with format 2; files may hold all of them. */
enum { COL_CONST = 0, COL_INT = 1, COL_XOR = 2, COL_EMPTY = 3, COL_SCALED = 4, COL_BITS = 5 };

/* Appends a timestamp column of n values (any int64, usually microseconds). */
void codec_put_times(gw_buf *out, const int64_t *t, size_t n);
/* Reads one; *n gets the count (at most max). Returns 0, or -1 on a corrupt or too long column. */
int codec_get_times(byte_cursor *in, int64_t *t, size_t max, size_t *n);
/* The count stored in a timestamp column, without decoding it (the cursor is not moved). */
size_t codec_peek_count(const byte_cursor *in);

/* Appends a value column for n slots; present[i] != 0 marks a value (NULL: all present).
 * Absent slots cost nothing but their share of a run length. Values round-trip bit for bit. */
void codec_put_column(gw_buf *out, const double *v, const uint8_t *present, size_t n);
/* The same as codec_put_column for a column whose only values are v in slots [from, end). */
void codec_put_const_run(gw_buf *out, double v, size_t from, size_t end, size_t n);
/* Reads a column of exactly n slots into v[] and present[] (present may be NULL when the caller
 * only wants values; absent slots are then left untouched). Returns 0, or -1 when corrupt. */
int codec_get_column(byte_cursor *in, double *v, uint8_t *present, size_t n);

/* Mode chosen for the last column that codec_put_column wrote into out (for bench statistics). */
int codec_column_mode(const uint8_t *col);

#endif
