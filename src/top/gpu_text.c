/* gpu_text.c - one GPU's fields as short texts and severity levels, for the panel and snapshot. */
#include "top_ui.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

static int get(const gpu_sample *s, metric_id id, double *v)
{
    return sample_get(s, id, v);
}

void gpu_text_make(const top_gpu *g, const top_thresholds *th, int stale, int ascii, gpu_text *t)
{
    const gpu_sample *s = &g->s;
    const char *deg = ascii ? "C" : "°C";
    double a, b;
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "%s", g->info.str[M_NAME][0] ? g->info.str[M_NAME] : "(unknown GPU)");
    snprintf(t->bus, sizeof t->bus, "%s", g->info.str[M_PCI_BUS_ID]);
    if (g->lost)
        snprintf(t->state, sizeof t->state, "LOST");
    else if (stale)
        snprintf(t->state, sizeof t->state, "STALE");
    else if (!g->have_sample)
        snprintf(t->state, sizeof t->state, "WAIT");
    if (get(s, M_PSTATE, &a))
        snprintf(t->pstate, sizeof t->pstate, "P%.0f", a);

    snprintf(t->util, sizeof t->util, "N/A");
    if (get(s, M_UTIL_GPU, &a)) {
        t->has_util = 1;
        t->util_frac = a / 100.0;
        snprintf(t->util, sizeof t->util, "%.0f%%", a);
    }
    snprintf(t->mem, sizeof t->mem, "N/A");
    if (get(s, M_MEM_USED, &a) && get(s, M_MEM_TOTAL, &b) && b > 0) {
        char u[16], tot[16];
        t->has_mem = 1;
        t->mem_frac = a / b;
        fmt_mib(u, sizeof u, a);
        fmt_mib(tot, sizeof tot, b);
        snprintf(t->mem, sizeof t->mem, "%s/%s", u, tot);
    }
    snprintf(t->power, sizeof t->power, "N/A");
    if (get(s, M_POWER_DRAW, &a)) {
        if (get(s, M_POWER_ENFORCED_LIMIT, &b) || get(s, M_POWER_LIMIT, &b)) {
            snprintf(t->power, sizeof t->power, "%.0f/%.0f W", a, b);
            t->power_lvl = fmt_level(a / b, 0.95, 1.5);
        } else {
            snprintf(t->power, sizeof t->power, "%.0f W", a);
        }
    }
    snprintf(t->temp, sizeof t->temp, "N/A");
    if (get(s, M_TEMP_GPU, &a)) {
        snprintf(t->temp, sizeof t->temp, "%.0f%s", a, deg);
        t->temp_lvl = fmt_level(a, th->temp_warn, th->temp_crit);
    }
    snprintf(t->hbm, sizeof t->hbm, "N/A");
    if (get(s, M_TEMP_MEMORY, &a)) {
        snprintf(t->hbm, sizeof t->hbm, "%.0f%s", a, deg);
        t->hbm_lvl = fmt_level(a, th->hbm_warn, th->hbm_crit);
    }
    snprintf(t->sm_clk, sizeof t->sm_clk, "N/A");
    if (get(s, M_CLOCK_SM, &a))
        snprintf(t->sm_clk, sizeof t->sm_clk, "%.0f MHz", a);
    snprintf(t->mem_clk, sizeof t->mem_clk, "N/A");
    if (get(s, M_CLOCK_MEM, &a))
        snprintf(t->mem_clk, sizeof t->mem_clk, "%.0f MHz", a);
    snprintf(t->fan, sizeof t->fan, "N/A");
    if (get(s, M_FAN_SPEED, &a))
        snprintf(t->fan, sizeof t->fan, "%.0f%%", a);

    char rx[16] = "N/A", tx[16] = "N/A";
    if (get(s, M_PCIE_RX, &a))
        fmt_kbs(rx, sizeof rx, a);
    if (get(s, M_PCIE_TX, &a))
        fmt_kbs(tx, sizeof tx, a);
    snprintf(t->pcie, sizeof t->pcie, "rx %s tx %s", rx, tx);

    if (get(s, M_CER_ACTIVE, &a) && a >= 0)
        fmt_throttle_words((uint64_t)llround(a), 0, t->throttle, sizeof t->throttle);

    /* ECC / row remap / XID marks: anything worth a look, worst first. */
    size_t pos = 0;
    if (get(s, M_ECC_DBE_VOL, &a) && a > 0) {
        pos += (size_t)snprintf(t->marks + pos, sizeof t->marks - pos, "ECC DBE %.0f ", a);
        t->marks_lvl = LVL_CRIT;
    }
    if (get(s, M_REMAP_FAILURE, &a) && a > 0 && pos < sizeof t->marks) {
        pos += (size_t)snprintf(t->marks + pos, sizeof t->marks - pos, "REMAP FAILED ");
        t->marks_lvl = LVL_CRIT;
    }
    if (get(s, M_XID_LAST, &a) && a > 0 && pos < sizeof t->marks) {
        pos += (size_t)snprintf(t->marks + pos, sizeof t->marks - pos, "XID %.0f ", a);
        t->marks_lvl = LVL_CRIT;
    }
    if (get(s, M_ECC_SBE_VOL, &a) && a > 0 && pos < sizeof t->marks) {
        pos += (size_t)snprintf(t->marks + pos, sizeof t->marks - pos, "ECC SBE %.0f ", a);
        if (t->marks_lvl < LVL_WARN)
            t->marks_lvl = LVL_WARN;
    }
    if (get(s, M_REMAP_PENDING, &a) && a > 0 && pos < sizeof t->marks) {
        pos += (size_t)snprintf(t->marks + pos, sizeof t->marks - pos, "REMAP PENDING ");
        if (t->marks_lvl < LVL_WARN)
            t->marks_lvl = LVL_WARN;
    }
    if (pos > 0 && pos < sizeof t->marks)
        t->marks[pos - 1] = 0;
}
