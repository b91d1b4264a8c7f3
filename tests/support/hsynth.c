/* hsynth.c - realistic synthetic H100 training samples: utilization 95-99 % with noise, drifting
 * temperatures, noisy power in mW steps, constant memory, growing energy/violation counters,
 * occasional power capping, GPM ratios as full-precision doubles. */
#include "hsynth.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

static uint64_t rnd(hsynth_gpu *g)
{
    g->rng ^= g->rng << 13;
    g->rng ^= g->rng >> 7;
    g->rng ^= g->rng << 17;
    return g->rng;
}

static double unif(hsynth_gpu *g)
{
    return (double)(rnd(g) >> 11) / 9007199254740992.0;
}

static double gauss(hsynth_gpu *g)
{
    double u = unif(g) + 1e-12, v = unif(g);
    return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

void hsynth_init(hsynth_gpu *g, int gpu)
{
    memset(g, 0, sizeof *g);
    g->rng = 0x9E3779B97F4A7C15ull * (uint64_t)(gpu + 1);
    g->temp = 62 + gpu;
    g->energy_mj = 4.2e9 + gpu * 1e7;
}

void hsynth_info(int gpu, gpu_info *out)
{
    memset(out, 0, sizeof *out);
    out->index = gpu;
    snprintf(out->str[M_NAME], GW_STR_LEN, "NVIDIA H100 80GB HBM3");
    snprintf(out->str[M_UUID], GW_STR_LEN, "GPU-5e1d0c2a-0000-4000-8000-%012d", gpu);
    snprintf(out->str[M_PCI_BUS_ID], GW_STR_LEN, "00000000:%02X:00.0", 0x18 + gpu * 0x10);
    mset_add(&out->str_present, M_NAME);
    mset_add(&out->str_present, M_UUID);
    mset_add(&out->str_present, M_PCI_BUS_ID);
}

/* As a backend converts milliwatts: an integer count of thousandths divided by 1000. */
static double q(double v, double unit)
{
    return round(v / unit) / (1 / unit);
}

void hsynth_sample(hsynth_gpu *g, int gpu, int64_t t_us, gpu_sample *s)
{
    memset(s, 0, sizeof *s);
    s->t_us = (uint64_t)t_us;
    s->status = GPU_OK;
    /* static values (the sampler merges them into every sample) */
    sample_set(s, M_INDEX, gpu);
    sample_set(s, M_MINOR_NUMBER, gpu);
    sample_set(s, M_COMPUTE_CAP, 9.0);
    sample_set(s, M_NUMA_NODE, gpu / 4);
    sample_set(s, M_ARCHITECTURE, 9);
    sample_set(s, M_TEMP_SLOWDOWN, 87);
    sample_set(s, M_TEMP_SHUTDOWN, 92);
    sample_set(s, M_TEMP_MEM_MAX, 95);
    sample_set(s, M_TEMP_GPU_MAX, 90);
    sample_set(s, M_MEM_TOTAL, 81559);
    sample_set(s, M_BAR1_TOTAL, 131072);
    sample_set(s, M_POWER_DEFAULT_LIMIT, 700);
    sample_set(s, M_POWER_MIN_LIMIT, 200);
    sample_set(s, M_POWER_MAX_LIMIT, 700);
    sample_set(s, M_CLOCK_MAX_GR, 1980);
    sample_set(s, M_CLOCK_MAX_SM, 1980);
    sample_set(s, M_CLOCK_MAX_MEM, 2619);
    sample_set(s, M_CER_SUPPORTED, 0x1ff);
    sample_set(s, M_PCIE_GEN_MAX, 5);
    sample_set(s, M_PCIE_WIDTH_MAX, 16);
    sample_set(s, M_ECC_MODE, 1);
    /* dynamic */
    double util = 97 + gauss(g) * 1.2;
    util = util > 100 ? 100 : util < 90 ? 90 : util;
    g->temp += (0.5 - unif(g)) * 0.2 + (68 + gpu - g->temp) * 0.01;
    double power = 640 + gauss(g) * 15 + (util - 97) * 5;
    if (g->capped ? unif(g) < 0.2 : unif(g) < 0.01)
        g->capped = !g->capped;
    if (g->capped)
        power = 700 + gauss(g) * 2;
    power = q(power, 0.001);
    g->energy_mj += round(power * 1000);
    if (g->capped)
        g->viol_us += 1e6;
    sample_set(s, M_PSTATE, 0);
    sample_set(s, M_TEMP_GPU, round(g->temp));
    sample_set(s, M_TEMP_MEMORY, round(g->temp + 8));
    sample_set(s, M_UTIL_GPU, round(util));
    sample_set(s, M_UTIL_MEMORY, round(55 + gauss(g) * 4));
    sample_set(s, M_UTIL_ENCODER, 0);
    sample_set(s, M_UTIL_DECODER, 0);
    sample_set(s, M_UTIL_JPEG, 0);
    sample_set(s, M_UTIL_OFA, 0);
    sample_set(s, M_MEM_RESERVED, 570);
    sample_set(s, M_MEM_USED, 76012);
    sample_set(s, M_MEM_FREE, 81559 - 76012 - 570);
    sample_set(s, M_BAR1_USED, 5);
    sample_set(s, M_POWER_DRAW, power);
    sample_set(s, M_POWER_DRAW_INSTANT, q(power + gauss(g) * 30, 0.001));
    sample_set(s, M_POWER_LIMIT, 700);
    sample_set(s, M_POWER_ENFORCED_LIMIT, 700);
    sample_set(s, M_ENERGY, g->energy_mj);
    double clk = g->capped ? 1755 + 15 * (double)(rnd(g) % 8) : 1980;
    sample_set(s, M_CLOCK_GR, clk);
    sample_set(s, M_CLOCK_SM, clk);
    sample_set(s, M_CLOCK_MEM, 2619);
    sample_set(s, M_CLOCK_VIDEO, 1755);
    sample_set(s, M_CER_ACTIVE, g->capped ? 0x4 : 0);
    sample_set(s, M_VIOL_POWER, g->viol_us);
    sample_set(s, M_VIOL_THERMAL, 0);
    sample_set(s, M_PCIE_GEN_CUR, 5);
    sample_set(s, M_PCIE_WIDTH_CUR, 16);
    sample_set(s, M_PCIE_RX, round(180000 + gauss(g) * 20000));
    sample_set(s, M_PCIE_TX, round(90000 + gauss(g) * 10000));
    sample_set(s, M_PCIE_REPLAY, 0);
    sample_set(s, M_ECC_SBE_VOL, 0);
    sample_set(s, M_ECC_DBE_VOL, 0);
    sample_set(s, M_ECC_SBE_AGG, 2);
    sample_set(s, M_ECC_DBE_AGG, 0);
    sample_set(s, M_REMAP_COR, 0);
    sample_set(s, M_REMAP_UNC, 0);
    sample_set(s, M_REMAP_PENDING, 0);
    sample_set(s, M_REMAP_FAILURE, 0);
    sample_set(s, M_XID_LAST, 0);
    sample_set(s, M_XID_COUNT, 0);
    sample_set(s, M_MIG_MODE, 0);
    sample_set(s, M_GPM_GR_ACTIVE, util * (0.98 + unif(g) * 0.01));
    sample_set(s, M_GPM_SM_ACTIVE, util * (0.85 + unif(g) * 0.05));
    sample_set(s, M_GPM_SM_OCCUPANCY, 40 + gauss(g) * 3);
    sample_set(s, M_GPM_TENSOR_ACTIVE, 55 + gauss(g) * 5);
    sample_set(s, M_GPM_DRAM_ACTIVE, 45 + gauss(g) * 4);
    sample_set(s, M_GPM_PCIE_TX, 85 + gauss(g) * 10);
    sample_set(s, M_GPM_PCIE_RX, 170 + gauss(g) * 20);
    sample_set(s, M_GPM_NVLINK_TX, 42000 + gauss(g) * 3000);
    sample_set(s, M_GPM_NVLINK_RX, 42000 + gauss(g) * 3000);
}
