/* api_gpm.c - GPM profiling metrics (Hopper presets): samples record (gpu, time); a metrics
 * request reports each metric's scenario value at the second sample's time. */
#include "nvml_exports.h"
#include <stdlib.h>

#ifndef GPUSIM_MINIMAL

#define SAMPLE_MAGIC 0x67706d73u /* "gpms" */
#define GPM_METRIC_LIMIT 333     /* NVML_GPM_METRIC_MAX of the newest headers */

struct nvmlGpmSample_st {
    unsigned magic;
    unsigned generation;
    int gpu; /* -1 until SampleGet */
    double t;
};

static int sample_ok(const struct nvmlGpmSample_st *s)
{
    return s && s->magic == SAMPLE_MAGIC;
}

static int gpm_supported(int gpu)
{
    return !sim_unsupported(gs.sc, gpu, M_GPM_SM_ACTIVE);
}

nvmlReturn_t nvmlGpmQueryDeviceSupport(nvmlDevice_t device, nvmlGpmSupport_t *support)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter_dev(&c, __func__, device);
    if (rc == NVML_SUCCESS && !support)
        rc = NVML_ERROR_INVALID_ARGUMENT;
    if (rc == NVML_SUCCESS && support->version != NVML_GPM_SUPPORT_VERSION)
        rc = NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    if (rc == NVML_SUCCESS)
        support->isSupportedDevice = (unsigned)gpm_supported(c.gpu);
    return gs_leave(rc);
}

nvmlReturn_t nvmlGpmSampleAlloc(nvmlGpmSample_t *sample)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter(&c, __func__);
    if (rc == NVML_SUCCESS && !sample)
        rc = NVML_ERROR_INVALID_ARGUMENT;
    if (rc != NVML_SUCCESS)
        return gs_leave(rc);
    struct nvmlGpmSample_st *s = calloc(1, sizeof *s);
    if (!s)
        return gs_leave(NVML_ERROR_MEMORY);
    *s = (struct nvmlGpmSample_st){.magic = SAMPLE_MAGIC, .generation = gs.generation, .gpu = -1};
    *sample = s;
    return gs_leave(NVML_SUCCESS);
}

nvmlReturn_t nvmlGpmSampleFree(nvmlGpmSample_t sample)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter(&c, __func__);
    if (rc == NVML_SUCCESS && !sample_ok(sample))
        rc = NVML_ERROR_INVALID_ARGUMENT;
    if (rc == NVML_SUCCESS) {
        sample->magic = 0;
        free(sample);
    }
    return gs_leave(rc);
}

nvmlReturn_t nvmlGpmSampleGet(nvmlDevice_t device, nvmlGpmSample_t sample)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter_dev(&c, __func__, device);
    if (rc == NVML_SUCCESS && !sample_ok(sample))
        rc = NVML_ERROR_INVALID_ARGUMENT;
    if (rc == NVML_SUCCESS && !gpm_supported(c.gpu))
        rc = NVML_ERROR_NOT_SUPPORTED;
    if (rc == NVML_SUCCESS) {
        sample->gpu = c.gpu;
        sample->t = c.t;
        sample->generation = gs.generation;
    }
    return gs_leave(rc);
}

typedef struct {
    unsigned id;
    metric_id m;
    char *shortName, *longName, *unit;
} gpm_def;

static char s_gr[] = "gr_active", l_gr[] = "Graphics engine activity", s_sm[] = "sm_active", l_sm[] = "SM activity",
            s_occ[] = "sm_occupancy", l_occ[] = "SM occupancy", s_ten[] = "tensor_active",
            l_ten[] = "Any tensor pipe activity", s_dram[] = "dram_active", l_dram[] = "DRAM bandwidth utilization",
            s_ptx[] = "pcie_tx", l_ptx[] = "PCIe transmit bandwidth", s_prx[] = "pcie_rx",
            l_prx[] = "PCIe receive bandwidth", s_nrx[] = "nvlink_rx", l_nrx[] = "NVLink receive bandwidth, all links",
            s_ntx[] = "nvlink_tx", l_ntx[] = "NVLink transmit bandwidth, all links", u_pct[] = "%", u_bw[] = "MiB/s";

static const gpm_def gpm_defs[] = {
    {NVML_GPM_METRIC_GRAPHICS_UTIL, M_GPM_GR_ACTIVE, s_gr, l_gr, u_pct},
    {NVML_GPM_METRIC_SM_UTIL, M_GPM_SM_ACTIVE, s_sm, l_sm, u_pct},
    {NVML_GPM_METRIC_SM_OCCUPANCY, M_GPM_SM_OCCUPANCY, s_occ, l_occ, u_pct},
    {NVML_GPM_METRIC_ANY_TENSOR_UTIL, M_GPM_TENSOR_ACTIVE, s_ten, l_ten, u_pct},
    {NVML_GPM_METRIC_DRAM_BW_UTIL, M_GPM_DRAM_ACTIVE, s_dram, l_dram, u_pct},
    {NVML_GPM_METRIC_PCIE_TX_PER_SEC, M_GPM_PCIE_TX, s_ptx, l_ptx, u_bw},
    {NVML_GPM_METRIC_PCIE_RX_PER_SEC, M_GPM_PCIE_RX, s_prx, l_prx, u_bw},
    {NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC, M_GPM_NVLINK_RX, s_nrx, l_nrx, u_bw},
    {NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC, M_GPM_NVLINK_TX, s_ntx, l_ntx, u_bw},
};

static void one_metric(const gs_call *c, nvmlGpmMetric_t *m)
{
    m->nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
    m->value = 0;
    m->metricInfo.shortName = m->metricInfo.longName = m->metricInfo.unit = NULL;
    for (size_t i = 0; i < sizeof gpm_defs / sizeof gpm_defs[0]; i++) {
        if (gpm_defs[i].id != m->metricId)
            continue;
        m->metricInfo.shortName = gpm_defs[i].shortName;
        m->metricInfo.longName = gpm_defs[i].longName;
        m->metricInfo.unit = gpm_defs[i].unit;
        m->nvmlReturn = gs_metric(c, gpm_defs[i].m, &m->value);
        return;
    }
}

/* Only metrics[0..numMetrics-1] are read or written: callers' arrays differ in size. */
nvmlReturn_t nvmlGpmMetricsGet(nvmlGpmMetricsGet_t *mg)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter(&c, __func__);
    if (rc == NVML_SUCCESS && !mg)
        rc = NVML_ERROR_INVALID_ARGUMENT;
    if (rc == NVML_SUCCESS && mg->version != NVML_GPM_METRICS_GET_VERSION)
        rc = NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    if (rc != NVML_SUCCESS)
        return gs_leave(rc);
    const struct nvmlGpmSample_st *s1 = mg->sample1, *s2 = mg->sample2;
    if (!sample_ok(s1) || !sample_ok(s2) || s1->gpu < 0 || s1->gpu != s2->gpu || s2->t < s1->t ||
        s1->generation != gs.generation || s2->generation != gs.generation || mg->numMetrics > GPM_METRIC_LIMIT)
        return gs_leave(NVML_ERROR_INVALID_ARGUMENT);
    if (sim_lost(gs.sc, s2->gpu, c.t))
        return gs_leave(NVML_ERROR_GPU_IS_LOST);
    gs_call at = {.gpu = s2->gpu, .t = s2->t};
    for (unsigned i = 0; i < mg->numMetrics; i++)
        one_metric(&at, &mg->metrics[i]);
    return gs_leave(NVML_SUCCESS);
}

#endif
