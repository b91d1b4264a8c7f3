/* model.c - every catalog metric of a simulated GPU at time t: the physical core
 * (model_phys.c) plus the derived and static values, then the scenario's generators for the
 * metrics it gives, rounded as NVML reports them. Utilizations are means over the GPU's sample
 * period (model_window.c); PCIe throughput is the processes' transfers on top of a baseline,
 * at most what the link carries. */
#include "model.h"
#include "model_phys.h"
#include "model_window.h"
#include "topology.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

static double clamp(double v, double lo, double hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* Sums over the active processes (instantaneous curves). */
typedef struct proc_sums {
    double mem;            /* MiB */
    double enc, dec;       /* percent */
    double rx_gbs, tx_gbs; /* PCIe transfers declared in GB/s */
    double rx_pct, tx_pct; /* ... and in percent of the link */
} proc_sums;

static double given(double v)
{
    return v > 0 ? v : 0; /* -1 (not given) counts as 0 */
}

static void process_sums(const scenario *sc, const sim_gpu *g, double t, proc_sums *s)
{
    *s = (proc_sums){0};
    for (int i = 0; i < g->spec->nprocs; i++) {
        const sim_proc *p = &g->spec->procs[i];
        if (t < p->start || t >= p->end)
            continue;
        s->mem += round(fmin(given(sim_proc_value(sc, g, i, PF_MEMORY, t)), 1e9));
        s->enc += fmin(round(given(sim_proc_value(sc, g, i, PF_ENC, t))), 100);
        s->dec += fmin(round(given(sim_proc_value(sc, g, i, PF_DEC, t))), 100);
        double rx = given(sim_proc_value(sc, g, i, PF_PCIE_RX, t));
        double tx = given(sim_proc_value(sc, g, i, PF_PCIE_TX, t));
        if (p->pcie_rx_pct)
            s->rx_pct += rx;
        else
            s->rx_gbs += rx;
        if (p->pcie_tx_pct)
            s->tx_pct += tx;
        else
            s->tx_gbs += tx;
    }
}

double sim_pcie_lane_mbs(int gen)
{
    static const double per_lane[] = {0, 250, 500, 985, 1969, 3938, 7563};
    return gen < 1 ? 0 : per_lane[gen < 6 ? gen : 6];
}

/* KB/s over the link: the baseline, the GB/s transfers and the link shares, at most the link's
 * rate (per direction) for the current generation and width. */
static double pcie_rate(const double *v, double baseline, double gbs, double pct)
{
    double link = sim_pcie_lane_mbs((int)v[M_PCIE_GEN_CUR]) * v[M_PCIE_WIDTH_CUR] * 1000.0;
    return fmin(link, baseline + gbs * 1e6 + link * pct / 100.0);
}

static void xid_at(const scenario *sc, int gpu, double t, double *last, double *count)
{
    const sim_event *e;
    int lo = 0, hi = scenario_gpu_events(sc, gpu, &e);
    while (lo < hi) { /* the events at or before t: the first lo */
        int mid = lo + (hi - lo) / 2;
        if (e[mid].at <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    *count = lo;
    *last = lo ? e[lo - 1].xid : 0;
}

static void fill_static(const scenario *sc, const sim_gpu *g, double *v)
{
    const sim_preset *p = &g->spec->p;
    v[M_INDEX] = v[M_MINOR_NUMBER] = g->index;
    v[M_COMPUTE_CAP] = p->cc_major + p->cc_minor / 10.0;
    v[M_NUMA_NODE] = sc->topo.numa[g->index];
    v[M_ARCHITECTURE] = p->arch;
    v[M_TEMP_SLOWDOWN] = p->t_slowdown;
    v[M_TEMP_SHUTDOWN] = p->t_shutdown;
    v[M_TEMP_MEM_MAX] = p->t_mem_max;
    v[M_TEMP_GPU_MAX] = p->t_gpu_max;
    v[M_MEM_TOTAL] = p->mem_total_mib;
    v[M_MEM_RESERVED] = p->mem_reserved_mib;
    v[M_BAR1_TOTAL] = p->bar1_total_mib;
    v[M_POWER_DEFAULT_LIMIT] = g->spec->power_default_w;
    v[M_POWER_MIN_LIMIT] = p->power_min_w;
    v[M_POWER_MAX_LIMIT] = p->power_max_w;
    v[M_CLOCK_MAX_GR] = p->clk_max_gr;
    v[M_CLOCK_MAX_SM] = p->clk_max_sm;
    v[M_CLOCK_MAX_MEM] = p->clk_max_mem;
    v[M_CER_SUPPORTED] = 0x1FF;
    v[M_PCIE_GEN_CUR] = v[M_PCIE_GEN_MAX] = v[M_PCIE_GEN_GPUMAX] = p->pcie_gen;
    v[M_PCIE_WIDTH_CUR] = v[M_PCIE_WIDTH_MAX] = p->pcie_width;
    v[M_ECC_MODE] = v[M_ECC_MODE_PEND] = 1;
    /* modes: a datacenter board runs persistence mode and no display, a GeForce the other way round */
    int geforce = p->brand == 5;
    v[M_PERSISTENCE_MODE] = !geforce;
    v[M_DISPLAY_MODE] = v[M_DISPLAY_ATTACHED] = v[M_DISPLAY_ACTIVE] = geforce;
    v[M_COMPUTE_MODE] = 0; /* Default */
    v[M_ADDRESSING_MODE] = p->addressing;
    v[M_ACCOUNTING_MODE] = 0;
    v[M_ACCOUNTING_BUFFER] = 4000;
    v[M_GSP_MODE_CUR] = v[M_GSP_MODE_DEFAULT] = 1;
    v[M_C2C_MODE] = 0;
    v[M_POWER_MANAGEMENT] = 1;
    /* applications clocks at their defaults, the boost maxima */
    v[M_CLOCK_APP_GR] = v[M_CLOCK_DEF_APP_GR] = p->clk_max_gr;
    v[M_CLOCK_APP_MEM] = v[M_CLOCK_DEF_APP_MEM] = p->clk_max_mem;
    /* every bank of the row remapper with all its spare rows */
    v[M_REMAP_HIST_MAX] = p->remap_banks > 0 ? p->remap_banks : 2560;
}

/* NVLink links: up where the topology connects them, no errors (a scenario's generators for
 * nvlink.linkN.state / .errors.* override these). */
static void fill_nvlink(const scenario *sc, const sim_gpu *g, double *v)
{
    for (int l = 0; l < g->spec->p.nvlinks && l < NVLINK_NLINKS; l++) {
        topo_link tl;
        v[nvlink_id(l, NVL_STATE)] = topo_link_at(sc, g->index, (unsigned)l, &tl) == 0 && tl.active;
    }
}

/* The active links and the counters summed over the links, after the generators. */
static void nvlink_totals(const sim_gpu *g, double *v)
{
    static const metric_id total[NVL_NKINDS] = {M_NVLINK_ACTIVE, M_NVLINK_CRC_TOTAL, M_NVLINK_REPLAY_TOTAL,
                                                M_NVLINK_RECOVERY_TOTAL};
    for (int k = 0; k < NVL_NKINDS; k++) {
        if (g->spec->metric[total[k]])
            continue;
        double sum = 0;
        for (int l = 0; l < g->spec->p.nvlinks && l < NVLINK_NLINKS; l++)
            sum += k == NVL_STATE ? v[nvlink_id(l, NVL_STATE)] >= 0.5 : v[nvlink_id(l, (nvlink_kind)k)];
        v[total[k]] = sum;
    }
}

static void fill_clocks(const sim_gpu *g, const sim_inst *in, double *v)
{
    const sim_preset *p = &g->spec->p;
    double f = in->clk_factor;
    v[M_CLOCK_SM] = in->busy ? fmax(p->clk_idle_gr, p->clk_max_sm * f) : p->clk_idle_gr;
    v[M_CLOCK_GR] = in->busy ? fmax(p->clk_idle_gr, p->clk_max_gr * f) : p->clk_idle_gr;
    v[M_CLOCK_MEM] = in->busy ? p->clk_max_mem : p->clk_idle_mem;
    v[M_CLOCK_VIDEO] = in->busy ? fmax(p->clk_idle_video, p->clk_max_video * f) : p->clk_idle_video;
    v[M_PSTATE] = in->busy ? p->pstate_busy : p->pstate_idle;
    v[M_CER_ACTIVE] = (double)in->bits;
}

static void fill_dynamic(const scenario *sc, const sim_gpu *g, double t, const sim_inst *in, const sim_state *st,
                         const proc_sums *ps, double *v)
{
    v[M_TEMP_GPU] = in->temp;
    v[M_TEMP_MEMORY] = in->temp_mem;
    v[M_FAN_SPEED] = in->temp < 50 ? 0 : clamp(30 + (in->temp - 50) * 2.5, 30, 100);
    v[M_UTIL_GPU] = win_gpu_util(sc, g, t);
    v[M_UTIL_MEMORY] = win_mem_util(sc, g, t);
    v[M_UTIL_ENCODER] = clamp(ps->enc, 0, 100);
    v[M_UTIL_DECODER] = clamp(ps->dec, 0, 100);
    v[M_MEM_USED] = ps->mem;
    v[M_POWER_DRAW] = v[M_POWER_DRAW_AVERAGE] = v[M_POWER_DRAW_INSTANT] = in->power;
    v[M_TEMP_TLIMIT] = g->spec->p.t_gpu_max - in->temp; /* the margin; quantized to 0 past the limit */
    v[M_POWER_LIMIT] = v[M_POWER_ENFORCED_LIMIT] = in->limit;
    v[M_ENERGY] = st->energy_mj;
    v[M_VIOL_POWER] = st->viol_ns[0] / 1000.0;
    v[M_VIOL_THERMAL] = st->viol_ns[2] / 1000.0;
    v[M_VIOL_SW_THERMAL] = st->viol_ns[1] / 1000.0;
    v[M_VIOL_POWER_BRAKE] = st->viol_ns[3] / 1000.0;
    xid_at(sc, g->index, t, &v[M_XID_LAST], &v[M_XID_COUNT]);
    fill_nvlink(sc, g, v);
    v[M_GPM_GR_ACTIVE] = in->util;
    v[M_GPM_SM_ACTIVE] = in->smact;
    v[M_GPM_SM_OCCUPANCY] = in->smact * 0.45;
    v[M_GPM_TENSOR_ACTIVE] = in->smact * 0.35;
    v[M_GPM_DRAM_ACTIVE] = in->memutil * 0.9;
    fill_clocks(g, in, v);
    /* an idle link trains down to save power (where the scenario says so) */
    if (g->spec->pcie_idle_gen > 0 && !in->busy)
        v[M_PCIE_GEN_CUR] = fmin(v[M_PCIE_GEN_CUR], g->spec->pcie_idle_gen);
}

/* The scenario's generators override every metric they give (physical inputs and the
 * utilizations, averaged from their generators, already did). */
static void apply_generators(const scenario *sc, const sim_gpu *g, double t, double *v)
{
    for (int m = M_STR_END; m < M_COUNT; m++)
        if (g->spec->metric[m] && !(metric_catalog[m].flags & MF_BIT) && m != M_CER_ACTIVE && m != M_UTIL_GPU &&
            m != M_UTIL_MEMORY)
            v[m] = phys_gen(sc, g, (metric_id)m, t, v[m]);
}

/* Values that follow others: PCIe throughput (after the link's generation and width), free
 * memory, BAR1, GPM PCIe rates, reason bits. */
static void fill_derived(const sim_gpu *g, const sim_inst *in, const proc_sums *ps, double *v)
{
    /* a baseline of driver traffic that grows with activity (at most ~6 / 3 MB/s) */
    if (!g->spec->metric[M_PCIE_RX])
        v[M_PCIE_RX] = pcie_rate(v, 100 + 60 * in->util, ps->rx_gbs, ps->rx_pct);
    if (!g->spec->metric[M_PCIE_TX])
        v[M_PCIE_TX] = pcie_rate(v, 50 + 30 * in->util, ps->tx_gbs, ps->tx_pct);
    double room = fmax(0, v[M_MEM_TOTAL] - v[M_MEM_RESERVED]);
    v[M_MEM_USED] = clamp(v[M_MEM_USED], 0, room);
    if (!g->spec->metric[M_MEM_FREE])
        v[M_MEM_FREE] = room - v[M_MEM_USED];
    if (!g->spec->metric[M_BAR1_USED])
        v[M_BAR1_USED] = fmin(v[M_BAR1_TOTAL], 2 + 0.02 * v[M_MEM_USED]);
    if (!g->spec->metric[M_GPM_PCIE_TX])
        v[M_GPM_PCIE_TX] = v[M_PCIE_TX] * 1000.0 / 1048576.0;
    if (!g->spec->metric[M_GPM_PCIE_RX])
        v[M_GPM_PCIE_RX] = v[M_PCIE_RX] * 1000.0 / 1048576.0;
    if (!g->spec->metric[M_PCIE_GEN_GPUCUR])
        v[M_PCIE_GEN_GPUCUR] = v[M_PCIE_GEN_CUR];
    if (!g->spec->metric[M_MIG_MODE] && g->spec->nmig)
        v[M_MIG_MODE] = 1; /* MIG devices given: MIG mode is on */
    if (!g->spec->metric[M_MIG_MODE_PEND])
        v[M_MIG_MODE_PEND] = v[M_MIG_MODE];
    /* protected memory as with CC mode off: the size is what is in use, nothing free */
    if (!g->spec->metric[M_PROTECTED_MEM_TOTAL])
        v[M_PROTECTED_MEM_TOTAL] = v[M_PROTECTED_MEM_USED];
    if (!g->spec->metric[M_PROTECTED_MEM_FREE])
        v[M_PROTECTED_MEM_FREE] = fmax(0, v[M_PROTECTED_MEM_TOTAL] - v[M_PROTECTED_MEM_USED]);
    /* ECC by location: every error in device memory (= dram), none in SRAM, unless given */
    static const metric_id totals[2][2] = {{M_ECC_SBE_VOL, M_ECC_SBE_AGG}, {M_ECC_DBE_VOL, M_ECC_DBE_AGG}};
    for (int unc = 0; unc < 2; unc++)
        for (int agg = 0; agg < 2; agg++)
            for (int loc = 0; loc < 2; loc++)
                if (!g->spec->metric[ecc_loc_id(unc, agg, loc)])
                    v[ecc_loc_id(unc, agg, loc)] = v[totals[unc][agg]];
    nvlink_totals(g, v);
    uint64_t bits = (uint64_t)v[M_CER_ACTIVE];
    for (int m = M_CER_GPU_IDLE; m <= M_CER_HW_POWER_BRAKE; m++)
        v[m] = (bits & metric_catalog[m].bit) ? 1 : 0;
}

/* Rounds a value to NVML's resolution for that metric (sc->quantum, from the catalog). */
static double quantize(const scenario *sc, metric_id m, double v)
{
    double q = sc->quantum[m];
    if (!(v > 0))
        v = 0; /* negative or NaN */
    if (v > SIM_MAX_VALUE)
        v = SIM_MAX_VALUE;
    if (q == 0)
        return v;
    v = q == 1 ? round(v) : round(v * q) / q;
    return metric_catalog[m].unit && metric_catalog[m].unit[0] == '%' && v > 100 ? 100 : v;
}

static void snapshot(scenario *sc, sim_gpu *g, double t, double *v)
{
    sim_state st;
    sim_inst in;
    proc_sums ps;
    if (!(t > 0))
        t = 0;
    if (t > SIM_MAX_T)
        t = SIM_MAX_T;
    phys_state_at(sc, g, t, &st);
    phys_instant(sc, g, t, &st, &in);
    process_sums(sc, g, t, &ps);
    memset(v, 0, sizeof(double) * M_COUNT);
    fill_static(sc, g, v);
    fill_dynamic(sc, g, t, &in, &st, &ps, v);
    apply_generators(sc, g, t, v);
    fill_derived(g, &in, &ps, v);
    for (int m = M_STR_END; m < M_COUNT; m++)
        v[m] = quantize(sc, (metric_id)m, v[m]);
}

int sim_util_at(const scenario *sc, int gpu, metric_id m, double t, double *out)
{
    if (gpu < 0 || gpu >= sc->ngpus || (m != M_UTIL_GPU && m != M_UTIL_MEMORY) || sim_unsupported(sc, gpu, m))
        return -1;
    const sim_gpu *g = &sc->gpus[gpu];
    t = t > 0 ? (t < SIM_MAX_T ? t : SIM_MAX_T) : 0;
    *out = quantize(sc, m, m == M_UTIL_GPU ? win_gpu_util(sc, g, t) : win_mem_util(sc, g, t));
    return 0;
}

int sim_unsupported(const scenario *sc, int gpu, metric_id m)
{
    return mset_has(&sc->gpus[gpu].spec->unsupported, m);
}

int sim_value(scenario *sc, int gpu, metric_id m, double t, double *out)
{
    if (gpu < 0 || gpu >= sc->ngpus || metric_is_string(m) || (int)m >= M_COUNT || sim_unsupported(sc, gpu, m))
        return -1;
    sim_gpu *g = &sc->gpus[gpu];
    if (!g->cache_ok || g->cache_t != t) {
        snapshot(sc, g, t, g->cache_v);
        g->cache_ok = 1;
        g->cache_t = t;
    }
    *out = g->cache_v[m];
    return 0;
}

void sim_violations(scenario *sc, int gpu, double t, double ns[4])
{
    sim_state st;
    phys_state_at(sc, &sc->gpus[gpu], t > 0 ? (t < SIM_MAX_T ? t : SIM_MAX_T) : 0, &st);
    for (int i = 0; i < 4; i++)
        ns[i] = round(st.viol_ns[i]);
}

int sim_string(const scenario *sc, int gpu, metric_id m, char *out, size_t n)
{
    if (gpu < 0 || gpu >= sc->ngpus || !metric_is_string(m) || sim_unsupported(sc, gpu, m))
        return -1;
    const sim_gpu *g = &sc->gpus[gpu];
    const sim_gpu_spec *s = g->spec;
    switch (m) {
    case M_NAME: snprintf(out, n, "%s", s->name); break;
    case M_UUID: snprintf(out, n, "%s", g->uuid); break;
    case M_SERIAL: snprintf(out, n, "%s", g->serial); break;
    case M_PCI_BUS_ID: snprintf(out, n, "%s", g->pci_bus_id); break;
    case M_DRIVER_VERSION: snprintf(out, n, "%s", sc->driver_version); break;
    case M_VBIOS_VERSION: snprintf(out, n, "%s", s->vbios); break;
    case M_PCI_DEVICE_ID: snprintf(out, n, "0x%08X", s->p.pci_device_id); break;
    case M_PCI_SUB_DEVICE_ID: snprintf(out, n, "0x%08X", s->p.pci_subsys_id); break;
    case M_PCI_DOMAIN:
    case M_PCI_BUS:
    case M_PCI_DEVICE: {
        unsigned pos[3] = {0, g->pci_bus, 0}; /* domain, bus, device of "DDDDDDDD:BB:DD.F" */
        sscanf(g->pci_bus_id, "%x:%x:%x", &pos[0], &pos[1], &pos[2]);
        if (m == M_PCI_DOMAIN)
            snprintf(out, n, "0x%04X", pos[0]);
        else
            snprintf(out, n, "0x%02X", pos[m == M_PCI_BUS ? 1 : 2]);
        break;
    }
    case M_PCI_BASE_CLASS: snprintf(out, n, "0x3"); break; /* display controller: VGA (GeForce) or 3D */
    case M_PCI_SUB_CLASS: snprintf(out, n, "0x%X", s->p.brand == 5 ? 0u : 2u); break;
    case M_INFOROM_IMG: snprintf(out, n, "%s", s->p.inforom_img); break;
    case M_INFOROM_OEM: snprintf(out, n, "%s", s->p.inforom_oem); break;
    case M_INFOROM_ECC: snprintf(out, n, "%s", s->p.inforom_ecc); break;
    default: return -1;
    }
    return 0;
}
