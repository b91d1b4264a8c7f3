/* test_diag_synth.h - synthetic GPU traces for the diagnosis tests, built through the window's
 * public builder (gpu_sample, gpu_info, gpu_proc). A GPU's work is a list of segments (steady,
 * periodic busy/idle with jitter, Poisson bursts, ramp, idle); utilization is what NVML reports:
 * the busy share over its averaging period before each reading. Power, clocks, temperature and
 * throttle reasons follow a simple physical model; processes and their memory are listed at every
 * reading. Everything comes from a seeded PRNG, never from the clock. */
#ifndef TEST_DIAG_SYNTH_H
#define TEST_DIAG_SYNTH_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "diag.h"
#include "util.h"

#define SYN_T0 1700000000000000ull /* 2023-11-14, in us */
#define SYN_MAX_GPUS 8
#define SYN_MAX_SEGS 32
#define SYN_MAX_PROCS 4
#define SYN_MAX_XIDS 4

/* ---- PRNG (splitmix64) ---- */
static inline uint64_t syn_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static inline double syn_unif(uint64_t *s)
{
    return (double)(syn_next(s) >> 11) / 9007199254740992.0;
}
static inline double syn_range(uint64_t *s, double lo, double hi)
{
    return lo + (hi - lo) * syn_unif(s);
}
static inline int syn_int(uint64_t *s, int lo, int hi)
{
    return lo + (int)(syn_unif(s) * (hi - lo + 1));
}
static inline double syn_normal(uint64_t *s)
{
    double u = syn_unif(s), v = syn_unif(s);
    return sqrt(-2 * log(u + 1e-300)) * cos(2 * M_PI * v);
}

/* ---- GPU models (limits as NVML reports them) ---- */
typedef struct syn_model {
    const char *name;
    double mem_total, power_default, power_idle, t_idle, t_load, t_slowdown, t_shutdown, t_gpu_max, t_mem_max;
    double clk_max_sm, pcie_gen, pcie_width;
    int gpm, hbm;
    int nvlinks;
} syn_model;

static const syn_model SYN_MODELS[] = {
    {"NVIDIA H100 80GB HBM3", 81559, 700, 69.8, 41, 72, 89, 95, 87, 95, 1980, 5, 16, 1, 1, 18},
    {"NVIDIA H200", 143771, 700, 76, 36, 70, 89, 95, 87, 95, 1980, 5, 16, 1, 1, 18},
    {"NVIDIA A100-SXM4-80GB", 81920, 400, 61, 33, 68, 89, 92, 85, 95, 1410, 4, 16, 0, 1, 12},
    {"NVIDIA L4", 23034, 72, 16, 35, 75, 92, 95, 87, 0, 2040, 4, 16, 0, 0, 0},
    {"NVIDIA GeForce RTX 4080 SUPER", 16376, 320, 26, 43, 78, 96, 101, 90, 0, 3165, 4, 16, 0, 0, 0},
};
#define SYN_N_MODELS ((int)(sizeof SYN_MODELS / sizeof SYN_MODELS[0]))

/* ---- what a GPU does ---- */
typedef enum { PAT_STEADY, PAT_SQUARE, PAT_BURSTS, PAT_RAMP, PAT_IDLE } syn_pattern;

typedef struct syn_seg {
    double from_s, to_s;
    syn_pattern pat;
    double hi, lo;         /* busy and idle levels, % */
    double period_s, duty; /* PAT_SQUARE */
    double jitter;         /* PAT_SQUARE: cycle length sd / period */
    double rate_hz;        /* PAT_BURSTS: arrivals per second */
    double burst_s;        /* PAT_BURSTS: mean burst length */
} syn_seg;

typedef struct syn_proc {
    unsigned pid;
    double from_s, to_s; /* present in [from, to) */
    const char *user, *name, *cmd, *container;
    double mem0, mem1;           /* MiB: mem0, ramping to mem1 ... */
    double ramp_start_s, ramp_s; /* ... over ramp_s from ramp_start_s (then holds) */
    double step_mib, step_s;     /* and step_mib more every step_s (allocator growth) */
    double mem_noise;
    double cpu;    /* host CPU %, 0 not reported */
    unsigned type; /* proc_type_bits; 0: a compute process */
} syn_proc;

typedef struct syn_gpu {
    int model;
    double power_limit; /* enforced limit, 0 = the default */
    double demand;      /* power demand scale, 0 = 1 */
    syn_seg seg[SYN_MAX_SEGS];
    int n_seg;
    syn_proc proc[SYN_MAX_PROCS];
    int n_proc;
    double noise;                                         /* utilization noise sd, % */
    double sm_ratio;                                      /* gpm.sm_active / utilization, 0 = 0.9 */
    double mem_util_ratio;                                /* utilization.memory / utilization, 0 = 0.4 */
    double temp_from, temp_to, temp_start_s, temp_ramp_s; /* temp_to > 0: forced temperature ramp */
    double mem_temp;                                      /* > 0: forced HBM temperature */
    int no_temp;                                          /* temperature not supported */
    double pcie_kbs;                                      /* > 0: PCIe rx throughput while busy */
    double pcie_gen;                                      /* > 0: current link generation */
    double xid_at_s[SYN_MAX_XIDS];
    int xid_code[SYN_MAX_XIDS];
    int n_xid;
    double dbe_at_s, pending_at_s, lost_from_s, lost_to_s; /* > 0: when */
    double failure_at_s;                                   /* > 0: a row remap fails then */
    double retired_dbe0, retired_dbe_at_s;                 /* page retirement (no row remapper): the
                                                            * double-bit count, one more at that time */
    /* held low without a power or thermal reason */
    double clock_cap;          /* > 0: SM clock at most this (locked or applications clocks) */
    double app_clock;          /* > 0: the applications clock reported */
    int low_pstate;            /* busy in P8: idle clocks */
    double hw_slowdown_from_s; /* > 0: HW slowdown asserted from then (clocks halved) */
    /* the PCIe link */
    double pcie_width;      /* > 0: current link width */
    double pcie_idle_gen;   /* > 0: generation while idle */
    double replays_per_min; /* > 0: PCIe replays */
    /* a collective that never completes: from then utilization 100 %, a few SMs, no memory traffic */
    double hang_from_s;
    /* NVLink (models with links): one bad link */
    int nvl_link; /* -1 none */
    double nvl_from_s, nvl_crc_per_s, nvl_replay_per_min, nvl_recovery_at_s, nvl_down_at_s;
    double nvl_old_errors; /* counts from before the window, on every link (not rising) */
    /* built */
    double *busy_from, *busy_to; /* busy intervals of PAT_SQUARE / PAT_BURSTS segments */
    int n_busy, cap_busy;
    double temp_state;
} syn_gpu;

typedef struct syn_spec {
    int n_gpus;
    syn_gpu gpu[SYN_MAX_GPUS];
    double duration_s, dt_s; /* window length, reading interval */
    double avg_s;            /* NVML utilization averaging period (1/6 s .. 1 s) */
    double dt_jitter;        /* reading time jitter, share of dt */
    int no_procs;            /* the source has no process lists */
    uint64_t seed;
} syn_spec;

static inline void syn_busy_add(syn_gpu *g, double a, double b)
{
    if (g->n_busy == g->cap_busy) {
        g->cap_busy = g->cap_busy ? g->cap_busy * 2 : 256;
        g->busy_from = realloc(g->busy_from, (size_t)g->cap_busy * sizeof(double));
        g->busy_to = realloc(g->busy_to, (size_t)g->cap_busy * sizeof(double));
    }
    g->busy_from[g->n_busy] = a;
    g->busy_to[g->n_busy] = b;
    g->n_busy++;
}

/* Busy intervals of the periodic and bursty segments, drawn once. */
static inline void syn_plan(syn_gpu *g, double duration_s, uint64_t *rng)
{
    for (int k = 0; k < g->n_seg; k++) {
        syn_seg *s = &g->seg[k];
        double t = s->from_s, end = s->to_s < duration_s + 10 ? s->to_s : duration_s + 10;
        if (s->pat == PAT_SQUARE) {
            t -= syn_range(rng, 0, s->period_s); /* a random phase */
            while (t < end) {
                double p = s->period_s * (1 + s->jitter * syn_normal(rng));
                if (p < 0.2 * s->period_s)
                    p = 0.2 * s->period_s;
                syn_busy_add(g, t, t + s->duty * p);
                t += p;
            }
        } else if (s->pat == PAT_BURSTS) {
            while (t < end) {
                t += -log(1 - syn_unif(rng)) / s->rate_hz;
                double len = -log(1 - syn_unif(rng)) * s->burst_s;
                syn_busy_add(g, t, t + len);
                t += len;
            }
        }
    }
}

static inline int syn_in_busy(const syn_gpu *g, double t)
{
    int lo = 0, hi = g->n_busy - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (g->busy_to[mid] <= t)
            lo = mid + 1;
        else if (g->busy_from[mid] > t)
            hi = mid - 1;
        else
            return 1;
    }
    return 0;
}

/* Instantaneous level, %: -1 when no segment covers t (no job). */
static inline double syn_level(const syn_gpu *g, double t)
{
    for (int k = 0; k < g->n_seg; k++) {
        const syn_seg *s = &g->seg[k];
        if (t < s->from_s || t >= s->to_s)
            continue;
        switch (s->pat) {
        case PAT_STEADY: return s->hi;
        case PAT_IDLE: return s->lo;
        case PAT_RAMP: return s->lo + (s->hi - s->lo) * (t - s->from_s) / (s->to_s - s->from_s);
        case PAT_SQUARE:
        case PAT_BURSTS: return syn_in_busy(g, t) ? s->hi : s->lo;
        }
    }
    return 0;
}

/* The mean level over [t - w, t]: what NVML reports over its averaging period. */
static inline double syn_avg(const syn_gpu *g, double t, double w)
{
    const int K = 24;
    double sum = 0;
    for (int k = 0; k < K; k++)
        sum += syn_level(g, t - w * (k + 0.5) / K);
    return sum / K;
}

static inline double syn_proc_mem(const syn_proc *p, double t, uint64_t *rng)
{
    double m = p->mem0;
    if (p->ramp_s > 0 && t > p->ramp_start_s) {
        double x = (t - p->ramp_start_s) / p->ramp_s;
        m += (p->mem1 - p->mem0) * (x > 1 ? 1 : x);
    }
    if (p->step_s > 0 && t > p->from_s)
        m += floor((t - p->from_s) / p->step_s) * p->step_mib;
    if (p->mem_noise > 0)
        m += p->mem_noise * syn_normal(rng);
    return floor(m < 0 ? 0 : m);
}

static inline void syn_info(gpu_info *info, int idx, const syn_model *m)
{
    memset(info, 0, sizeof *info);
    info->index = idx;
    gw_strlcpy(info->str[M_NAME], m->name, GW_STR_LEN);
    snprintf(info->str[M_UUID], GW_STR_LEN, "GPU-00000000-0000-0000-0000-%012d", idx);
    mset_add(&info->str_present, M_NAME);
    mset_add(&info->str_present, M_UUID);
}

typedef struct syn_counters {
    double xid_count, xid_last, dbe, pending, remap_unc;
} syn_counters;

/* One reading of GPU g at t (seconds into the window). */
static inline void syn_sample(const syn_spec *sp, syn_gpu *g, double t, double dt, uint64_t *rng, syn_counters *cnt,
                              gpu_sample *s)
{
    const syn_model *m = &SYN_MODELS[g->model];
    double limit = g->power_limit > 0 ? g->power_limit : m->power_default;
    int hung = g->hang_from_s > 0 && t >= g->hang_from_s;
    double util = hung ? 100 : syn_avg(g, t, sp->avg_s) + g->noise * syn_normal(rng);
    util = round(util < 0 ? 0 : (util > 100 ? 100 : util));
    double sm_ratio = g->sm_ratio > 0 ? g->sm_ratio : 0.9;
    double mu_ratio = hung ? 0 : g->mem_util_ratio > 0 ? g->mem_util_ratio : 0.4;
    /* power: a 1 s average of the activity; a hung kernel keeps 3 % of the SMs busy */
    double act = hung ? 100 : syn_avg(g, t, 1.0);
    double sm = hung ? 3 : act * sm_ratio, memu = act * mu_ratio;
    /* clocks held low lower the power the same work draws */
    int slowed = g->hw_slowdown_from_s > 0 && t >= g->hw_slowdown_from_s;
    double cap = g->low_pstate ? 345 : g->clock_cap > 0 ? g->clock_cap : m->clk_max_sm;
    double fclk = (cap < m->clk_max_sm ? cap / m->clk_max_sm : 1) * (slowed ? 0.5 : 1);
    double demand = m->power_idle + (1.05 * m->power_default - m->power_idle) * (0.85 * sm / 90 + 0.15 * memu / 100) *
                                        (g->demand > 0 ? g->demand : 1) * fclk;
    double power = demand > limit ? limit : demand;
    unsigned cer = util < 1 ? 0x1u : 0;
    double clock = util >= 1 ? fmin(m->clk_max_sm, cap) * (slowed ? 0.5 : 1) : 345;
    if (slowed)
        cer |= 0x8u;
    if (demand > limit) {
        cer |= 0x4u;
        clock *= (limit - m->power_idle) / (demand - m->power_idle);
    }
    /* temperature: relaxes toward the load's steady value, or a forced ramp */
    double target = m->t_idle + (m->t_load - m->t_idle) * (power - m->power_idle) / (m->power_default - m->power_idle);
    g->temp_state += (target - g->temp_state) * (1 - exp(-dt / 30.0));
    double temp = g->temp_state;
    if (g->temp_to > 0) {
        double x = (t - g->temp_start_s) / (g->temp_ramp_s > 0 ? g->temp_ramp_s : 1);
        x = x < 0 ? 0 : (x > 1 ? 1 : x);
        temp = g->temp_from + (g->temp_to - g->temp_from) * x;
    }
    if (temp >= m->t_gpu_max) {
        cer |= 0x20u;
        clock *= 0.85;
    }
    if (temp >= m->t_slowdown) {
        cer |= 0x40u | 0x8u;
        clock *= 0.5;
    }
    memset(s, 0, sizeof *s);
    s->t_us = SYN_T0 + (uint64_t)(t * 1e6);
    s->status = GPU_OK;
    sample_set(s, M_INDEX, 0);
    sample_set(s, M_UTIL_GPU, util);
    sample_set(s, M_UTIL_MEMORY, round(util * mu_ratio));
    if (m->gpm) {
        sample_set(s, M_GPM_SM_ACTIVE, hung ? 3 : round(util * sm_ratio * 10) / 10);
        sample_set(s, M_GPM_DRAM_ACTIVE, round(util * mu_ratio * 0.9 * 10) / 10);
    }
    sample_set(s, M_POWER_DRAW, round(power * 1000) / 1000);
    sample_set(s, M_POWER_ENFORCED_LIMIT, limit);
    sample_set(s, M_POWER_LIMIT, limit);
    sample_set(s, M_POWER_DEFAULT_LIMIT, m->power_default);
    sample_set(s, M_MEM_TOTAL, m->mem_total);
    sample_set(s, M_CLOCK_SM, round(clock));
    sample_set(s, M_CLOCK_MAX_SM, m->clk_max_sm);
    if (!g->no_temp) {
        sample_set(s, M_TEMP_GPU, round(temp));
        sample_set(s, M_TEMP_SLOWDOWN, m->t_slowdown);
        sample_set(s, M_TEMP_SHUTDOWN, m->t_shutdown);
        sample_set(s, M_TEMP_GPU_MAX, m->t_gpu_max);
    }
    if (m->hbm) {
        double mt = g->mem_temp > 0 ? g->mem_temp : 48 + 0.6 * (temp - m->t_idle);
        sample_set(s, M_TEMP_MEMORY, round(mt));
        sample_set(s, M_TEMP_MEM_MAX, m->t_mem_max);
    }
    sample_set(s, M_CER_ACTIVE, cer);
    sample_set(s, M_PCIE_GEN_MAX, m->pcie_gen);
    sample_set(s, M_PCIE_WIDTH_MAX, m->pcie_width);
    double gen = g->pcie_gen > 0 ? g->pcie_gen : m->pcie_gen;
    sample_set(s, M_PCIE_GEN_CUR, util < 1 && g->pcie_idle_gen > 0 ? g->pcie_idle_gen : gen);
    sample_set(s, M_PCIE_WIDTH_CUR, g->pcie_width > 0 ? g->pcie_width : m->pcie_width);
    if (g->replays_per_min > 0)
        sample_set(s, M_PCIE_REPLAY, floor(t / 60 * g->replays_per_min));
    if (g->app_clock > 0)
        sample_set(s, M_CLOCK_APP_GR, g->app_clock);
    sample_set(s, M_PSTATE, g->low_pstate && util >= 1 ? 8 : (util >= 1 ? 0 : 0));
    /* NVLink: every link up, counters from before the window; one bad link */
    int links = m->nvlinks;
    if (links > 0) {
        double active = 0;
        for (int l = 0; l < links; l++) {
            int bad = l == g->nvl_link && t >= g->nvl_from_s;
            double dt_bad = bad ? t - g->nvl_from_s : 0;
            int up = !(l == g->nvl_link && g->nvl_down_at_s > 0 && t >= g->nvl_down_at_s);
            active += up;
            sample_set(s, nvlink_id(l, NVL_STATE), up);
            sample_set(s, nvlink_id(l, NVL_CRC), g->nvl_old_errors + floor(dt_bad * g->nvl_crc_per_s));
            sample_set(s, nvlink_id(l, NVL_REPLAY), g->nvl_old_errors + floor(dt_bad / 60 * g->nvl_replay_per_min));
            sample_set(s, nvlink_id(l, NVL_RECOVERY),
                       g->nvl_old_errors + (l == g->nvl_link && g->nvl_recovery_at_s > 0 && t >= g->nvl_recovery_at_s));
        }
        sample_set(s, M_NVLINK_ACTIVE, active);
    }
    double rx = g->pcie_kbs > 0 && util >= 1 ? g->pcie_kbs * (1 + 0.05 * syn_normal(rng)) : 100 + 60 * util;
    sample_set(s, M_PCIE_RX, round(rx));
    sample_set(s, M_PCIE_TX, round(50 + 30 * util));
    /* counters: everything that happened up to t */
    cnt->xid_count = 0;
    for (int k = 0; k < g->n_xid; k++)
        if (g->xid_at_s[k] <= t) {
            cnt->xid_count += 1;
            cnt->xid_last = g->xid_code[k];
        }
    cnt->dbe = g->dbe_at_s > 0 && g->dbe_at_s <= t;
    cnt->pending = g->pending_at_s > 0 && g->pending_at_s <= t;
    cnt->remap_unc = cnt->pending;
    sample_set(s, M_XID_COUNT, cnt->xid_count);
    sample_set(s, M_XID_LAST, cnt->xid_last);
    if (m->hbm && g->retired_dbe0 > 0) { /* a board that retires pages instead */
        sample_set(s, M_ECC_DBE_VOL, cnt->dbe);
        sample_set(s, M_RETIRED_DBE, g->retired_dbe0 + (g->retired_dbe_at_s > 0 && t >= g->retired_dbe_at_s));
        sample_set(s, M_RETIRED_SBE, 0);
        sample_set(s, M_RETIRED_PENDING, g->retired_dbe_at_s > 0 && t >= g->retired_dbe_at_s);
    } else if (m->hbm) {
        sample_set(s, M_ECC_DBE_VOL, cnt->dbe);
        sample_set(s, M_REMAP_UNC, cnt->remap_unc);
        sample_set(s, M_REMAP_PENDING, cnt->pending);
        sample_set(s, M_REMAP_FAILURE, g->failure_at_s > 0 && t >= g->failure_at_s);
    }
}

/* The processes of GPU g at t, and the memory they use. */
static inline int syn_procs(const syn_gpu *g, int idx, double t, double util, uint64_t *rng, gpu_proc *out,
                            double *used)
{
    int n = 0;
    *used = 0;
    for (int k = 0; k < g->n_proc; k++) {
        const syn_proc *p = &g->proc[k];
        if (t < p->from_s || t >= p->to_s)
            continue;
        gpu_proc *q = &out[n++];
        memset(q, 0, sizeof *q);
        q->gpu = idx;
        q->pid = p->pid;
        q->type = p->type ? p->type : PROC_COMPUTE;
        q->mem_mib = syn_proc_mem(p, t, rng);
        q->has_mem = 1;
        *used += q->mem_mib;
        if (util > 0) {
            q->sm_util = util;
            q->has_sm = 1;
        }
        if (p->cpu > 0) {
            q->cpu_percent = p->cpu * (1 + 0.03 * syn_normal(rng));
            q->has_cpu = 1;
        }
        gw_strlcpy(q->name, p->name ? p->name : "python3", sizeof q->name);
        gw_strlcpy(q->cmdline, p->cmd ? p->cmd : "", sizeof q->cmdline);
        gw_strlcpy(q->user, p->user ? p->user : "", sizeof q->user);
        gw_strlcpy(q->container, p->container ? p->container : "", sizeof q->container);
    }
    return n;
}

/* Builds the window: every GPU read every dt (with jitter) for duration_s. */
static inline diag_window *syn_build(syn_spec *sp)
{
    diag_window *w = diag_window_new();
    uint64_t rng = sp->seed * 7919 + 17;
    for (int i = 0; i < sp->n_gpus; i++) {
        syn_gpu *g = &sp->gpu[i];
        syn_plan(g, sp->duration_s, &rng);
        const syn_model *m = &SYN_MODELS[g->model];
        g->temp_state = m->t_idle;
    }
    syn_counters cnt[SYN_MAX_GPUS];
    memset(cnt, 0, sizeof cnt);
    gpu_info info;
    gpu_sample s;
    gpu_proc procs[SYN_MAX_PROCS];
    double t = 0;
    while (t <= sp->duration_s) {
        double t_read = t + sp->dt_jitter * sp->dt_s * syn_normal(&rng);
        if (t_read < 0)
            t_read = 0;
        for (int i = 0; i < sp->n_gpus; i++) {
            syn_gpu *g = &sp->gpu[i];
            syn_info(&info, i, &SYN_MODELS[g->model]);
            syn_sample(sp, g, t_read, sp->dt_s, &rng, &cnt[i], &s);
            if (g->lost_to_s > 0 && t_read >= g->lost_from_s && t_read < g->lost_to_s) {
                memset(&s.present, 0, sizeof s.present);
                s.status = GPU_LOST;
            }
            double used = 0;
            int n = syn_procs(g, i, t_read, s.v[M_UTIL_GPU], &rng, procs, &used);
            if (s.status == GPU_OK)
                sample_set(&s, M_MEM_USED, used);
            diag_window_add_sample(w, i, &info, &s);
            if (!sp->no_procs)
                diag_window_add_processes(w, i, s.t_us, procs, n);
        }
        t += sp->dt_s;
    }
    for (int i = 0; i < sp->n_gpus; i++) {
        free(sp->gpu[i].busy_from);
        free(sp->gpu[i].busy_to);
        sp->gpu[i].busy_from = sp->gpu[i].busy_to = NULL;
        sp->gpu[i].n_busy = sp->gpu[i].cap_busy = 0;
    }
    return w;
}

/* Variants per family: n, or GW_DIAG_VARIANTS for a longer soak. */
static inline int syn_variants(int n)
{
    const char *e = getenv("GW_DIAG_VARIANTS");
    return e && atoi(e) > 0 ? atoi(e) : n;
}

/* ---- spec helpers ---- */
static inline void syn_spec_init(syn_spec *sp, uint64_t *rng, int n_gpus, double duration_s)
{
    memset(sp, 0, sizeof *sp);
    sp->n_gpus = n_gpus;
    sp->duration_s = duration_s;
    sp->dt_s = syn_range(rng, 0.5, 2.0);
    sp->avg_s = syn_range(rng, 1.0 / 6, 1.0);
    sp->dt_jitter = syn_range(rng, 0, 0.03);
    sp->seed = syn_next(rng);
    int model = syn_int(rng, 0, SYN_N_MODELS - 1);
    for (int i = 0; i < n_gpus; i++) {
        sp->gpu[i].model = model;
        sp->gpu[i].nvl_link = -1;
    }
}

static inline syn_seg *syn_add_seg(syn_gpu *g, double from, double to, syn_pattern pat, double hi, double lo)
{
    syn_seg *s = &g->seg[g->n_seg++];
    memset(s, 0, sizeof *s);
    s->from_s = from;
    s->to_s = to;
    s->pat = pat;
    s->hi = hi;
    s->lo = lo;
    return s;
}

static inline syn_proc *syn_add_proc(syn_gpu *g, unsigned pid, double from, double to, const char *user, double mem)
{
    syn_proc *p = &g->proc[g->n_proc++];
    memset(p, 0, sizeof *p);
    p->pid = pid;
    p->from_s = from;
    p->to_s = to;
    p->user = user;
    p->name = "python3";
    p->cmd = "python3 train.py --config base.yaml";
    p->mem0 = mem;
    return p;
}

/* Runs the default diagnosis over the spec's window. */
static inline void syn_diagnose(syn_spec *sp, diag_report *r)
{
    diag_window *w = syn_build(sp);
    diag_report_init(r);
    diag_run(w, NULL, r);
    diag_window_free(w);
}

static inline int syn_count(const diag_report *r, const char *detector, int gpu)
{
    int n = 0;
    for (int i = 0; i < r->n; i++) {
        if (strcmp(r->f[i].detector, detector) != 0)
            continue;
        if (gpu < 0) {
            n++;
            continue;
        }
        for (int k = 0; k < r->f[i].n_gpus; k++)
            n += r->f[i].gpus[k] == gpu;
    }
    return n;
}

static inline const diag_finding *syn_find(const diag_report *r, const char *detector, int gpu)
{
    for (int i = 0; i < r->n; i++) {
        if (strcmp(r->f[i].detector, detector) != 0)
            continue;
        for (int k = 0; k < r->f[i].n_gpus; k++)
            if (gpu < 0 || r->f[i].gpus[k] == gpu)
                return &r->f[i];
    }
    return NULL;
}

static inline double syn_ev(const diag_finding *f, const char *key)
{
    const diag_evidence *e = f ? diag_finding_get(f, key) : NULL;
    return e && !e->is_str ? e->num : NAN;
}

/* Prints the findings of an unexpected report (cmocka's print_message is not needed here). */
static inline void syn_dump(const char *what, const syn_spec *sp, const diag_report *r)
{
    fprintf(stderr, "--- %s: model %s, %d GPUs, dt %.2f s, avg %.2f s: %d findings\n", what,
            SYN_MODELS[sp->gpu[0].model].name, sp->n_gpus, sp->dt_s, sp->avg_s, r->n);
    for (int i = 0; i < r->n; i++)
        fprintf(stderr, "    %s gpu %d %s: %s\n", r->f[i].detector, r->f[i].n_gpus ? r->f[i].gpus[0] : -1,
                diag_severity_name(r->f[i].severity), r->f[i].summary);
}

#endif
