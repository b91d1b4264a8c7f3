/* diag_settings.h - the `diagnosis:` settings: whether the agent diagnoses, over what window and how
 * often, and every threshold (diag_config) by name, read from YAML through the document layer by the
 * agent's config, top.yaml and `gpuwatch diagnose --config FILE` alike, and written back (top). */
#ifndef GPUWATCH_DIAG_SETTINGS_H
#define GPUWATCH_DIAG_SETTINGS_H

#include "buf.h"
#include "diag_config.h"
#include "doc.h"

typedef struct diag_settings {
    int enabled;       /* diagnosis.enabled (default true) */
    double window_s;   /* diagnosis.window: how far back each run looks (default 30 min) */
    double interval_s; /* diagnosis.interval: how often the agent runs it (default 1 min) */
    diag_config cfg;   /* diagnosis.thresholds */
} diag_settings;

void diag_settings_defaults(diag_settings *s);

/* Reads a section of d (section NULL or null: the defaults):
 *   enabled: true
 *   window: 30m
 *   interval: 1m
 *   thresholds:
 *     input_stall: {p95_util: 75}     # or, flat: input_stall.p95_util: 75
 * Problems are added to d's error list with their position. Returns 0, or -1 when there were any. */
int diag_settings_read(gw_doc *d, const doc_node *section, diag_settings *s);
/* The section's lines as diag_settings_read reads them back (indented by two spaces, without the
 * "diagnosis:" line): enabled, window, interval, and the thresholds that are not at their default.
 * Appends to b; 0, or -1 when out of memory. */
int diag_settings_write(const diag_settings *s, gw_buf *b);

#endif
