/* rollup.h - 1-minute roll-ups (count, min, max, sum, last) of a column, and their encoded rows. */
#ifndef GPUWATCH_ROLLUP_H
#define GPUWATCH_ROLLUP_H

#include <stddef.h>
#include <stdint.h>
#include "bitio.h"

typedef struct rmin {
    int64_t t; /* minute start, microseconds */
    double n, min, max, sum, last;
} rmin;

/* Minute records of the present values of a time-sorted column; out holds at least n. Returns count. */
size_t rollup_minutes(const int64_t *t, const double *v, const uint8_t *present, size_t n, rmin *out);
/* Merges b into a (both sorted by minute; equal minutes combine, b's last wins). out holds na+nb. */
size_t rollup_merge(const rmin *a, size_t na, const rmin *b, size_t nb, rmin *out);

void rollup_encode(gw_buf *out, const rmin *r, size_t n);
/* Decodes into a malloc'd array (*out, *n). Returns 0, or -1 when corrupt. */
int rollup_decode(const uint8_t *p, size_t len, rmin **out, size_t *n);

#endif
