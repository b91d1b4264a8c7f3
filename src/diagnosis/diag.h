/* diag.h - the diagnosis layer's entry point: given a window of samples (diag_window.h) and the
 * thresholds (diag_config.h), diag_run returns findings (diag_report.h) that say which GPU, which
 * process, what bottleneck, since when, the evidence and what to do. It never calls NVML. */
#ifndef GPUWATCH_DIAG_H
#define GPUWATCH_DIAG_H

#include "diag_window.h"
#include "diag_config.h"
#include "diag_report.h"

/* Runs every enabled detector over the window; out is cleared first and filled worst first.
 * cfg NULL uses the defaults. Returns the number of findings, or -1 when out of memory. */
int diag_run(const diag_window *w, const diag_config *cfg, diag_report *out);
/* The same, for a sliding window diagnosed again and again (the agent): prev is the previous run's
 * report (NULL: none). A measure near the threshold between two severities (an idle share near
 * input_stall.critical_idle_share, ...) keeps the severity prev gave that detector on that GPU, so
 * that noise between runs does not make it flap; it changes once the measure is clear of the
 * threshold by the detector's severity_margin. prev and out must differ. */
int diag_run_from(const diag_window *w, const diag_config *cfg, const diag_report *prev, diag_report *out);

/* The detector ids, in run order: i from 0 to diag_detector_count() - 1. */
int diag_detector_count(void);
const char *diag_detector_id(int i);

#endif
