/* det_launch_bound.c - launch_bound: the GPU looks busy (utilization counts time with any kernel
 * running) but its SMs mostly wait between small kernels. With GPM (Hopper and later):
 * utilization >= 80 % while gpm.sm_active < 50 % (DCGM: SM activity below 0.5 is ineffective use).
 * Without GPM: utilization >= 80 % while the power above idle is a small share of the limit,
 * clocks are not lowered and the memory is not busy (so not memory-bound). */
#include "diag_internal.h"
#include <math.h>
#include <stdlib.h>

#define HUNG_SM_ACTIVE 5 /* %: a kernel spinning on a few SMs, nothing launched around it */

typedef struct {
    double busy_s, match_s;
    int n;       /* matched readings */
    float *util; /* their values, for medians */
    float *sm;
    float *power_frac;
} tally;

/* Without GPM: low power for a busy GPU, not throttled, memory not busy. */
static int low_power_busy(const diag_gpu_view *v, const diag_config *cfg, uint64_t t, double idle, int *hints,
                          float *frac_out)
{
    const diag_gpu *g = v->g;
    double p = diag_at(&g->s[DS_POWER], t, v->step_us, &hints[0]);
    double lim = diag_power_limit_at(v, t, &hints[1]);
    if (isnan(p) || isnan(lim) || isnan(idle) || lim <= idle)
        return 0;
    double frac = (p - idle) / (lim - idle);
    *frac_out = (float)frac;
    unsigned cer = (unsigned)diag_step_at(&g->s[DS_CER], t, 0, &hints[2]);
    if (cer & (CER_SW_POWER_CAP | CER_HW_SLOWDOWN | CER_SW_THERMAL | CER_HW_THERMAL | CER_HW_POWER_BRAKE))
        return 0;
    double mu = diag_at(&g->s[DS_MEM_UTIL], t, v->step_us, &hints[3]);
    if (!isnan(mu) && mu >= cfg->launch_bound.max_mem_util)
        return 0;
    double clk = diag_at(&g->s[DS_CLOCK_SM], t, v->step_us, &hints[4]);
    if (!isnan(clk) && !isnan(g->clock_max_sm_mhz) && clk < cfg->launch_bound.clock_frac * g->clock_max_sm_mhz)
        return 0;
    return frac < cfg->launch_bound.power_frac;
}

static void count(const diag_gpu_view *v, const diag_config *cfg, int gpm, tally *tl)
{
    double idle = gpm ? NAN : diag_idle_power(v, cfg->launch_bound.idle_power_frac);
    int hints[6] = {0};
    for (int i = 0; i < v->n; i++) {
        if (v->held[i] == 0 || v->u[i] < cfg->launch_bound.util)
            continue;
        double dt = diag_view_dt(v, i);
        int match = 0;
        float frac = NAN;
        double sm = diag_at(&v->g->s[DS_SM_ACTIVE], v->t[i], v->step_us, &hints[5]);
        if (gpm) {
            if (isnan(sm))
                continue;
            match = sm < cfg->launch_bound.sm_active;
        } else {
            match = low_power_busy(v, cfg, v->t[i], idle, hints, &frac);
        }
        tl->busy_s += dt;
        if (!match)
            continue;
        tl->match_s += dt;
        tl->util[tl->n] = v->u[i];
        tl->sm[tl->n] = (float)sm;
        tl->power_frac[tl->n] = frac;
        tl->n++;
    }
}

static void report(diag_ctx *c, const diag_gpu_view *v, int gpm, tally *tl)
{
    diag_finding *f = diag_emit(c, "launch_bound", DIAG_WARNING, v->gpu, v->act_from, v->act_to);
    if (!f)
        return;
    double share = tl->match_s / tl->busy_s;
    double util = dstat_percentile(tl->util, tl->n, 50);
    f->score = share;
    diag_finding_num(f, "share", share, "");
    diag_finding_num(f, "median_util", util, "%");
    diag_finding_num(f, "busy_s", tl->busy_s, "s");
    if (gpm) {
        double sm = dstat_percentile(tl->sm, tl->n, 50);
        diag_finding_num(f, "median_sm_active", sm, "%");
        diag_finding_str(f, "method", "gpm.sm_active");
        diag_finding_summary(f,
                             "GPU %d is launch-bound: %.0f %% utilized but its SMs are active only %.0f %% of the "
                             "time (%.0f %% of its busy time)",
                             v->gpu, util, sm, share * 100);
        diag_chart_series(f, &v->g->s[DS_SM_ACTIVE], v->gpu, "gpm.sm_active", "%", v->act_from, v->act_to, 1);
        if (util >= 99.5 && sm < HUNG_SM_ACTIVE)
            diag_finding_advice(f, "Utilization pinned at 100 %% with the SMs almost idle is also what a job hung in a "
                                   "collective (NCCL) looks like: check that it still makes progress (its log, py-spy "
                                   "dump)");
    } else {
        double pf = dstat_percentile(tl->power_frac, tl->n, 50);
        diag_finding_num(f, "power_above_idle_share", pf, "");
        diag_finding_str(f, "method", "power (no GPM): an estimate");
        diag_finding_summary(f,
                             "GPU %d looks launch-bound: %.0f %% utilized, unthrottled, yet drawing only %.0f %% of "
                             "its power range (%.0f %% of its busy time)",
                             v->gpu, util, pf * 100, share * 100);
        diag_chart_series(f, &v->g->s[DS_POWER], v->gpu, "power.draw", "W", v->act_from, v->act_to, 0);
    }
    diag_finding_advice(f, "Give each kernel more work: a larger batch size (or micro-batch) per step");
    diag_finding_advice(f, "Cut launch overhead: CUDA Graphs, or torch.compile (mode=\"reduce-overhead\" uses them)");
    diag_finding_advice(f, "Fuse small element-wise ops (torch.compile, fused optimizers such as "
                           "torch.optim.AdamW(fused=True), fused kernels) and avoid host syncs (.item(), .cpu()) "
                           "in the step");
    diag_finding_advice(f, "Confirm with a short Nsight Systems trace: many kernels of a few microseconds with gaps "
                           "between them");
}

void det_launch_bound(diag_ctx *c)
{
    const diag_config *cfg = c->cfg;
    for (int i = 0; i < c->n_views; i++) {
        diag_gpu_view *v = &c->views[i];
        if (v->n_act == 0 || (v->flags & (VIEW_STALL | VIEW_HANG)) ||
            (v->g->s[DS_POWER].n == 0 && v->g->s[DS_SM_ACTIVE].n == 0))
            continue; /* a stalled GPU's busy phases are explained by the stall, a hung one's by the hang */
        int gpm = v->g->s[DS_SM_ACTIVE].n > 0;
        tally tl = {0};
        tl.util = malloc((size_t)v->n * sizeof(float));
        tl.sm = malloc((size_t)v->n * sizeof(float));
        tl.power_frac = malloc((size_t)v->n * sizeof(float));
        if (tl.util && tl.sm && tl.power_frac) {
            count(v, cfg, gpm, &tl);
            if (tl.busy_s >= diag_need_s(v, cfg->launch_bound.min_duration_s) && tl.n > 0 &&
                tl.match_s >= cfg->launch_bound.min_share * tl.busy_s) {
                v->flags |= VIEW_LAUNCH;
                report(c, v, gpm, &tl);
            }
        }
        free(tl.util);
        free(tl.sm);
        free(tl.power_frac);
    }
}
