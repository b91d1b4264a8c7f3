/* history_export.h - a recorded range as a gpusim scenario (YAML + CSV traces), for `gpuwatch history
 * export`. */
#ifndef GPUWATCH_HISTORY_EXPORT_H
#define GPUWATCH_HISTORY_EXPORT_H

#include <stdint.h>
#include "store.h"

/* Writes dir/scenario.yaml and its CSV files for [from, to] of the selected GPUs (sel NULL = all).
 * Returns 0, or -1 with a message in err. */
int history_export(store *st, int64_t from_us, int64_t to_us, const unsigned char *sel, const char *dir, char *err,
                   size_t n);

#endif
