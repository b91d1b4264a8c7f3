/* top_series.h - time series for sparklines and charts, bucketed from the history ring. */
#ifndef GPUWATCH_TOP_SERIES_H
#define GPUWATCH_TOP_SERIES_H

#include "ring.h"

typedef enum { SER_UTIL, SER_MEM_PCT, SER_POWER, SER_TEMP, SER_HBM, SER_COUNT } series_kind;

/* The value a series takes in one sample; 0 when the sample has none. */
int series_value(const gpu_sample *s, series_kind k, double *v);
/* Label and unit of a series (from the catalog where the catalog has one). */
const char *series_label(series_kind k);
const char *series_unit(series_kind k);

/* Fills out[0..buckets-1] with the series over the `buckets * bucket_s` seconds that end at
 * end_us (out[buckets-1] is the newest); a bucket holds the mean of its samples, NaN if none. */
void series_fill(ring *r, int gpu, series_kind k, uint64_t end_us, double bucket_s, int buckets, double *out);

#endif
