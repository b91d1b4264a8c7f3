/* det_power_cap.c - power_cap: under load, clocks are cut to keep power under the enforced limit:
 * NVML's sw_power_cap clock event reason is set for a large share of the busy time while the
 * draw is at the limit. Says whether an administrator lowered the limit below the default, and
 * the clock lost against the GPU's maximum. */
#include "diag_internal.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
    double busy_s, capped_s;
    uint64_t from, to;
    int n;
    float *power, *limit, *clock;
} tally;

static void count(const diag_gpu_view *v, const diag_config *cfg, tally *tl)
{
    const diag_gpu *g = v->g;
    int have_cer = g->s[DS_CER].n > 0;
    /* without the reason bits, only a draw right at the limit counts */
    double at = have_cer ? cfg->power_cap.at_limit : fmax(cfg->power_cap.at_limit, 0.99);
    int h[4] = {0};
    for (int i = 0; i < v->n; i++) {
        if (v->held[i] == 0 || v->u[i] < cfg->power_cap.busy_util)
            continue;
        double p = diag_at(&g->s[DS_POWER], v->t[i], v->step_us, &h[0]);
        double lim = diag_power_limit_at(v, v->t[i], &h[1]);
        if (isnan(p) || isnan(lim))
            continue;
        double dt = diag_view_dt(v, i);
        tl->busy_s += dt;
        unsigned cer = (unsigned)diag_step_at(&g->s[DS_CER], v->t[i], 0, &h[2]);
        if ((have_cer && !(cer & CER_SW_POWER_CAP)) || p < at * lim)
            continue;
        if (tl->n == 0)
            tl->from = v->t[i];
        tl->to = v->t[i];
        tl->capped_s += dt;
        tl->power[tl->n] = (float)p;
        tl->limit[tl->n] = (float)lim;
        tl->clock[tl->n] = (float)diag_at(&g->s[DS_CLOCK_SM], v->t[i], v->step_us, &h[3]);
        tl->n++;
    }
}

static double median_finite(float *v, int n)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        if (!isnan(v[i]))
            v[k++] = v[i];
    return k ? dstat_percentile(v, k, 50) : NAN;
}

static void report(diag_ctx *c, const diag_gpu_view *v, tally *tl)
{
    const diag_config *cfg = c->cfg;
    diag_finding *f = diag_emit(c, "power_cap", DIAG_WARNING, v->gpu, tl->from, tl->to);
    if (!f)
        return;
    double share = tl->capped_s / tl->busy_s;
    double power = median_finite(tl->power, tl->n), limit = median_finite(tl->limit, tl->n);
    double clock = median_finite(tl->clock, tl->n), dflt = v->g->power_default_w, max_clk = v->g->clock_max_sm_mhz;
    int lowered = !isnan(dflt) && limit < cfg->power_cap.user_lowered * dflt;
    double loss = !isnan(clock) && !isnan(max_clk) && max_clk > 0 ? 1 - clock / max_clk : NAN;
    f->score = share + (lowered ? 1 : 0);
    diag_finding_num(f, "capped_share", share, "");
    diag_finding_num(f, "capped_s", tl->capped_s, "s");
    diag_finding_num(f, "power_w", power, "W");
    diag_finding_num(f, "enforced_limit_w", limit, "W");
    if (!isnan(dflt))
        diag_finding_num(f, "default_limit_w", dflt, "W");
    diag_finding_num(f, "user_lowered", lowered, "");
    if (!isnan(clock))
        diag_finding_num(f, "sm_clock_mhz", clock, "MHz");
    if (!isnan(max_clk))
        diag_finding_num(f, "max_sm_clock_mhz", max_clk, "MHz");
    if (!isnan(loss))
        diag_finding_num(f, "clock_loss", loss, "");
    char lim_txt[96] = "";
    if (lowered)
        snprintf(lim_txt, sizeof lim_txt, ", lowered from the %.0f W default", dflt);
    else if (!isnan(dflt))
        snprintf(lim_txt, sizeof lim_txt, ", the default");
    char clk_txt[96] = "";
    if (!isnan(loss))
        snprintf(clk_txt, sizeof clk_txt, "; SM clock %.0f MHz, %.0f %% below its %.0f MHz maximum", clock, loss * 100,
                 max_clk);
    diag_finding_summary(f, "GPU %d is power-capped %.0f %% of its busy time at %.0f W (limit %.0f W%s)%s", v->gpu,
                         share * 100, power, limit, lim_txt, clk_txt);
    if (lowered)
        diag_finding_advice(f,
                            "The limit was lowered: restore it with `sudo nvidia-smi -i %d -pl %.0f` (the default) "
                            "if the power budget allows; check who set it (`nvidia-smi -q -d POWER`)",
                            v->gpu, dflt);
    else
        diag_finding_advice(f, "The workload asks for more than the board's limit: expected for dense math on some "
                               "boards; check that every GPU of the job is capped alike, or the slowest sets the pace");
    if (!isnan(loss))
        diag_finding_advice(f,
                            "Expect up to about %.0f %% lower throughput for compute-bound kernels (clock %.0f of "
                            "%.0f MHz); memory-bound work loses less",
                            loss * 100, clock, max_clk);
    diag_finding_advice(f, "Lower power demand at equal work: mixed precision (bf16/fp16), fewer redundant kernels; or "
                           "lock clocks (`nvidia-smi -lgc`) for steadier step times");
    diag_chart_series(f, &v->g->s[DS_POWER], v->gpu, "power.draw", "W", tl->from, tl->to, 0);
}

void det_power_cap(diag_ctx *c)
{
    const diag_config *cfg = c->cfg;
    for (int i = 0; i < c->n_views; i++) {
        diag_gpu_view *v = &c->views[i];
        if (v->n == 0 || v->g->s[DS_POWER].n == 0)
            continue;
        tally tl = {0};
        tl.power = malloc((size_t)v->n * sizeof(float));
        tl.limit = malloc((size_t)v->n * sizeof(float));
        tl.clock = malloc((size_t)v->n * sizeof(float));
        if (tl.power && tl.limit && tl.clock) {
            count(v, cfg, &tl);
            if (tl.n > 0 && tl.capped_s >= diag_need_s(v, cfg->power_cap.min_duration_s) &&
                tl.capped_s >= cfg->power_cap.min_share * tl.busy_s)
                report(c, v, &tl);
        }
        free(tl.power);
        free(tl.limit);
        free(tl.clock);
    }
}
