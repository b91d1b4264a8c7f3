/* det_pcie_bound.c - pcie_bound: the host link moves a large share of what it can carry (per
 * direction, from the current PCIe generation and width) while the SMs are mostly idle: the GPU
 * waits on host<->device copies. */
#include "diag_internal.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define ASSUMED_GEN 4
#define ASSUMED_WIDTH 16

typedef struct {
    double held_s, match_s;
    uint64_t from, to;
    int n;
    float *frac, *rate, *activity;
    double cap_kbs;
    int gen, width, assumed;
} tally;

static void link_at(const diag_gpu_view *v, uint64_t t, int *hints, tally *tl)
{
    const diag_gpu *g = v->g;
    double gen = diag_step_at(&g->s[DS_PCIE_GEN], t, g->pcie_gen_max, &hints[0]);
    double width = diag_step_at(&g->s[DS_PCIE_WIDTH], t, g->pcie_width_max, &hints[1]);
    tl->assumed = isnan(gen) || isnan(width) || gen < 1 || width < 1;
    tl->gen = tl->assumed ? ASSUMED_GEN : (int)gen;
    tl->width = tl->assumed ? ASSUMED_WIDTH : (int)width;
    tl->cap_kbs = diag_pcie_lane_kbs(tl->gen) * tl->width;
}

static void count(const diag_gpu_view *v, const diag_config *cfg, tally *tl)
{
    const diag_gpu *g = v->g;
    int gpm = g->s[DS_SM_ACTIVE].n > 0;
    int h[6] = {0};
    for (int i = 0; i < v->n; i++) {
        if (v->held[i] == 0)
            continue;
        uint64_t t = v->t[i];
        double rx = diag_at(&g->s[DS_PCIE_RX], t, v->step_us, &h[2]);
        double tx = diag_at(&g->s[DS_PCIE_TX], t, v->step_us, &h[3]);
        double act = gpm ? diag_at(&g->s[DS_SM_ACTIVE], t, v->step_us, &h[4]) : v->u[i];
        if ((isnan(rx) && isnan(tx)) || isnan(act))
            continue;
        double rate = fmax(isnan(rx) ? 0 : rx, isnan(tx) ? 0 : tx);
        link_at(v, t, h, tl);
        double dt = diag_view_dt(v, i);
        tl->held_s += dt;
        double frac = rate / tl->cap_kbs;
        double low = gpm ? cfg->pcie_bound.sm_active : cfg->pcie_bound.util;
        if (frac < cfg->pcie_bound.link_frac || act >= low)
            continue;
        if (tl->n == 0)
            tl->from = t;
        tl->to = t;
        tl->match_s += dt;
        tl->frac[tl->n] = (float)frac;
        tl->rate[tl->n] = (float)rate;
        tl->activity[tl->n] = (float)act;
        tl->n++;
    }
}

static void report(diag_ctx *c, const diag_gpu_view *v, tally *tl)
{
    const diag_gpu *g = v->g;
    int gpm = g->s[DS_SM_ACTIVE].n > 0;
    diag_finding *f = diag_emit(c, "pcie_bound", DIAG_WARNING, v->gpu, tl->from, tl->to);
    if (!f)
        return;
    double share = tl->match_s / tl->held_s;
    double frac = dstat_percentile(tl->frac, tl->n, 50), rate = dstat_percentile(tl->rate, tl->n, 50);
    double act = dstat_percentile(tl->activity, tl->n, 50);
    f->score = share * frac;
    diag_finding_num(f, "share", share, "");
    diag_finding_num(f, "link_share", frac, "");
    diag_finding_num(f, "throughput_mb_s", rate / 1000, "MB/s");
    diag_finding_num(f, "link_capacity_mb_s", tl->cap_kbs / 1000, "MB/s");
    diag_finding_str(f, "link", "Gen%d x%d%s", tl->gen, tl->width, tl->assumed ? " (assumed)" : "");
    diag_finding_num(f, gpm ? "median_sm_active" : "median_util", act, "%");
    int degraded = !tl->assumed && ((!isnan(g->pcie_gen_max) && tl->gen < g->pcie_gen_max) ||
                                    (!isnan(g->pcie_width_max) && tl->width < g->pcie_width_max));
    if (degraded)
        diag_finding_str(f, "link_degraded", "Gen%d x%d of Gen%.0f x%.0f", tl->gen, tl->width, g->pcie_gen_max,
                         g->pcie_width_max);
    diag_finding_summary(f,
                         "GPU %d waits on PCIe copies: %.0f MB/s, %.0f %% of its Gen%d x%d link, while %s is %.0f %% "
                         "(%.0f %% of the time)",
                         v->gpu, rate / 1000, frac * 100, tl->gen, tl->width, gpm ? "SM activity" : "utilization", act,
                         share * 100);
    diag_finding_advice(f, "Copy from pinned host memory (DataLoader pin_memory=True, cudaHostAlloc): pageable copies "
                           "are slower and block");
    diag_finding_advice(f, "Make fewer host<->device copies: keep tensors on the GPU between steps, avoid .cpu() / "
                           ".item() / .numpy() in the loop, copy larger batches at once");
    diag_finding_advice(f, "Overlap copies with compute: non_blocking=True on a side CUDA stream, prefetch the next "
                           "batch while this one runs");
    if (degraded)
        diag_finding_advice(f,
                            "The link runs below its maximum (Gen%d x%d): reseat the card or check the slot, riser "
                            "and BIOS PCIe settings",
                            tl->gen, tl->width);
    diag_chart_series(f, g->s[DS_PCIE_RX].n ? &g->s[DS_PCIE_RX] : &g->s[DS_PCIE_TX], v->gpu,
                      g->s[DS_PCIE_RX].n ? "pcie.rx_throughput" : "pcie.tx_throughput", "KB/s", tl->from, tl->to, 0);
}

void det_pcie_bound(diag_ctx *c)
{
    const diag_config *cfg = c->cfg;
    for (int i = 0; i < c->n_views; i++) {
        diag_gpu_view *v = &c->views[i];
        if (v->n == 0 || (v->g->s[DS_PCIE_RX].n == 0 && v->g->s[DS_PCIE_TX].n == 0))
            continue;
        tally tl = {0};
        tl.frac = malloc((size_t)v->n * sizeof(float));
        tl.rate = malloc((size_t)v->n * sizeof(float));
        tl.activity = malloc((size_t)v->n * sizeof(float));
        if (tl.frac && tl.rate && tl.activity) {
            count(v, cfg, &tl);
            if (tl.n > 0 && tl.match_s >= diag_need_s(v, cfg->pcie_bound.min_duration_s) &&
                tl.match_s >= cfg->pcie_bound.min_share * tl.held_s) {
                v->flags |= VIEW_PCIE;
                report(c, v, &tl);
            }
        }
        free(tl.frac);
        free(tl.rate);
        free(tl.activity);
    }
}
