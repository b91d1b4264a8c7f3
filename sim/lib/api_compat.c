/* api_compat.c - the getters behind nvidia-smi's other --query-gpu fields: applications clocks,
 * accounting, encoder statistics, GSP/C2C/addressing/power management modes, InfoROM versions,
 * PCI class codes, the T.Limit margin, per-location ECC counters and the row remapper histogram.
 * Each reads the scenario's value of its catalog metric, so `metrics:` and `unsupported:` in a
 * scenario apply to them as to every other metric. */
#include "nvml_exports.h"
#include <stdio.h>
#include <string.h>

/* Applications clocks exist for graphics (and SM, the same clock) and memory. */
static nvmlReturn_t app_clock(const char *fn, nvmlDevice_t device, nvmlClockType_t type, unsigned int *mhz,
                              metric_id gr, metric_id mem)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter_dev(&c, fn, device);
    if (rc != NVML_SUCCESS)
        return gs_leave(rc);
    if (!mhz || (unsigned)type > NVML_CLOCK_VIDEO)
        return gs_leave(NVML_ERROR_INVALID_ARGUMENT);
    if (type == NVML_CLOCK_VIDEO)
        return gs_leave(NVML_ERROR_NOT_SUPPORTED);
    return gs_leave(gs_metric_u(&c, type == NVML_CLOCK_MEM ? mem : gr, 1, mhz));
}

nvmlReturn_t nvmlDeviceGetApplicationsClock(nvmlDevice_t device, nvmlClockType_t type, unsigned int *mhz)
{
    return app_clock(__func__, device, type, mhz, M_CLOCK_APP_GR, M_CLOCK_APP_MEM);
}

nvmlReturn_t nvmlDeviceGetDefaultApplicationsClock(nvmlDevice_t device, nvmlClockType_t type, unsigned int *mhz)
{
    return app_clock(__func__, device, type, mhz, M_CLOCK_DEF_APP_GR, M_CLOCK_DEF_APP_MEM);
}

static nvmlReturn_t state_getter(const char *fn, nvmlDevice_t device, metric_id m, nvmlEnableState_t *out)
{
    gs_call c;
    unsigned v = 0;
    nvmlReturn_t rc = gs_enter_dev(&c, fn, device);
    if (rc == NVML_SUCCESS && !out)
        rc = NVML_ERROR_INVALID_ARGUMENT;
    if (rc == NVML_SUCCESS)
        rc = gs_metric_u(&c, m, 1, &v);
    if (rc == NVML_SUCCESS)
        *out = v ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
    return gs_leave(rc);
}

nvmlReturn_t nvmlDeviceGetAccountingMode(nvmlDevice_t device, nvmlEnableState_t *mode)
{
    return state_getter(__func__, device, M_ACCOUNTING_MODE, mode);
}

nvmlReturn_t nvmlDeviceGetPowerManagementMode(nvmlDevice_t device, nvmlEnableState_t *mode)
{
    return state_getter(__func__, device, M_POWER_MANAGEMENT, mode);
}

GS_METRIC_GETTER(nvmlDeviceGetAccountingBufferSize, M_ACCOUNTING_BUFFER, 1)
GS_METRIC_GETTER(nvmlDeviceGetGpuMaxPcieLinkGeneration, M_PCIE_GEN_GPUMAX, 1)

nvmlReturn_t nvmlDeviceGetEncoderStats(nvmlDevice_t device, unsigned int *sessionCount, unsigned int *averageFps,
                                       unsigned int *averageLatency)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter_dev(&c, __func__, device);
    if (rc == NVML_SUCCESS)
        rc = gs_metric_u(&c, M_ENC_SESSIONS, 1, sessionCount);
    if (rc == NVML_SUCCESS)
        rc = gs_metric_u(&c, M_ENC_FPS, 1, averageFps);
    if (rc == NVML_SUCCESS)
        rc = gs_metric_u(&c, M_ENC_LATENCY, 1, averageLatency);
    return gs_leave(rc);
}

nvmlReturn_t nvmlDeviceGetFBCStats(nvmlDevice_t device, nvmlFBCStats_t *stats)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter_dev(&c, __func__, device);
    if (rc == NVML_SUCCESS && !stats)
        rc = NVML_ERROR_INVALID_ARGUMENT;
    if (rc == NVML_SUCCESS)
        rc = gs_metric_u(&c, M_FBC_SESSIONS, 1, &stats->sessionsCount);
    if (rc == NVML_SUCCESS)
        rc = gs_metric_u(&c, M_FBC_FPS, 1, &stats->averageFPS);
    if (rc == NVML_SUCCESS)
        rc = gs_metric_u(&c, M_FBC_LATENCY, 1, &stats->averageLatency);
    return gs_leave(rc);
}

nvmlReturn_t nvmlDeviceGetGspFirmwareMode(nvmlDevice_t device, unsigned int *isEnabled, unsigned int *defaultMode)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter_dev(&c, __func__, device);
    if (rc == NVML_SUCCESS)
        rc = gs_metric_u(&c, M_GSP_MODE_CUR, 1, isEnabled);
    if (rc == NVML_SUCCESS)
        rc = gs_metric_u(&c, M_GSP_MODE_DEFAULT, 1, defaultMode);
    return gs_leave(rc);
}

nvmlReturn_t nvmlDeviceGetC2cModeInfoV(nvmlDevice_t device, nvmlC2cModeInfo_v1_t *info)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter_dev(&c, __func__, device);
    if (rc == NVML_SUCCESS && !info)
        rc = NVML_ERROR_INVALID_ARGUMENT;
    if (rc == NVML_SUCCESS)
        rc = gs_metric_u(&c, M_C2C_MODE, 1, &info->isC2cEnabled);
    return gs_leave(rc);
}

/* Versioned structs: a version other than the one gpusim knows is refused, as NVML does. */
nvmlReturn_t nvmlDeviceGetAddressingMode(nvmlDevice_t device, nvmlDeviceAddressingMode_t *mode)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter_dev(&c, __func__, device);
    if (rc == NVML_SUCCESS && !mode)
        rc = NVML_ERROR_INVALID_ARGUMENT;
    if (rc == NVML_SUCCESS && mode->version != nvmlDeviceAddressingMode_v1)
        rc = NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    if (rc == NVML_SUCCESS)
        rc = gs_metric_u(&c, M_ADDRESSING_MODE, 1, &mode->value);
    return gs_leave(rc);
}

nvmlReturn_t nvmlDeviceGetMarginTemperature(nvmlDevice_t device, nvmlMarginTemperature_t *margin)
{
    gs_call c;
    double v = 0;
    nvmlReturn_t rc = gs_enter_dev(&c, __func__, device);
    if (rc == NVML_SUCCESS && !margin)
        rc = NVML_ERROR_INVALID_ARGUMENT;
    if (rc == NVML_SUCCESS && margin->version != nvmlMarginTemperature_v1)
        rc = NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    if (rc == NVML_SUCCESS)
        rc = gs_metric(&c, M_TEMP_TLIMIT, &v);
    if (rc == NVML_SUCCESS)
        margin->marginTemperature = (int)v;
    return gs_leave(rc);
}

nvmlReturn_t nvmlDeviceGetPciInfoExt(nvmlDevice_t device, nvmlPciInfoExt_t *pci)
{
    gs_call c;
    char cls[16];
    nvmlReturn_t rc = gs_enter_dev(&c, __func__, device);
    if (rc == NVML_SUCCESS && !pci)
        rc = NVML_ERROR_INVALID_ARGUMENT;
    if (rc == NVML_SUCCESS && pci->version != nvmlPciInfoExt_v1)
        rc = NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    if (rc != NVML_SUCCESS)
        return gs_leave(rc);
    nvmlPciInfo_t p;
    gs_gpu_pci(c.gpu, &p, 1);
    pci->domain = p.domain;
    pci->bus = p.bus;
    pci->device = p.device;
    pci->pciDeviceId = p.pciDeviceId;
    pci->pciSubSystemId = p.pciSubSystemId;
    memcpy(pci->busId, p.busId, sizeof pci->busId);
    pci->baseClass = pci->subClass = 0;
    if (sim_string(gs.sc, c.gpu, M_PCI_BASE_CLASS, cls, sizeof cls) == 0)
        sscanf(cls, "%x", &pci->baseClass);
    if (sim_string(gs.sc, c.gpu, M_PCI_SUB_CLASS, cls, sizeof cls) == 0)
        sscanf(cls, "%x", &pci->subClass);
    return gs_leave(NVML_SUCCESS);
}

static nvmlReturn_t inforom_string(const char *fn, nvmlDevice_t device, metric_id m, char *buf, unsigned int len)
{
    gs_call c;
    char s[64];
    nvmlReturn_t rc = gs_enter_dev(&c, fn, device);
    if (rc != NVML_SUCCESS)
        return gs_leave(rc);
    if (!buf)
        return gs_leave(NVML_ERROR_INVALID_ARGUMENT);
    if (sim_string(gs.sc, c.gpu, m, s, sizeof s) != 0)
        return gs_leave(NVML_ERROR_NOT_SUPPORTED);
    return gs_leave(gs_copy_string(s, buf, len));
}

nvmlReturn_t nvmlDeviceGetInforomImageVersion(nvmlDevice_t device, char *version, unsigned int length)
{
    return inforom_string(__func__, device, M_INFOROM_IMG, version, length);
}

nvmlReturn_t nvmlDeviceGetInforomVersion(nvmlDevice_t device, nvmlInforomObject_t object, char *version,
                                         unsigned int length)
{
    static const metric_id objs[] = {M_INFOROM_OEM, M_INFOROM_ECC, M_INFOROM_PWR};
    if ((unsigned)object >= sizeof objs / sizeof objs[0]) {
        gs_call c;
        nvmlReturn_t rc = gs_enter_dev(&c, __func__, device);
        return gs_leave(rc == NVML_SUCCESS ? NVML_ERROR_INVALID_ARGUMENT : rc);
    }
    return inforom_string(__func__, device, objs[object], version, length);
}

/* nvmlMemoryLocation_t -> the catalog's location index (the first one: device_memory for DRAM), -1
 * when none. */
static int ecc_location(nvmlMemoryLocation_t loc)
{
    for (int i = 0; i < ECC_NLOC; i++)
        if (ecc_loc_nvml(i) == loc)
            return i;
    return -1;
}

nvmlReturn_t nvmlDeviceGetMemoryErrorCounter(nvmlDevice_t device, nvmlMemoryErrorType_t type,
                                             nvmlEccCounterType_t counter, nvmlMemoryLocation_t location,
                                             unsigned long long *count)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter_dev(&c, __func__, device);
    if (rc != NVML_SUCCESS)
        return gs_leave(rc);
    if (!count || (unsigned)type > 1 || (unsigned)counter > 1 || location > 7)
        return gs_leave(NVML_ERROR_INVALID_ARGUMENT);
    int loc = ecc_location(location);
    if (loc < 0)
        return gs_leave(NVML_ERROR_NOT_SUPPORTED);
    return gs_leave(gs_metric_ull(&c, (metric_id)ecc_loc_id((int)type, (int)counter, loc), 1, count));
}

nvmlReturn_t nvmlDeviceGetRowRemapperHistogram(nvmlDevice_t device, nvmlRowRemapperHistogramValues_t *values)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter_dev(&c, __func__, device);
    if (rc == NVML_SUCCESS && !values)
        rc = NVML_ERROR_INVALID_ARGUMENT;
    if (rc == NVML_SUCCESS)
        rc = gs_metric_u(&c, M_REMAP_HIST_MAX, 1, &values->max);
    if (rc == NVML_SUCCESS)
        rc = gs_metric_u(&c, M_REMAP_HIST_HIGH, 1, &values->high);
    if (rc == NVML_SUCCESS)
        rc = gs_metric_u(&c, M_REMAP_HIST_PARTIAL, 1, &values->partial);
    if (rc == NVML_SUCCESS)
        rc = gs_metric_u(&c, M_REMAP_HIST_LOW, 1, &values->low);
    if (rc == NVML_SUCCESS)
        rc = gs_metric_u(&c, M_REMAP_HIST_NONE, 1, &values->none);
    return gs_leave(rc);
}
