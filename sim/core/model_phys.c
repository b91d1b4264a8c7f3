/* model_phys.c - power follows load up to the limit (sw_power_cap beyond it), the GPU and its
 * HBM relax toward power- and load-dependent temperatures with their own time constants, and
 * their thermal limits slow the clocks; energy and violation times integrate on a fixed grid so
 * results do not depend on when (or how often) the model is asked. */
#include "model_phys.h"
#include "model.h"
#include <math.h>

#define BIT_IDLE 0x1ULL
#define BIT_SW_POWER 0x4ULL
#define BIT_HW_SLOWDOWN 0x8ULL
#define BIT_SW_THERMAL 0x20ULL
#define BIT_HW_THERMAL 0x40ULL
#define BIT_POWER_BRAKE 0x80ULL

static double clamp(double v, double lo, double hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

double phys_gen(const scenario *sc, const sim_gpu *g, metric_id m, double t, double dflt)
{
    const sim_gen *gen = g->spec->metric[m];
    return gen ? gen_eval(gen, t, noise_key(sc->seed, (uint32_t)g->index, (uint32_t)m)) : dflt;
}

double phys_act_gpu(const scenario *sc, const sim_gpu *g, double t)
{
    if (g->spec->metric[M_UTIL_GPU])
        return clamp(phys_gen(sc, g, M_UTIL_GPU, t, 0), 0, 100);
    return clamp(sim_proc_activity(sc, g, t), 0, 100);
}

double phys_act_mem(const scenario *sc, const sim_gpu *g, double t)
{
    if (g->spec->metric[M_UTIL_MEMORY])
        return clamp(phys_gen(sc, g, M_UTIL_MEMORY, t, 0), 0, 100);
    if (!g->spec->metric[M_UTIL_GPU] && sim_proc_hang_sm(g, t) >= 0)
        return 0; /* a kernel spinning on a flag reads and writes no memory */
    return 0.4 * phys_act_gpu(sc, g, t);
}

/* Reasons forced by the scenario: the whole mask, then single reason metrics on top. */
static uint64_t forced_bits(const scenario *sc, const sim_gpu *g, double t, uint64_t bits)
{
    if (g->spec->metric[M_CER_ACTIVE])
        bits = (uint64_t)llround(clamp(phys_gen(sc, g, M_CER_ACTIVE, t, 0), 0, 0x1FF));
    for (int m = M_CER_GPU_IDLE; m <= M_CER_HW_POWER_BRAKE; m++) {
        if (!g->spec->metric[m])
            continue;
        uint64_t bit = metric_catalog[m].bit;
        bits = phys_gen(sc, g, (metric_id)m, t, 0) >= 0.5 ? bits | bit : bits & ~bit;
    }
    return bits;
}

/* The share of its maximum clock the GPU may run at when busy: 1, or less where the clocks are
 * locked (nvidia-smi -lgc), the applications clock is set lower, or a pstate generator holds it in a
 * lower P-state than the board's busy one (then its idle clock). None sets a clock event reason
 * (NVML's ApplicationsClocksSetting reason is no longer used). */
static double clock_ceiling(const scenario *sc, const sim_gpu *g, double t)
{
    const sim_preset *p = &g->spec->p;
    double max = p->clk_max_sm, c = max;
    if (g->spec->locked_clock_mhz > 0)
        c = fmin(c, g->spec->locked_clock_mhz);
    if (g->spec->metric[M_CLOCK_APP_GR])
        c = fmin(c, phys_gen(sc, g, M_CLOCK_APP_GR, t, max));
    if (g->spec->metric[M_PSTATE] && phys_gen(sc, g, M_PSTATE, t, p->pstate_busy) > p->pstate_busy)
        c = fmin(c, p->clk_idle_gr);
    return max > 0 ? clamp(c / max, 0.01, 1) : 1;
}

void phys_instant(const scenario *sc, const sim_gpu *g, double t, const sim_state *st, sim_inst *o)
{
    const sim_preset *p = &g->spec->p;
    int hbm = (p->flags & PRESET_HBM) != 0;
    o->util = phys_act_gpu(sc, g, t);
    o->memutil = phys_act_mem(sc, g, t);
    /* a hung process keeps the GPU "busy" in one kernel that spins on a few SMs (phys_act_mem: touching
     * no memory) */
    double hung_sm = g->spec->metric[M_UTIL_GPU] ? -1 : sim_proc_hang_sm(g, t);
    o->smact = clamp(phys_gen(sc, g, M_GPM_SM_ACTIVE, t, hung_sm >= 0 ? hung_sm : 0.9 * o->util), 0, 100);
    o->temp = phys_gen(sc, g, M_TEMP_GPU, t, st->temp);
    o->temp_mem = hbm ? phys_gen(sc, g, M_TEMP_MEMORY, t, st->temp_mem) : 0;
    o->limit = phys_gen(sc, g, M_POWER_ENFORCED_LIMIT, t, phys_gen(sc, g, M_POWER_LIMIT, t, p->power_limit_w));
    o->busy = o->util >= 1;
    /* the HBM at its max operating temperature slows the clocks as the GPU at its own does
     * (NVML's SW thermal slowdown covers both); at its shutdown point, HW thermal slowdown */
    int hw = o->temp >= p->t_slowdown || (hbm && o->temp_mem >= p->t_mem_shutdown);
    int sw = o->temp >= p->t_gpu_max || (hbm && o->temp_mem >= p->t_mem_max);
    double fth = hw ? 0.5 : sw ? 0.85 : 1.0, fpw = 1.0, idle = p->power_idle_w;
    if (!hw && (forced_bits(sc, g, t, 0) & BIT_HW_SLOWDOWN))
        fth *= 0.5; /* HW slowdown asserted from outside (a power brake, the PSU): clocks halve */
    double fclk = clock_ceiling(sc, g, t); /* lower clocks draw less power for the same work */
    int cap;
    if (g->spec->metric[M_POWER_DRAW]) {
        o->power = fmax(0, phys_gen(sc, g, M_POWER_DRAW, t, 0));
        cap = o->power >= 0.98 * o->limit;
        fpw = cap ? 0.92 : 1.0;
    } else {
        double peak = 1.05 * g->spec->power_default_w;
        double load = clamp(0.85 * o->smact / 90.0 + 0.15 * o->memutil / 100.0, 0, 1.25);
        double demand = idle + (peak - idle) * load * fth * fclk;
        cap = demand > o->limit;
        o->power = cap ? o->limit : demand;
        if (cap)
            fpw = o->limit > idle ? clamp((o->limit - idle) / (demand - idle), 0.3, 1) : 0.3;
    }
    o->clk_factor = fmin(fth * fpw, fth * fclk);
    uint64_t bits = 0;
    if (!o->busy)
        bits |= BIT_IDLE;
    if (cap)
        bits |= BIT_SW_POWER;
    if (sw)
        bits |= BIT_SW_THERMAL;
    if (hw)
        bits |= BIT_HW_THERMAL | BIT_HW_SLOWDOWN;
    o->bits = forced_bits(sc, g, t, bits);
}

/* Share of the default power limit above idle that a draw uses (1 at the default limit). */
static double power_share(const sim_gpu *g, double power)
{
    double span = g->spec->power_default_w - g->spec->p.power_idle_w;
    return span > 0 ? (power - g->spec->p.power_idle_w) / span : 0;
}

/* Steady GPU temperature for a power draw. */
static double temp_target(const sim_gpu *g, double power)
{
    const sim_preset *p = &g->spec->p;
    return p->t_idle + (p->t_load - p->t_idle) * power_share(g, power);
}

/* Steady HBM temperature: heated by the package (power) and by its own traffic (memory
 * activity); t_mem_load at the default power limit with memory fully busy. */
static double temp_mem_target(const sim_gpu *g, double power, double memutil)
{
    const sim_preset *p = &g->spec->p;
    double x = 0.7 * power_share(g, power) + 0.3 * memutil / 100.0;
    return p->t_mem_idle + (p->t_mem_load - p->t_mem_idle) * x;
}

/* Moves state s forward by dt from time t (its values hold at t). */
static void integrate(const scenario *sc, const sim_gpu *g, double t, double dt, sim_state *s)
{
    const sim_preset *p = &g->spec->p;
    sim_inst in;
    phys_instant(sc, g, t, s, &in);
    double target = temp_target(g, in.power);
    s->temp = target + (s->temp - target) * exp(-dt / p->thermal_tau_s);
    if (p->flags & PRESET_HBM) {
        double mt = temp_mem_target(g, in.power, in.memutil);
        s->temp_mem = mt + (s->temp_mem - mt) * exp(-dt / p->t_mem_tau_s);
    }
    s->energy_mj += in.power * dt * 1000.0;
    double ns = dt * 1e9;
    if (in.bits & BIT_SW_POWER)
        s->viol_ns[0] += ns;
    if (in.bits & BIT_SW_THERMAL)
        s->viol_ns[1] += ns;
    if (in.bits & BIT_HW_THERMAL)
        s->viol_ns[2] += ns;
    if (in.bits & BIT_POWER_BRAKE)
        s->viol_ns[3] += ns;
}

void phys_state_at(const scenario *sc, sim_gpu *g, double t, sim_state *out)
{
    if (!(t > 0))
        t = 0;
    if (t > SIM_MAX_T)
        t = SIM_MAX_T;
    int64_t k = (int64_t)floor(t / SIM_DT);
    if (g->st.k < 0 || g->st.k > k) {
        /* steady state at t = 0: the load of t = 0 has been running for a long time */
        sim_state cold = {.temp = g->spec->p.t_idle, .temp_mem = g->spec->p.t_mem_idle};
        sim_inst in;
        phys_instant(sc, g, 0, &cold, &in);
        g->st =
            (sim_state){.k = 0, .temp = temp_target(g, in.power), .temp_mem = temp_mem_target(g, in.power, in.memutil)};
    }
    while (g->st.k < k) {
        integrate(sc, g, (double)g->st.k * SIM_DT, SIM_DT, &g->st);
        g->st.k++;
    }
    *out = g->st;
    double rest = t - (double)k * SIM_DT;
    if (rest > 0)
        integrate(sc, g, (double)k * SIM_DT, rest, out);
}
