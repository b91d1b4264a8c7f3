/* api_memory_util.c - memory (v1, v2, BAR1, protected) and utilization (GPU/memory, encoder, decoder,
 * JPEG, OFA). */
#include "nvml_exports.h"

#define MIB 1048576.0
#define SAMPLING_PERIOD_US 167000u /* what recent drivers report for enc/dec sampling */

/* Total, reserved, used, free in bytes. */
static nvmlReturn_t memory_bytes(const gs_call *c, unsigned long long *total, unsigned long long *reserved,
                                 unsigned long long *used, unsigned long long *freeb)
{
    nvmlReturn_t rc = gs_metric_ull(c, M_MEM_TOTAL, MIB, total);
    if (rc == NVML_SUCCESS)
        rc = gs_metric_ull(c, M_MEM_RESERVED, MIB, reserved);
    if (rc == NVML_SUCCESS)
        rc = gs_metric_ull(c, M_MEM_USED, MIB, used);
    if (rc == NVML_SUCCESS)
        rc = gs_metric_ull(c, M_MEM_FREE, MIB, freeb);
    return rc;
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory)
{
    if (gs_is_mig_handle(device)) /* a MIG device: its share, nothing reserved */
        return memory ? gs_mig_memory(device, &memory->total, &memory->used, &memory->free)
                      : NVML_ERROR_INVALID_ARGUMENT;
    gs_call c;
    unsigned long long total, reserved, used, freeb;
    nvmlReturn_t rc = gs_enter_dev(&c, __func__, device);
    if (rc == NVML_SUCCESS && !memory)
        rc = NVML_ERROR_INVALID_ARGUMENT;
    if (rc == NVML_SUCCESS)
        rc = memory_bytes(&c, &total, &reserved, &used, &freeb);
    if (rc == NVML_SUCCESS) {
        /* v1 counts the reserved memory as used. */
        memory->total = total;
        memory->used = used + reserved;
        memory->free = freeb;
    }
    return gs_leave(rc);
}

nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t *memory)
{
    if (gs_is_mig_handle(device)) {
        if (!memory)
            return NVML_ERROR_INVALID_ARGUMENT;
        if (memory->version != nvmlMemory_v2 && memory->version != 2)
            return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
        memory->reserved = 0;
        return gs_mig_memory(device, &memory->total, &memory->used, &memory->free);
    }
    gs_call c;
    unsigned long long total, reserved, used, freeb;
    nvmlReturn_t rc = gs_enter_dev(&c, __func__, device);
    if (rc == NVML_SUCCESS && !memory)
        rc = NVML_ERROR_INVALID_ARGUMENT;
    /* nvmlMemory_v2 (0x02000028); nvtop passes a bare 2. */
    if (rc == NVML_SUCCESS && memory->version != nvmlMemory_v2 && memory->version != 2)
        rc = NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    if (rc == NVML_SUCCESS)
        rc = memory_bytes(&c, &total, &reserved, &used, &freeb);
    if (rc == NVML_SUCCESS) {
        memory->total = total;
        memory->reserved = reserved;
        memory->used = used;
        memory->free = freeb;
    }
    return gs_leave(rc);
}

nvmlReturn_t nvmlDeviceGetBAR1MemoryInfo(nvmlDevice_t device, nvmlBAR1Memory_t *bar1)
{
    gs_call c;
    unsigned long long total, used;
    nvmlReturn_t rc = gs_enter_dev(&c, __func__, device);
    if (rc == NVML_SUCCESS && !bar1)
        rc = NVML_ERROR_INVALID_ARGUMENT;
    if (rc == NVML_SUCCESS)
        rc = gs_metric_ull(&c, M_BAR1_TOTAL, MIB, &total);
    if (rc == NVML_SUCCESS)
        rc = gs_metric_ull(&c, M_BAR1_USED, MIB, &used);
    if (rc == NVML_SUCCESS) {
        bar1->bar1Total = total;
        bar1->bar1Used = used;
        bar1->bar1Free = total > used ? total - used : 0;
    }
    return gs_leave(rc);
}

#ifndef GPUSIM_MINIMAL
/* Confidential-computing protected memory: total = used, nothing free (0 unless the scenario
 * gives protected_memory.*), as on a GPU with CC mode off. */
nvmlReturn_t nvmlDeviceGetConfComputeProtectedMemoryUsage(nvmlDevice_t device, nvmlMemory_t *memory)
{
    gs_call c;
    unsigned long long used, total, free;
    nvmlReturn_t rc = gs_enter_dev(&c, __func__, device);
    if (rc == NVML_SUCCESS && !memory)
        rc = NVML_ERROR_INVALID_ARGUMENT;
    if (rc == NVML_SUCCESS)
        rc = gs_metric_ull(&c, M_PROTECTED_MEM_USED, MIB, &used);
    if (rc == NVML_SUCCESS)
        rc = gs_metric_ull(&c, M_PROTECTED_MEM_TOTAL, MIB, &total);
    if (rc == NVML_SUCCESS)
        rc = gs_metric_ull(&c, M_PROTECTED_MEM_FREE, MIB, &free);
    if (rc == NVML_SUCCESS) {
        memory->total = total;
        memory->used = used;
        memory->free = free;
    }
    return gs_leave(rc);
}
#endif

nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t *u)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter_dev(&c, __func__, device);
    if (rc == NVML_SUCCESS && !u)
        rc = NVML_ERROR_INVALID_ARGUMENT;
    if (rc == NVML_SUCCESS)
        rc = gs_metric_u(&c, M_UTIL_GPU, 1, &u->gpu);
    if (rc == NVML_SUCCESS)
        rc = gs_metric_u(&c, M_UTIL_MEMORY, 1, &u->memory);
    return gs_leave(rc);
}

static nvmlReturn_t engine_util(const char *fn, nvmlDevice_t device, metric_id m, unsigned int *util,
                                unsigned int *period)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter_dev(&c, fn, device);
    if (rc == NVML_SUCCESS && (!util || !period))
        rc = NVML_ERROR_INVALID_ARGUMENT;
    if (rc == NVML_SUCCESS)
        rc = gs_metric_u(&c, m, 1, util);
    if (rc == NVML_SUCCESS)
        *period = SAMPLING_PERIOD_US;
    return gs_leave(rc);
}

nvmlReturn_t nvmlDeviceGetEncoderUtilization(nvmlDevice_t d, unsigned int *u, unsigned int *p)
{
    return engine_util(__func__, d, M_UTIL_ENCODER, u, p);
}

nvmlReturn_t nvmlDeviceGetDecoderUtilization(nvmlDevice_t d, unsigned int *u, unsigned int *p)
{
    return engine_util(__func__, d, M_UTIL_DECODER, u, p);
}

#ifndef GPUSIM_MINIMAL
nvmlReturn_t nvmlDeviceGetJpgUtilization(nvmlDevice_t d, unsigned int *u, unsigned int *p)
{
    return engine_util(__func__, d, M_UTIL_JPEG, u, p);
}

nvmlReturn_t nvmlDeviceGetOfaUtilization(nvmlDevice_t d, unsigned int *u, unsigned int *p)
{
    return engine_util(__func__, d, M_UTIL_OFA, u, p);
}
#endif
