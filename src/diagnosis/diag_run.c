/* diag_run.c - the detector table and the run: prepare the per-GPU views, run each enabled
 * detector in table order (later ones read the marks earlier ones leave: low_util skips GPUs
 * that input_stall or imbalance explained, the utilization detectors skip a job collective_hang
 * found hung), then sort the findings worst first. */
#include "diag_internal.h"
#include <stddef.h>

#define DET(ID)                                          \
    {                                                    \
#ID, det_##ID, offsetof(diag_config, ID.enabled) \
    }

const diag_detector diag_detectors[] = {
    DET(hw_health),     DET(app_fault),   DET(row_remap),           DET(nvlink_errors),
    DET(pcie_degraded), DET(thermal),     DET(power_cap),           DET(clocks_low),
    DET(memory_full),   DET(memory_leak), DET(alloc_fragmentation), DET(collective_hang),
    DET(idle_holding),  DET(input_stall), DET(launch_bound),        DET(pcie_bound),
    DET(imbalance),     DET(low_util),
};
const int diag_n_detectors = (int)(sizeof diag_detectors / sizeof diag_detectors[0]);

int diag_detector_count(void)
{
    return diag_n_detectors;
}

const char *diag_detector_id(int i)
{
    return i >= 0 && i < diag_n_detectors ? diag_detectors[i].id : NULL;
}

int diag_run(const diag_window *w, const diag_config *cfg, diag_report *out)
{
    return diag_run_from(w, cfg, NULL, out);
}

int diag_run_from(const diag_window *w, const diag_config *cfg, const diag_report *prev, diag_report *out)
{
    diag_config defaults;
    if (!cfg) {
        diag_config_defaults(&defaults);
        cfg = &defaults;
    }
    diag_report_clear(out);
    diag_ctx c;
    if (diag_ctx_init(&c, w, cfg, out) != 0) {
        diag_ctx_free(&c);
        return -1;
    }
    c.prev = prev == out ? NULL : prev; /* out was cleared: it cannot be the previous report */
    out->from_us = c.from_us;
    out->to_us = c.to_us;
    for (int i = 0; i < diag_n_detectors; i++) {
        const double *enabled = (const double *)((const char *)cfg + diag_detectors[i].enabled_off);
        if (*enabled >= 0.5)
            diag_detectors[i].run(&c);
    }
    diag_ctx_free(&c);
    diag_report_sort(out);
    return out->oom ? -1 : out->n;
}
