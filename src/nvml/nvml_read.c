/* nvml_read.c - one sample of a GPU's dynamic metrics: only the wanted ones, each NVML getter at most once. */
#include <string.h>
#include "nvml_priv.h"

typedef nvmlReturn_t (*nv_engine_fn)(nvmlDevice_t, unsigned int *, unsigned int *);

void nv_read_u32(nv_rd *r, nv_sym sym, nv_u32_fn fn, metric_id id, double scale)
{
    unsigned v = 0;
    if (fn && nv_need(r, id) && nv_check1(r, sym, fn(r->g->dev, &v), id))
        nv_set(r, id, nv_scaled(v, scale));
}

static void read_engine(nv_rd *r, nv_sym sym, nv_engine_fn fn, metric_id id)
{
    unsigned v = 0, period_us = 0;
    if (fn && nv_need(r, id) && nv_check1(r, sym, fn(r->g->dev, &v, &period_us), id))
        nv_set(r, id, v);
}

void nv_read_memory(nv_rd *r)
{
    const nvml_fns *f = &r->b->fn;
    nv_gpu *g = r->g;
    if (!nv_need(r, M_MEM_TOTAL) && !nv_need(r, M_MEM_USED) && !nv_need(r, M_MEM_FREE) && !nv_need(r, M_MEM_RESERVED))
        return;
    if (f->GetMemoryInfoV2 && !g->mem_v1) {
        static const metric_id ids[] = {M_MEM_TOTAL, M_MEM_RESERVED, M_MEM_USED, M_MEM_FREE};
        nvmlMemory_v2_t m = {.version = nvmlMemory_v2};
        nvmlReturn_t rc = f->GetMemoryInfoV2(g->dev, &m);
        if (rc == NVML_SUCCESS) {
            nv_set(r, M_MEM_TOTAL, m.total / 1048576.0);
            nv_set(r, M_MEM_RESERVED, m.reserved / 1048576.0);
            nv_set(r, M_MEM_USED, m.used / 1048576.0);
            nv_set(r, M_MEM_FREE, m.free / 1048576.0);
            return;
        }
        if (!nv_refused(rc) || !f->GetMemoryInfo) {
            nv_check(r, NV_GetMemoryInfoV2, rc, ids, 4);
            return;
        }
        /* An older driver refusing the v2 struct: use v1 from now on (no reserved figure there). */
        if (rc != NVML_ERROR_NOT_SUPPORTED)
            nv_count_error(r->b, NV_GetMemoryInfoV2, rc);
        g->mem_v1 = 1;
    }
    if (!f->GetMemoryInfo)
        return;
    static const metric_id ids1[] = {M_MEM_TOTAL, M_MEM_USED, M_MEM_FREE};
    nv_unsupported(r, M_MEM_RESERVED);
    nvmlMemory_t m;
    if (nv_check(r, NV_GetMemoryInfo, f->GetMemoryInfo(g->dev, &m), ids1, 3)) {
        nv_set(r, M_MEM_TOTAL, m.total / 1048576.0);
        nv_set(r, M_MEM_USED, m.used / 1048576.0);
        nv_set(r, M_MEM_FREE, m.free / 1048576.0);
    }
}

/* Confidential-compute protected memory in use (dmon's ccpm); NOT_SUPPORTED unless CC mode is on. */
static void read_protected_memory(nv_rd *r)
{
    static const metric_id ids[] = {M_PROTECTED_MEM_TOTAL, M_PROTECTED_MEM_USED, M_PROTECTED_MEM_FREE};
    nvmlMemory_t m;
    if (r->b->fn.GetProtectedMemoryUsage && (nv_need(r, ids[0]) || nv_need(r, ids[1]) || nv_need(r, ids[2])) &&
        nv_check(r, NV_GetProtectedMemoryUsage, r->b->fn.GetProtectedMemoryUsage(r->g->dev, &m), ids, 3)) {
        nv_set(r, M_PROTECTED_MEM_TOTAL, m.total / 1048576.0);
        nv_set(r, M_PROTECTED_MEM_USED, m.used / 1048576.0);
        nv_set(r, M_PROTECTED_MEM_FREE, m.free / 1048576.0);
    }
}

static void read_temperature(nv_rd *r)
{
    const nvml_fns *f = &r->b->fn;
    if (!nv_need(r, M_TEMP_GPU))
        return;
    if (f->GetTemperatureV && !r->g->temp_plain) {
        nvmlTemperature_v1_t t = {.version = nvmlTemperature_v1, .sensorType = NVML_TEMPERATURE_GPU};
        nvmlReturn_t rc = f->GetTemperatureV(r->g->dev, &t);
        if (rc == NVML_SUCCESS) {
            nv_set(r, M_TEMP_GPU, t.temperature);
            return;
        }
        if (!nv_refused(rc) || !f->GetTemperature) {
            nv_check1(r, NV_GetTemperatureV, rc, M_TEMP_GPU);
            return;
        }
        if (rc != NVML_ERROR_NOT_SUPPORTED)
            nv_count_error(r->b, NV_GetTemperatureV, rc);
        r->g->temp_plain = 1; /* the deprecated call still answers on every driver */
    }
    unsigned v = 0;
    if (f->GetTemperature &&
        nv_check1(r, NV_GetTemperature, f->GetTemperature(r->g->dev, NVML_TEMPERATURE_GPU, &v), M_TEMP_GPU))
        nv_set(r, M_TEMP_GPU, v);
}

static void read_utilization(nv_rd *r)
{
    const nvml_fns *f = &r->b->fn;
    static const metric_id ids[] = {M_UTIL_GPU, M_UTIL_MEMORY};
    nvmlUtilization_t u;
    if (f->GetUtilizationRates && (nv_need(r, M_UTIL_GPU) || nv_need(r, M_UTIL_MEMORY)) &&
        nv_check(r, NV_GetUtilizationRates, f->GetUtilizationRates(r->g->dev, &u), ids, 2)) {
        nv_set(r, M_UTIL_GPU, u.gpu);
        nv_set(r, M_UTIL_MEMORY, u.memory);
    }
    read_engine(r, NV_GetEncoderUtilization, f->GetEncoderUtilization, M_UTIL_ENCODER);
    read_engine(r, NV_GetDecoderUtilization, f->GetDecoderUtilization, M_UTIL_DECODER);
    read_engine(r, NV_GetJpgUtilization, f->GetJpgUtilization, M_UTIL_JPEG);
    read_engine(r, NV_GetOfaUtilization, f->GetOfaUtilization, M_UTIL_OFA);
}

static void read_power_and_state(nv_rd *r)
{
    const nvml_fns *f = &r->b->fn;
    nv_read_u32(r, NV_GetPowerUsage, f->GetPowerUsage, M_POWER_DRAW, 0.001);
    nv_read_u32(r, NV_GetPowerLimit, f->GetPowerLimit, M_POWER_LIMIT, 0.001);
    nv_read_u32(r, NV_GetEnforcedPowerLimit, f->GetEnforcedPowerLimit, M_POWER_ENFORCED_LIMIT, 0.001);
    nv_read_u32(r, NV_GetFanSpeed, f->GetFanSpeed, M_FAN_SPEED, 1);
    static const metric_id mig[] = {M_MIG_MODE, M_MIG_MODE_PEND};
    unsigned cur = 0, pending = 0;
    if (f->GetMigMode && (nv_need(r, M_MIG_MODE) || nv_need(r, M_MIG_MODE_PEND)) &&
        nv_check(r, NV_GetMigMode, f->GetMigMode(r->g->dev, &cur, &pending), mig, 2)) {
        nv_set(r, M_MIG_MODE, cur != 0);
        nv_set(r, M_MIG_MODE_PEND, pending != 0);
        r->g->mig_known = 1; /* nvml_mig.c asks for MIG devices only in MIG mode */
        r->g->mig_on = cur != 0;
    }
    nvmlBAR1Memory_t bar1;
    if (f->GetBAR1MemoryInfo && nv_need(r, M_BAR1_USED) &&
        nv_check1(r, NV_GetBAR1MemoryInfo, f->GetBAR1MemoryInfo(r->g->dev, &bar1), M_BAR1_USED))
        nv_set(r, M_BAR1_USED, bar1.bar1Used / 1048576.0);
}

static void read_pstate(nv_rd *r)
{
    const nvml_fns *f = &r->b->fn;
    nvmlPstates_t ps = NVML_PSTATE_UNKNOWN;
    if (f->GetPerformanceState && nv_need(r, M_PSTATE) &&
        nv_check1(r, NV_GetPerformanceState, f->GetPerformanceState(r->g->dev, &ps), M_PSTATE) && ps <= 15)
        nv_set(r, M_PSTATE, ps);
}

static void read_clocks(nv_rd *r)
{
    static const struct {
        nvmlClockType_t t;
        metric_id id;
    } ck[] = {{NVML_CLOCK_GRAPHICS, M_CLOCK_GR},
              {NVML_CLOCK_SM, M_CLOCK_SM},
              {NVML_CLOCK_MEM, M_CLOCK_MEM},
              {NVML_CLOCK_VIDEO, M_CLOCK_VIDEO}};
    const nvml_fns *f = &r->b->fn;
    for (size_t i = 0; i < sizeof ck / sizeof ck[0] && f->GetClockInfo; i++) {
        unsigned v = 0;
        if (nv_need(r, ck[i].id) && nv_check1(r, NV_GetClockInfo, f->GetClockInfo(r->g->dev, ck[i].t, &v), ck[i].id))
            nv_set(r, ck[i].id, v);
    }
    unsigned long long mask = 0;
    if (f->GetCurrentClocksEventReasons && nv_need(r, M_CER_ACTIVE) &&
        nv_check1(r, NV_GetCurrentClocksEventReasons, f->GetCurrentClocksEventReasons(r->g->dev, &mask), M_CER_ACTIVE))
        nv_set(r, M_CER_ACTIVE, (double)mask);
}

static void read_pcie(nv_rd *r)
{
    const nvml_fns *f = &r->b->fn;
    static const metric_id gen[] = {M_PCIE_GEN_CUR, M_PCIE_GEN_GPUCUR}; /* one reading, two nvidia-smi names */
    unsigned g = 0;
    if (f->GetCurrPcieLinkGeneration && (nv_need(r, gen[0]) || nv_need(r, gen[1])) &&
        nv_check(r, NV_GetCurrPcieLinkGeneration, f->GetCurrPcieLinkGeneration(r->g->dev, &g), gen, 2)) {
        nv_set(r, M_PCIE_GEN_CUR, g);
        nv_set(r, M_PCIE_GEN_GPUCUR, g);
    }
    nv_read_u32(r, NV_GetCurrPcieLinkWidth, f->GetCurrPcieLinkWidth, M_PCIE_WIDTH_CUR, 1);
    static const struct {
        nvmlPcieUtilCounter_t c;
        metric_id id;
    } tp[] = {{NVML_PCIE_UTIL_RX_BYTES, M_PCIE_RX}, {NVML_PCIE_UTIL_TX_BYTES, M_PCIE_TX}};
    for (size_t i = 0; i < 2 && f->GetPcieThroughput; i++) {
        unsigned v = 0; /* KB/s over a 20 ms window */
        if (nv_need(r, tp[i].id) &&
            nv_check1(r, NV_GetPcieThroughput, f->GetPcieThroughput(r->g->dev, tp[i].c, &v), tp[i].id))
            nv_set(r, tp[i].id, v);
    }
}

/* The effective want: the caller's dynamic metrics, plus the bitmask a wanted MF_BIT metric derives from. */
static void effective_want(const backend *b, const metric_set *want, metric_set *out)
{
    for (size_t i = 0; i < sizeof out->w / sizeof out->w[0]; i++)
        out->w[i] = want->w[i] & b->dynamic.w[i];
    for (int i = 0; i < b->n_bit_ids; i++)
        if (mset_has(want, b->bit_ids[i]))
            mset_add(out, catalog_get(b->bit_ids[i])->parent);
}

gpu_status nv_read_sample(backend *b, int gpu, const metric_set *want, gpu_sample *out)
{
    nv_gpu *g = &b->gpus[gpu];
    memset(&out->present, 0, sizeof out->present);
    gpu_status st = nv_probe(b, g);
    if (st != GPU_OK)
        return st;
    nv_rd r = {.b = b, .g = g, .out = out};
    effective_want(b, want, &r.want);
    /* the field values first, in one call: a metric they give is not asked again below */
    nv_read_fields(&r);
    read_pstate(&r);
    nv_slow_take(&r);
    read_power_and_state(&r);
    read_temperature(&r);
    read_utilization(&r);
    nv_read_memory(&r);
    read_protected_memory(&r);
    read_clocks(&r);
    nv_gpm_read(&r); /* before the PCIe getters: its PCIe rates stand for them */
    read_pcie(&r);
    nv_nvlink_read(&r);
    nv_compat_read(&r);
    nv_events_read(&r);
    nv_slow_keep(&r);
    if (g->lost) {
        memset(&out->present, 0, sizeof out->present);
        return GPU_LOST;
    }
    return GPU_OK;
}
