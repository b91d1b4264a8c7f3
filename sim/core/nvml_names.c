/* nvml_names.c - the NVML error constant names and the functions libnvidia-ml.so.1 (gpusim)
 * exports: the modelled ones and the NOT_SUPPORTED stubs (nvml_stubs.def); faults name them,
 * and the ABI test checks them against the real library's list. */
#include "nvml_names.h"
#include <string.h>
#include "nvml_abi.h"

static const struct {
    int code;
    const char *name;
} errors[] = {
    {NVML_SUCCESS, "NVML_SUCCESS"},
    {NVML_ERROR_UNINITIALIZED, "NVML_ERROR_UNINITIALIZED"},
    {NVML_ERROR_INVALID_ARGUMENT, "NVML_ERROR_INVALID_ARGUMENT"},
    {NVML_ERROR_NOT_SUPPORTED, "NVML_ERROR_NOT_SUPPORTED"},
    {NVML_ERROR_NO_PERMISSION, "NVML_ERROR_NO_PERMISSION"},
    {NVML_ERROR_ALREADY_INITIALIZED, "NVML_ERROR_ALREADY_INITIALIZED"},
    {NVML_ERROR_NOT_FOUND, "NVML_ERROR_NOT_FOUND"},
    {NVML_ERROR_INSUFFICIENT_SIZE, "NVML_ERROR_INSUFFICIENT_SIZE"},
    {NVML_ERROR_INSUFFICIENT_POWER, "NVML_ERROR_INSUFFICIENT_POWER"},
    {NVML_ERROR_DRIVER_NOT_LOADED, "NVML_ERROR_DRIVER_NOT_LOADED"},
    {NVML_ERROR_TIMEOUT, "NVML_ERROR_TIMEOUT"},
    {NVML_ERROR_IRQ_ISSUE, "NVML_ERROR_IRQ_ISSUE"},
    {NVML_ERROR_LIBRARY_NOT_FOUND, "NVML_ERROR_LIBRARY_NOT_FOUND"},
    {NVML_ERROR_FUNCTION_NOT_FOUND, "NVML_ERROR_FUNCTION_NOT_FOUND"},
    {NVML_ERROR_CORRUPTED_INFOROM, "NVML_ERROR_CORRUPTED_INFOROM"},
    {NVML_ERROR_GPU_IS_LOST, "NVML_ERROR_GPU_IS_LOST"},
    {NVML_ERROR_RESET_REQUIRED, "NVML_ERROR_RESET_REQUIRED"},
    {NVML_ERROR_OPERATING_SYSTEM, "NVML_ERROR_OPERATING_SYSTEM"},
    {NVML_ERROR_LIB_RM_VERSION_MISMATCH, "NVML_ERROR_LIB_RM_VERSION_MISMATCH"},
    {NVML_ERROR_IN_USE, "NVML_ERROR_IN_USE"},
    {NVML_ERROR_MEMORY, "NVML_ERROR_MEMORY"},
    {NVML_ERROR_NO_DATA, "NVML_ERROR_NO_DATA"},
    {NVML_ERROR_VGPU_ECC_NOT_SUPPORTED, "NVML_ERROR_VGPU_ECC_NOT_SUPPORTED"},
    {NVML_ERROR_INSUFFICIENT_RESOURCES, "NVML_ERROR_INSUFFICIENT_RESOURCES"},
    {NVML_ERROR_FREQ_NOT_SUPPORTED, "NVML_ERROR_FREQ_NOT_SUPPORTED"},
    {NVML_ERROR_ARGUMENT_VERSION_MISMATCH, "NVML_ERROR_ARGUMENT_VERSION_MISMATCH"},
    {NVML_ERROR_DEPRECATED, "NVML_ERROR_DEPRECATED"},
    {NVML_ERROR_NOT_READY, "NVML_ERROR_NOT_READY"},
    {NVML_ERROR_GPU_NOT_FOUND, "NVML_ERROR_GPU_NOT_FOUND"},
    {NVML_ERROR_INVALID_STATE, "NVML_ERROR_INVALID_STATE"},
    {NVML_ERROR_RESET_TYPE_NOT_SUPPORTED, "NVML_ERROR_RESET_TYPE_NOT_SUPPORTED"},
    {NVML_ERROR_UNKNOWN, "NVML_ERROR_UNKNOWN"},
};

int sim_nvml_error_code(const char *name)
{
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++) {
        const char *full = errors[i].name;
        const char *shortn = strncmp(full, "NVML_ERROR_", 11) == 0 ? full + 11 : full + 5;
        if (strcmp(name, full) == 0 || strcmp(name, shortn) == 0)
            return errors[i].code;
    }
    return -1;
}

const char *const sim_nvml_functions[] = {"nvmlInit",
                                          "nvmlInit_v2",
                                          "nvmlInitWithFlags",
                                          "nvmlShutdown",
                                          "nvmlErrorString",
                                          "nvmlSystemGetDriverVersion",
                                          "nvmlSystemGetNVMLVersion",
                                          "nvmlSystemGetCudaDriverVersion",
                                          "nvmlSystemGetCudaDriverVersion_v2",
                                          "nvmlSystemGetProcessName",
                                          "nvmlDeviceGetCount",
                                          "nvmlDeviceGetCount_v2",
                                          "nvmlDeviceGetHandleByIndex",
                                          "nvmlDeviceGetHandleByIndex_v2",
                                          "nvmlDeviceGetHandleByUUID",
                                          "nvmlDeviceGetHandleByPciBusId",
                                          "nvmlDeviceGetHandleByPciBusId_v2",
                                          "nvmlDeviceGetIndex",
                                          "nvmlDeviceGetName",
                                          "nvmlDeviceGetUUID",
                                          "nvmlDeviceGetSerial",
                                          "nvmlDeviceGetMinorNumber",
                                          "nvmlDeviceGetArchitecture",
                                          "nvmlDeviceGetCudaComputeCapability",
                                          "nvmlDeviceGetBrand",
                                          "nvmlDeviceGetVbiosVersion",
                                          "nvmlDeviceGetBoardPartNumber",
                                          "nvmlDeviceGetPciInfo",
                                          "nvmlDeviceGetPciInfo_v2",
                                          "nvmlDeviceGetPciInfo_v3",
                                          "nvmlDeviceGetPersistenceMode",
                                          "nvmlDeviceGetComputeMode",
                                          "nvmlDeviceGetDisplayActive",
                                          "nvmlDeviceGetDisplayMode",
                                          "nvmlDeviceGetApplicationsClock",
                                          "nvmlDeviceGetDefaultApplicationsClock",
                                          "nvmlDeviceGetAccountingMode",
                                          "nvmlDeviceGetPowerManagementMode",
                                          "nvmlDeviceGetAccountingBufferSize",
                                          "nvmlDeviceGetGpuMaxPcieLinkGeneration",
                                          "nvmlDeviceGetEncoderStats",
                                          "nvmlDeviceGetGspFirmwareMode",
                                          "nvmlDeviceGetC2cModeInfoV",
                                          "nvmlDeviceGetAddressingMode",
                                          "nvmlDeviceGetMarginTemperature",
                                          "nvmlDeviceGetPciInfoExt",
                                          "nvmlDeviceGetInforomImageVersion",
                                          "nvmlDeviceGetInforomVersion",
                                          "nvmlDeviceGetMemoryErrorCounter",
                                          "nvmlDeviceGetRowRemapperHistogram",
                                          "nvmlDeviceGetMemoryInfo",
                                          "nvmlDeviceGetMemoryInfo_v2",
                                          "nvmlDeviceGetBAR1MemoryInfo",
                                          "nvmlDeviceGetConfComputeProtectedMemoryUsage",
                                          "nvmlDeviceGetUtilizationRates",
                                          "nvmlDeviceGetEncoderUtilization",
                                          "nvmlDeviceGetDecoderUtilization",
                                          "nvmlDeviceGetJpgUtilization",
                                          "nvmlDeviceGetOfaUtilization",
                                          "nvmlDeviceGetTemperature",
                                          "nvmlDeviceGetTemperatureV",
                                          "nvmlDeviceGetTemperatureThreshold",
                                          "nvmlDeviceGetFanSpeed",
                                          "nvmlDeviceGetFanSpeed_v2",
                                          "nvmlDeviceGetNumFans",
                                          "nvmlDeviceGetPowerUsage",
                                          "nvmlDeviceGetEnforcedPowerLimit",
                                          "nvmlDeviceGetPowerManagementLimit",
                                          "nvmlDeviceGetPowerManagementLimitConstraints",
                                          "nvmlDeviceGetPowerManagementDefaultLimit",
                                          "nvmlDeviceGetTotalEnergyConsumption",
                                          "nvmlDeviceGetClockInfo",
                                          "nvmlDeviceGetMaxClockInfo",
                                          "nvmlDeviceGetClock",
                                          "nvmlDeviceGetMaxCustomerBoostClock",
                                          "nvmlDeviceGetPerformanceState",
                                          "nvmlDeviceGetCurrentClocksEventReasons",
                                          "nvmlDeviceGetCurrentClocksThrottleReasons",
                                          "nvmlDeviceGetSupportedClocksEventReasons",
                                          "nvmlDeviceGetSupportedClocksThrottleReasons",
                                          "nvmlDeviceGetViolationStatus",
                                          "nvmlDeviceGetCurrPcieLinkGeneration",
                                          "nvmlDeviceGetCurrPcieLinkWidth",
                                          "nvmlDeviceGetMaxPcieLinkGeneration",
                                          "nvmlDeviceGetMaxPcieLinkWidth",
                                          "nvmlDeviceGetPcieThroughput",
                                          "nvmlDeviceGetPcieReplayCounter",
                                          "nvmlDeviceGetPcieSpeed",
                                          "nvmlDeviceGetEccMode",
                                          "nvmlDeviceGetTotalEccErrors",
                                          "nvmlDeviceGetRemappedRows",
                                          "nvmlDeviceGetRetiredPages",
                                          "nvmlDeviceGetRetiredPagesPendingStatus",
                                          "nvmlDeviceGetMigMode",
                                          "nvmlDeviceGetMaxMigDeviceCount",
                                          "nvmlDeviceGetMigDeviceHandleByIndex",
                                          "nvmlDeviceIsMigDeviceHandle",
                                          "nvmlDeviceGetGpuInstanceId",
                                          "nvmlDeviceGetComputeInstanceId",
                                          "nvmlDeviceGetDeviceHandleFromMigDeviceHandle",
                                          "nvmlDeviceGetFieldValues",
                                          "nvmlDeviceGetComputeRunningProcesses",
                                          "nvmlDeviceGetComputeRunningProcesses_v2",
                                          "nvmlDeviceGetComputeRunningProcesses_v3",
                                          "nvmlDeviceGetGraphicsRunningProcesses",
                                          "nvmlDeviceGetGraphicsRunningProcesses_v2",
                                          "nvmlDeviceGetGraphicsRunningProcesses_v3",
                                          "nvmlDeviceGetMPSComputeRunningProcesses",
                                          "nvmlDeviceGetMPSComputeRunningProcesses_v2",
                                          "nvmlDeviceGetMPSComputeRunningProcesses_v3",
                                          "nvmlDeviceGetProcessUtilization",
                                          "nvmlDeviceGetRunningProcessDetailList",
                                          "nvmlEventSetCreate",
                                          "nvmlDeviceRegisterEvents",
                                          "nvmlDeviceGetSupportedEventTypes",
                                          "nvmlEventSetWait",
                                          "nvmlEventSetWait_v2",
                                          "nvmlEventSetFree",
                                          "nvmlGpmQueryDeviceSupport",
                                          "nvmlGpmSampleAlloc",
                                          "nvmlGpmSampleFree",
                                          "nvmlGpmSampleGet",
                                          "nvmlGpmMetricsGet",
                                          "nvmlDeviceGetCpuAffinity",
                                          "nvmlDeviceGetCpuAffinityWithinScope",
                                          "nvmlDeviceGetMemoryAffinity",
                                          "nvmlDeviceGetNumaNodeId",
                                          "nvmlSystemGetTopologyGpuSet",
                                          "nvmlDeviceGetTopologyCommonAncestor",
                                          "nvmlDeviceGetTopologyNearestGpus",
                                          "nvmlDeviceGetP2PStatus",
                                          "nvmlDeviceGetNvLinkState",
                                          "nvmlDeviceGetNvLinkErrorCounter",
                                          "nvmlDeviceGetNvLinkRemotePciInfo",
                                          "nvmlDeviceGetNvLinkRemotePciInfo_v2",
                                          "nvmlDeviceGetNvLinkRemoteDeviceType",
                                          "nvmlDeviceGetSamples",
                                          "nvmlDeviceGetFBCStats",
                                          "nvmlDeviceGetSupportedMemoryClocks",
                                          "nvmlDeviceGetSupportedGraphicsClocks",
                                          "nvmlUnitGetCount",
                                          "nvmlGetExcludedDeviceCount",
                                          "nvmlGetBlacklistDeviceCount",
                                          NULL};

const char *const sim_nvml_stubs[] = {
#define NVML_STUB(name) #name,
#define NVML_STUB_OPTIONAL(name) #name,
#include "nvml_stubs.def"
#undef NVML_STUB
#undef NVML_STUB_OPTIONAL
    NULL};

const char *const sim_nvml_optional_stubs[] = {
#define NVML_STUB(name)
#define NVML_STUB_OPTIONAL(name) #name,
#include "nvml_stubs.def"
#undef NVML_STUB
#undef NVML_STUB_OPTIONAL
    NULL};

int sim_nvml_function_known(const char *name)
{
    for (int i = 0; sim_nvml_functions[i]; i++)
        if (strcmp(sim_nvml_functions[i], name) == 0)
            return 1;
    for (int i = 0; sim_nvml_stubs[i]; i++)
        if (strcmp(sim_nvml_stubs[i], name) == 0)
            return 1;
    return 0;
}
