/* det_pcie_degraded.c - pcie_degraded: the host link runs below what GPU and host can do, under
 * load: a lower PCIe generation or fewer lanes than its maximum (the maximum NVML gives is that of
 * the GPU and the host together, so a Gen5 board in a Gen4 slot is not degraded). An idle link
 * trains down to save power, which is normal: only readings with the GPU busy or the link carrying
 * traffic (5 % of what it could carry at its maximum) count. PCIe replays faster than DCGM's limit
 * (8 a minute) tell of the same bad link and count too. */
#include "diag_internal.h"
#include <math.h>
#include <stdio.h>

#define IN_USE_SHARE 0.05 /* traffic, as a share of the link's maximum capacity, that puts it under load */

typedef struct {
    double busy_s, degraded_s;
    uint64_t from, to;
    int gen, width; /* the lowest seen under load */
    int have_link;
} link_use;

static void count(const diag_gpu_view *v, const diag_config *cfg, link_use *lu)
{
    const diag_gpu *g = v->g;
    int h[4] = {0};
    lu->gen = lu->width = 99;
    double in_use_kbs = IN_USE_SHARE * diag_pcie_lane_kbs(isnan(g->pcie_gen_max) ? 4 : (int)g->pcie_gen_max) *
                        (isnan(g->pcie_width_max) ? 16 : g->pcie_width_max);
    for (int i = 0; i < v->n; i++) {
        if (v->held[i] == 0)
            continue;
        if (v->u[i] < cfg->pcie_degraded.busy_util) {
            double rx = diag_at(&g->s[DS_PCIE_RX], v->t[i], v->step_us, &h[2]);
            double tx = diag_at(&g->s[DS_PCIE_TX], v->t[i], v->step_us, &h[3]);
            if (!(rx >= in_use_kbs) && !(tx >= in_use_kbs))
                continue; /* idle: a link trained down is saving power */
        }
        double gen = diag_step_at(&g->s[DS_PCIE_GEN], v->t[i], NAN, &h[0]);
        double width = diag_step_at(&g->s[DS_PCIE_WIDTH], v->t[i], NAN, &h[1]);
        if (isnan(gen) && isnan(width))
            continue;
        lu->have_link = 1;
        double dt = diag_view_dt(v, i);
        lu->busy_s += dt;
        int low = (!isnan(gen) && gen < g->pcie_gen_max) || (!isnan(width) && width < g->pcie_width_max);
        if (!low)
            continue;
        lu->degraded_s += dt;
        if (!lu->from)
            lu->from = v->t[i];
        lu->to = v->t[i];
        if (!isnan(gen) && gen < lu->gen)
            lu->gen = (int)gen;
        if (!isnan(width) && width < lu->width)
            lu->width = (int)width;
    }
}

void det_pcie_degraded(diag_ctx *c)
{
    const diag_config *cfg = c->cfg;
    for (int i = 0; i < c->n_views; i++) {
        diag_gpu_view *v = &c->views[i];
        const diag_gpu *g = v->g;
        if (v->n == 0 || (isnan(g->pcie_gen_max) && isnan(g->pcie_width_max)))
            continue;
        link_use lu = {0};
        count(v, cfg, &lu);
        uint64_t replay_at = 0;
        double rpm = diag_counter_max_minute(&g->s[DS_PCIE_REPLAY], &replay_at);
        int degraded = lu.have_link && lu.degraded_s > 0 &&
                       lu.degraded_s >= diag_need_s(v, cfg->pcie_degraded.min_duration_s) &&
                       lu.degraded_s >= cfg->pcie_degraded.min_share * lu.busy_s;
        int replaying = rpm > cfg->pcie_degraded.replays_per_min;
        if (!degraded && !replaying)
            continue;
        uint64_t from = degraded ? lu.from : replay_at, to = degraded ? lu.to : replay_at;
        diag_finding *f = diag_emit(c, "pcie_degraded", DIAG_WARNING, v->gpu, from, to);
        if (!f)
            continue;
        f->score = (lu.busy_s > 0 ? lu.degraded_s / lu.busy_s : 0) + rpm / 100;
        char link[48] = "", max[48];
        snprintf(max, sizeof max, "Gen%.0f x%.0f", g->pcie_gen_max, g->pcie_width_max);
        if (degraded) {
            snprintf(link, sizeof link, "Gen%d x%d", lu.gen < 99 ? lu.gen : (int)g->pcie_gen_max,
                     lu.width < 99 ? lu.width : (int)g->pcie_width_max);
            diag_finding_str(f, "link", "%s", link);
            diag_finding_str(f, "link_max", "%s", max);
            diag_finding_num(f, "degraded_share", lu.degraded_s / lu.busy_s, "");
            diag_finding_num(f, "degraded_s", lu.degraded_s, "s");
        }
        if (g->s[DS_PCIE_REPLAY].n)
            diag_finding_num(f, "max_replays_per_min", rpm, "/min");
        if (degraded)
            diag_finding_summary(f, "GPU %d PCIe link runs at %s of %s under load (%.0f %% of the busy time)%s", v->gpu,
                                 link, max, 100 * lu.degraded_s / lu.busy_s,
                                 replaying ? ", with replays past DCGM's limit" : "");
        else
            diag_finding_summary(f, "GPU %d PCIe link replays %.0f times a minute (DCGM warns above %.0f)", v->gpu, rpm,
                                 cfg->pcie_degraded.replays_per_min);
        diag_finding_advice(f, "Reseat the card; check the slot, riser or cable and the BIOS PCIe settings (a "
                               "generation forced lower)");
        diag_finding_advice(f,
                            "Compare with nvidia-smi -q -d PCIE (Link Width, PCIe Generation, Replays) and lspci -vv "
                            "(LnkSta against LnkCap); `dcgmi diag -r 2` measures the link's bandwidth");
        diag_finding_advice(f, "Host<->device copies get the lower rate: a job that moves data over PCIe slows down "
                               "(see pcie_bound)");
        diag_chart_series(f, &g->s[DS_UTIL], v->gpu, "utilization.gpu", "%", c->from_us, c->to_us, 1);
    }
}
