/* format.h - a metric's value as nvidia-smi prints it (csv/table cells, headers) and as typed JSON,
 * driven by the catalog's unit and metric_fmt. */
#ifndef GPUWATCH_FORMAT_H
#define GPUWATCH_FORMAT_H

#include <stddef.h>
#include <cjson/cJSON.h>
#include "sample.h"

#define FMT_NA "[N/A]"
#define FMT_LOST "[GPU is lost]"
#define FMT_CELL_LEN 128

/* The value v of metric d per d->fmt, with " unit" appended when with_unit and d has one. */
void fmt_value(char *buf, size_t n, const metric_def *d, double v, int with_unit);

/* A csv header cell: "field [unit]", or "field" when !with_unit or the metric has no unit. */
void fmt_header(char *buf, size_t n, const metric_def *d, int with_unit);

/* One GPU's cell for metric d: the value, FMT_NA when absent, FMT_LOST for a lost GPU's
 * readings (strings read before the loss and the index are still printed). */
void fmt_cell(char *buf, size_t n, const metric_def *d, const gpu_info *info, const gpu_sample *s, int with_unit);

/* The same as a typed JSON value: string, integer, number, boolean, or null when absent/lost. */
cJSON *fmt_json(const metric_def *d, const gpu_info *info, const gpu_sample *s);

/* Decimal text of v into buf (at least 24 bytes); cheaper than snprintf on hot paths. Returns length. */
int fmt_int(char *buf, long long v);

/* "YYYY/MM/DD HH:MM:SS.mmm" in local time, as nvidia-smi's timestamp field. */
void fmt_timestamp(char *buf, size_t n, uint64_t t_us);
/* Now as nvidia-smi's reports date themselves: "Tue Jul 14 08:12:53 2026" (local time). */
void fmt_smi_date(char *buf, size_t n);

#endif
