/* det_clocks_low.c - clocks_low: the SM clock stays well below its maximum while the GPU is busy and
 * nothing that should lower it is at work: no power cap, no thermal slowdown, no power brake
 * (NVML: with no reason set, "clocks are as high as possible"). What holds it is named: HW
 * slowdown asserted from outside the GPU, an applications clock set low, a GPU stuck in a low
 * P-state, else clocks locked (nvidia-smi -lgc), which NVML reports with no reason at all. */
#include "diag_internal.h"
#include <math.h>
#include <stdlib.h>

#define REASONS_THAT_EXPLAIN (CER_SW_POWER_CAP | CER_SW_THERMAL | CER_HW_THERMAL | CER_HW_POWER_BRAKE)
#define LOW_PSTATE 3 /* busy work runs in P0 (P2 on GeForce boards); P3 and beyond is a power-saving state */

typedef struct {
    double busy_s, low_s;
    int n, hw_slowdown, low_pstate, n_app;
    float *clock;
    double app_clock, pstate;
    uint64_t from, to;
} tally;

static void count(const diag_gpu_view *v, const diag_config *cfg, tally *tl)
{
    const diag_gpu *g = v->g;
    int h[6] = {0};
    double max = g->clock_max_sm_mhz;
    for (int i = 0; i < v->n; i++) {
        if (v->held[i] == 0 || v->u[i] < cfg->clocks_low.busy_util)
            continue;
        uint64_t t = v->t[i];
        double clk = diag_at(&g->s[DS_CLOCK_SM], t, v->step_us, &h[0]);
        if (isnan(clk))
            continue;
        double dt = diag_view_dt(v, i);
        tl->busy_s += dt;
        unsigned cer = (unsigned)diag_step_at(&g->s[DS_CER], t, 0, &h[1]);
        double p = diag_at(&g->s[DS_POWER], t, v->step_us, &h[2]);
        double lim = diag_power_limit_at(v, t, &h[3]);
        int capped = (cer & REASONS_THAT_EXPLAIN) || (!isnan(p) && !isnan(lim) && p >= 0.97 * lim);
        if (capped || clk >= cfg->clocks_low.clock_frac * max)
            continue;
        tl->low_s += dt;
        tl->clock[tl->n++] = (float)clk;
        tl->hw_slowdown += (cer & CER_HW_SLOWDOWN) != 0;
        double ps = diag_step_at(&g->s[DS_PSTATE], t, NAN, &h[4]);
        if (ps >= LOW_PSTATE) {
            tl->low_pstate++;
            tl->pstate = ps;
        }
        double app = diag_step_at(&g->s[DS_CLOCK_APP], t, NAN, &h[5]);
        if (!isnan(app) && app < 0.97 * max) {
            tl->n_app++;
            tl->app_clock = app;
        }
        if (!tl->from)
            tl->from = t;
        tl->to = t;
    }
}

static void report(diag_ctx *c, const diag_gpu_view *v, tally *tl)
{
    const diag_gpu *g = v->g;
    diag_finding *f = diag_emit(c, "clocks_low", DIAG_WARNING, v->gpu, tl->from, tl->to);
    if (!f)
        return;
    double share = tl->low_s / tl->busy_s, clk = dstat_percentile(tl->clock, tl->n, 50);
    f->score = share * (1 - clk / g->clock_max_sm_mhz);
    const char *cause;
    if (2 * tl->hw_slowdown >= tl->n)
        cause = "HW slowdown asserted without a thermal reason (a power brake, the power supply or the board)";
    else if (2 * tl->n_app >= tl->n)
        cause = "applications clock set low";
    else if (2 * tl->low_pstate >= tl->n)
        cause = "stuck in a low P-state while busy";
    else
        cause = "clocks locked or capped without a reason NVML reports (nvidia-smi -lgc, an offset)";
    diag_finding_num(f, "median_clock_mhz", clk, "MHz");
    diag_finding_num(f, "max_clock_mhz", g->clock_max_sm_mhz, "MHz");
    diag_finding_num(f, "clock_share", clk / g->clock_max_sm_mhz, "");
    diag_finding_num(f, "share", share, "");
    diag_finding_num(f, "busy_s", tl->busy_s, "s");
    diag_finding_str(f, "cause", "%s", cause);
    if (tl->n_app)
        diag_finding_num(f, "app_clock_mhz", tl->app_clock, "MHz");
    if (tl->low_pstate)
        diag_finding_num(f, "pstate", tl->pstate, "");
    diag_finding_summary(f,
                         "GPU %d runs its SMs at %.0f MHz of %.0f MHz while busy (%.0f %% of the busy time), with no "
                         "power or thermal reason: %s",
                         v->gpu, clk, g->clock_max_sm_mhz, share * 100, cause);
    if (2 * tl->hw_slowdown >= tl->n)
        diag_finding_advice(f, "HW slowdown without heat is an external signal: check the power supplies and the "
                               "chassis (BMC event log), the board's power cables; drain the GPU if it persists");
    else if (2 * tl->n_app >= tl->n)
        diag_finding_advice(f, "Restore the applications clocks: nvidia-smi -rac -i %d (they were set to %.0f MHz)",
                            v->gpu, tl->app_clock);
    else if (2 * tl->low_pstate >= tl->n)
        diag_finding_advice(f,
                            "A busy GPU in P%.0f: check persistence mode and the driver's messages; reset the GPU "
                            "(nvidia-smi -r -i %d) when it is free",
                            tl->pstate, v->gpu);
    diag_finding_advice(f,
                        "See what holds the clocks: nvidia-smi -q -d CLOCK,PERFORMANCE -i %d; clear locked clocks "
                        "with nvidia-smi -rgc -i %d",
                        v->gpu, v->gpu);
    diag_finding_advice(f, "Compute-bound work runs slower in proportion: expect about %.0f %% of its throughput",
                        100 * clk / g->clock_max_sm_mhz);
    diag_chart_series(f, &g->s[DS_CLOCK_SM], v->gpu, "clocks.current.sm", "MHz", tl->from, tl->to, 0);
}

void det_clocks_low(diag_ctx *c)
{
    const diag_config *cfg = c->cfg;
    for (int i = 0; i < c->n_views; i++) {
        diag_gpu_view *v = &c->views[i];
        if (v->n == 0 || isnan(v->g->clock_max_sm_mhz) || v->g->s[DS_CLOCK_SM].n == 0)
            continue;
        tally tl = {0};
        tl.clock = malloc((size_t)v->n * sizeof(float));
        if (!tl.clock)
            continue;
        count(v, cfg, &tl);
        if (tl.n > 0 && tl.low_s >= diag_need_s(v, cfg->clocks_low.min_duration_s) &&
            tl.low_s >= cfg->clocks_low.min_share * tl.busy_s)
            report(c, v, &tl);
        free(tl.clock);
    }
}
