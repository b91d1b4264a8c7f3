/* api_pcie_ecc.c - PCIe link and throughput, ECC mode and counters, row remapping, retired
 * pages, MIG mode (the MIG devices: api_mig.c). */
#include "nvml_exports.h"

GS_METRIC_GETTER(nvmlDeviceGetCurrPcieLinkGeneration, M_PCIE_GEN_CUR, 1)
GS_METRIC_GETTER(nvmlDeviceGetCurrPcieLinkWidth, M_PCIE_WIDTH_CUR, 1)
GS_METRIC_GETTER(nvmlDeviceGetMaxPcieLinkGeneration, M_PCIE_GEN_MAX, 1)
GS_METRIC_GETTER(nvmlDeviceGetMaxPcieLinkWidth, M_PCIE_WIDTH_MAX, 1)
GS_METRIC_GETTER(nvmlDeviceGetPcieReplayCounter, M_PCIE_REPLAY, 1)

nvmlReturn_t nvmlDeviceGetPcieThroughput(nvmlDevice_t device, nvmlPcieUtilCounter_t counter, unsigned int *value)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter_dev(&c, __func__, device);
    if (rc != NVML_SUCCESS)
        return gs_leave(rc);
    if (counter == NVML_PCIE_UTIL_TX_BYTES)
        rc = gs_metric_u(&c, M_PCIE_TX, 1, value);
    else if (counter == NVML_PCIE_UTIL_RX_BYTES)
        rc = gs_metric_u(&c, M_PCIE_RX, 1, value);
    else
        rc = NVML_ERROR_INVALID_ARGUMENT;
    return gs_leave(rc);
}

/* MB/s per lane by generation x width. */
nvmlReturn_t nvmlDeviceGetPcieSpeed(nvmlDevice_t device, unsigned int *speed)
{
    static const unsigned per_lane[] = {0, 250, 500, 985, 1969, 3938, 7563};
    gs_call c;
    unsigned gen = 0, width = 0;
    nvmlReturn_t rc = gs_enter_dev(&c, __func__, device);
    if (rc == NVML_SUCCESS && !speed)
        rc = NVML_ERROR_INVALID_ARGUMENT;
    if (rc == NVML_SUCCESS)
        rc = gs_metric_u(&c, M_PCIE_GEN_CUR, 1, &gen);
    if (rc == NVML_SUCCESS)
        rc = gs_metric_u(&c, M_PCIE_WIDTH_CUR, 1, &width);
    if (rc == NVML_SUCCESS)
        *speed = per_lane[gen < 7 ? gen : 6] * width;
    return gs_leave(rc);
}

nvmlReturn_t nvmlDeviceGetEccMode(nvmlDevice_t device, nvmlEnableState_t *current, nvmlEnableState_t *pending)
{
    gs_call c;
    unsigned v = 0;
    nvmlReturn_t rc = gs_enter_dev(&c, __func__, device);
    if (rc == NVML_SUCCESS && (!current || !pending))
        rc = NVML_ERROR_INVALID_ARGUMENT;
    unsigned p = 0;
    if (rc == NVML_SUCCESS)
        rc = gs_metric_u(&c, M_ECC_MODE, 1, &v);
    if (rc == NVML_SUCCESS)
        rc = gs_metric_u(&c, M_ECC_MODE_PEND, 1, &p);
    if (rc == NVML_SUCCESS) {
        *current = v ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
        *pending = p ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
    }
    return gs_leave(rc);
}

nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t device, nvmlMemoryErrorType_t type, nvmlEccCounterType_t counter,
                                         unsigned long long *count)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter_dev(&c, __func__, device);
    if (rc != NVML_SUCCESS)
        return gs_leave(rc);
    if ((unsigned)type > 1 || (unsigned)counter > 1)
        return gs_leave(NVML_ERROR_INVALID_ARGUMENT);
    static const metric_id m[2][2] = {{M_ECC_SBE_VOL, M_ECC_SBE_AGG}, {M_ECC_DBE_VOL, M_ECC_DBE_AGG}};
    return gs_leave(gs_metric_ull(&c, m[type][counter], 1, count));
}

nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t device, unsigned int *corr, unsigned int *unc,
                                       unsigned int *pending, unsigned int *failure)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter_dev(&c, __func__, device);
    if (rc == NVML_SUCCESS && (!corr || !unc || !pending || !failure))
        rc = NVML_ERROR_INVALID_ARGUMENT;
    if (rc == NVML_SUCCESS)
        rc = gs_metric_u(&c, M_REMAP_COR, 1, corr);
    if (rc == NVML_SUCCESS)
        rc = gs_metric_u(&c, M_REMAP_UNC, 1, unc);
    if (rc == NVML_SUCCESS)
        rc = gs_metric_u(&c, M_REMAP_PENDING, 1, pending);
    if (rc == NVML_SUCCESS)
        rc = gs_metric_u(&c, M_REMAP_FAILURE, 1, failure);
    return gs_leave(rc);
}

/* Pages retired for cause 0 (multiple single-bit errors) or 1 (a double-bit error): the count from
 * the retired_pages metrics (NOT_SUPPORTED where the board remaps rows instead); a count of 0 or a
 * short buffer gets INSUFFICIENT_SIZE with the count, a buffer synthetic page addresses. */
nvmlReturn_t nvmlDeviceGetRetiredPages(nvmlDevice_t device, unsigned int cause, unsigned int *count,
                                       unsigned long long *addresses)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter_dev(&c, __func__, device);
    if (rc == NVML_SUCCESS && (!count || cause > 1))
        rc = NVML_ERROR_INVALID_ARGUMENT;
    unsigned n = 0;
    if (rc == NVML_SUCCESS)
        rc = gs_metric_u(&c, cause ? M_RETIRED_DBE : M_RETIRED_SBE, 1, &n);
    if (rc != NVML_SUCCESS)
        return gs_leave(rc);
    if (!addresses || *count < n) {
        *count = n;
        return gs_leave(n ? NVML_ERROR_INSUFFICIENT_SIZE : NVML_SUCCESS);
    }
    for (unsigned i = 0; i < n; i++)
        addresses[i] = 0x100000ull * (unsigned long long)(c.gpu + 1) + 0x40ull * i + cause;
    *count = n;
    return gs_leave(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetRetiredPagesPendingStatus(nvmlDevice_t device, nvmlEnableState_t *pending)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter_dev(&c, __func__, device);
    unsigned v = 0;
    if (rc == NVML_SUCCESS && !pending)
        rc = NVML_ERROR_INVALID_ARGUMENT;
    if (rc == NVML_SUCCESS && (rc = gs_metric_u(&c, M_RETIRED_PENDING, 1, &v)) == NVML_SUCCESS)
        *pending = v ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
    return gs_leave(rc);
}

nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device, unsigned int *current, unsigned int *pending)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter_dev(&c, __func__, device);
    if (rc == NVML_SUCCESS && (!current || !pending))
        rc = NVML_ERROR_INVALID_ARGUMENT;
    if (rc == NVML_SUCCESS)
        rc = gs_metric_u(&c, M_MIG_MODE, 1, current);
    if (rc == NVML_SUCCESS)
        rc = gs_metric_u(&c, M_MIG_MODE_PEND, 1, pending);
    return gs_leave(rc);
}
