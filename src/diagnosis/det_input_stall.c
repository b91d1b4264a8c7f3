/* det_input_stall.c - input_stall: the GPU swings between busy and idle periodically, waiting
 * for its input between steps. SageMaker Debugger's fluctuation rule (p95 > 70 %, p5 < 10 %) or
 * Nsight Systems' gpu_gaps (idle gaps >= 500 ms), and in both cases regular cycles (see
 * diag_cycles.c): irregular inference bursts, one gap between jobs or a warm-up are not stalls. */
#include "diag_internal.h"
#include <stdio.h>

#define LONG_BUSY_S 30 /* a busy phase this long spans many steps */

static void advise(diag_finding *f)
{
    diag_finding_advice(f, "Give the DataLoader more workers (num_workers, about the CPU cores per GPU) and keep "
                           "them alive between epochs (persistent_workers=True)");
    diag_finding_advice(f, "Use pin_memory=True and copy batches with non_blocking=True so copies overlap compute");
    diag_finding_advice(f, "Prefetch more batches (prefetch_factor) or a device-side prefetcher; decode on the GPU "
                           "(e.g. DALI, nvJPEG) when decoding images or video is the slow part");
    diag_finding_advice(f, "Check storage and decoding throughput: local NVMe or a cached copy of the dataset instead "
                           "of a network file system, larger record files, fewer small files");
}

static void report(diag_ctx *c, diag_gpu_view *v, const diag_cycles *cy, int swing)
{
    const diag_config *cfg = c->cfg;
    double idle_share = 1 - cy->duty;
    diag_severity sev = diag_level(c, "input_stall", v->gpu, idle_share - cfg->input_stall.critical_idle_share,
                                   cfg->input_stall.severity_margin, DIAG_WARNING, DIAG_CRITICAL);
    diag_finding *f = diag_emit(c, "input_stall", sev, v->gpu, v->act_from, v->act_to);
    if (!f)
        return;
    f->score = idle_share;
    diag_finding_num(f, "period_s", cy->period_s, "s");
    diag_finding_num(f, "duty_cycle", cy->duty, "");
    diag_finding_num(f, "idle_share", idle_share, "");
    diag_finding_num(f, "idle_gap_s", cy->gap_s, "s");
    diag_finding_num(f, "busy_util", cy->busy_level, "%");
    diag_finding_num(f, "idle_util", cy->idle_level, "%");
    diag_finding_num(f, "p95_util", cy->p95, "%");
    diag_finding_num(f, "p5_util", cy->p5, "%");
    diag_finding_num(f, "cycles", cy->cycles, "");
    diag_finding_num(f, "autocorrelation", cy->acf_peak, "");
    diag_finding_num(f, "cycle_cv", cy->cv, "");
    diag_finding_str(f, "rule", "%s", swing ? "fluctuation (p95/p5)" : "recurring idle gaps");
    char who[160] = "";
    const diag_proc *p[1];
    if (diag_procs_in(c, v->gpu, v->act_from, v->act_to, p, 1) == 1) {
        char label[140];
        diag_proc_label(p[0], label, sizeof label);
        snprintf(who, sizeof who, " (%s)", label);
    }
    diag_finding_summary(f,
                         "GPU %d waits for input%s: utilization swings between %.0f %% and %.0f %% every %.1f s, "
                         "idle %.0f %% of each cycle (gaps of %.1f s)",
                         v->gpu, who, cy->idle_level, cy->busy_level, cy->period_s, idle_share * 100, cy->gap_s);
    advise(f);
    if (cy->duty * cy->period_s >= LONG_BUSY_S)
        diag_finding_advice(f,
                            "A gap every %.0f s after %.0f s of work is often a boundary, not each batch: workers "
                            "restarting each epoch (persistent_workers=True), evaluation metrics on the CPU, logging "
                            "or checkpoint writes",
                            cy->period_s, cy->duty * cy->period_s);
    /* a dozen cycles, so the swing shows */
    uint64_t span = (uint64_t)(cy->period_s * 12e6);
    uint64_t from = v->act_to > v->act_from + span ? v->act_to - span : v->act_from;
    diag_chart_series(f, &v->g->s[DS_UTIL], v->gpu, "utilization.gpu", "%", from, v->act_to, 1);
}

void det_input_stall(diag_ctx *c)
{
    const diag_config *cfg = c->cfg;
    for (int i = 0; i < c->n_views; i++) {
        diag_gpu_view *v = &c->views[i];
        if (v->n_act < 2 || v->act_s < cfg->input_stall.min_duration_s)
            continue;
        const diag_cycles *cy = diag_view_cycles(c, v);
        if (!cy->valid || !cy->periodic)
            continue;
        int swing = cy->p95 > cfg->input_stall.p95_util && cy->p5 < cfg->input_stall.p5_util;
        int gaps = cy->p5 < cfg->input_stall.p5_util && cy->p95 >= cfg->input_stall.busy_util &&
                   cy->gap_s >= cfg->input_stall.min_gap_s;
        if (!swing && !gaps)
            continue;
        v->flags |= VIEW_STALL;
        report(c, v, cy, swing);
    }
}
