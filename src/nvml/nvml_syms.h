/* nvml_syms.h - the NVML functions the backend resolves with dlsym: one line each, names tried in order. */
#ifndef GPUWATCH_NVML_SYMS_H
#define GPUWATCH_NVML_SYMS_H

#include "nvml_abi.h"

typedef nvmlDevice_t nvD;

/* X(field, return type, parameters, required, names...): the names are tried left to right (newest
 * first); the index of the one found is the symbol's "variant" (for layouts that changed, e.g. the
 * 16-byte process struct of the plain GetComputeRunningProcesses). */
#define NVML_SYMBOLS(X)                                                                                                \
    X(Init, nvmlReturn_t, (void), 1, "nvmlInit_v2", "nvmlInit")                                                        \
    X(Shutdown, nvmlReturn_t, (void), 1, "nvmlShutdown")                                                               \
    X(ErrorString, const char *, (nvmlReturn_t), 1, "nvmlErrorString")                                                 \
    X(GetCount, nvmlReturn_t, (unsigned int *), 1, "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount")                      \
    X(GetHandleByIndex, nvmlReturn_t, (unsigned int, nvD *), 1, "nvmlDeviceGetHandleByIndex_v2",                       \
      "nvmlDeviceGetHandleByIndex")                                                                                    \
    X(GetName, nvmlReturn_t, (nvD, char *, unsigned int), 1, "nvmlDeviceGetName")                                      \
    X(SystemGetDriverVersion, nvmlReturn_t, (char *, unsigned int), 0, "nvmlSystemGetDriverVersion")                   \
    X(SystemGetNVMLVersion, nvmlReturn_t, (char *, unsigned int), 0, "nvmlSystemGetNVMLVersion")                       \
    X(SystemGetCudaDriverVersion, nvmlReturn_t, (int *), 0, "nvmlSystemGetCudaDriverVersion_v2",                       \
      "nvmlSystemGetCudaDriverVersion")                                                                                \
    X(SystemGetProcessName, nvmlReturn_t, (unsigned int, char *, unsigned int), 0, "nvmlSystemGetProcessName")         \
    X(GetUUID, nvmlReturn_t, (nvD, char *, unsigned int), 0, "nvmlDeviceGetUUID")                                      \
    X(GetSerial, nvmlReturn_t, (nvD, char *, unsigned int), 0, "nvmlDeviceGetSerial")                                  \
    X(GetVbiosVersion, nvmlReturn_t, (nvD, char *, unsigned int), 0, "nvmlDeviceGetVbiosVersion")                      \
    X(GetPciInfo, nvmlReturn_t, (nvD, nvmlPciInfo_t *), 0, "nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2",       \
      "nvmlDeviceGetPciInfo")                                                                                          \
    X(GetMinorNumber, nvmlReturn_t, (nvD, unsigned int *), 0, "nvmlDeviceGetMinorNumber")                              \
    X(GetArchitecture, nvmlReturn_t, (nvD, nvmlDeviceArchitecture_t *), 0, "nvmlDeviceGetArchitecture")                \
    X(GetCudaComputeCapability, nvmlReturn_t, (nvD, int *, int *), 0, "nvmlDeviceGetCudaComputeCapability")            \
    X(GetNumaNodeId, nvmlReturn_t, (nvD, unsigned int *), 0, "nvmlDeviceGetNumaNodeId")                                \
    X(GetMemoryAffinity, nvmlReturn_t, (nvD, unsigned int, unsigned long *, unsigned int), 0,                          \
      "nvmlDeviceGetMemoryAffinity")                                                                                   \
    X(GetTemperatureThreshold, nvmlReturn_t, (nvD, nvmlTemperatureThresholds_t, unsigned int *), 0,                    \
      "nvmlDeviceGetTemperatureThreshold")                                                                             \
    X(GetTemperatureV, nvmlReturn_t, (nvD, nvmlTemperature_v1_t *), 0, "nvmlDeviceGetTemperatureV")                    \
    X(GetTemperature, nvmlReturn_t, (nvD, nvmlTemperatureSensors_t, unsigned int *), 0, "nvmlDeviceGetTemperature")    \
    X(GetMemoryInfoV2, nvmlReturn_t, (nvD, nvmlMemory_v2_t *), 0, "nvmlDeviceGetMemoryInfo_v2")                        \
    X(GetMemoryInfo, nvmlReturn_t, (nvD, nvmlMemory_t *), 0, "nvmlDeviceGetMemoryInfo")                                \
    X(GetBAR1MemoryInfo, nvmlReturn_t, (nvD, nvmlBAR1Memory_t *), 0, "nvmlDeviceGetBAR1MemoryInfo")                    \
    X(GetProtectedMemoryUsage, nvmlReturn_t, (nvD, nvmlMemory_t *), 0, "nvmlDeviceGetConfComputeProtectedMemoryUsage") \
    X(GetPowerDefaultLimit, nvmlReturn_t, (nvD, unsigned int *), 0, "nvmlDeviceGetPowerManagementDefaultLimit")        \
    X(GetPowerLimitConstraints, nvmlReturn_t, (nvD, unsigned int *, unsigned int *), 0,                                \
      "nvmlDeviceGetPowerManagementLimitConstraints")                                                                  \
    X(GetPowerLimit, nvmlReturn_t, (nvD, unsigned int *), 0, "nvmlDeviceGetPowerManagementLimit")                      \
    X(GetEnforcedPowerLimit, nvmlReturn_t, (nvD, unsigned int *), 0, "nvmlDeviceGetEnforcedPowerLimit")                \
    X(GetPowerUsage, nvmlReturn_t, (nvD, unsigned int *), 0, "nvmlDeviceGetPowerUsage")                                \
    X(GetTotalEnergyConsumption, nvmlReturn_t, (nvD, unsigned long long *), 0, "nvmlDeviceGetTotalEnergyConsumption")  \
    X(GetMaxClockInfo, nvmlReturn_t, (nvD, nvmlClockType_t, unsigned int *), 0, "nvmlDeviceGetMaxClockInfo")           \
    X(GetClockInfo, nvmlReturn_t, (nvD, nvmlClockType_t, unsigned int *), 0, "nvmlDeviceGetClockInfo")                 \
    X(GetSupportedClocksEventReasons, nvmlReturn_t, (nvD, unsigned long long *), 0,                                    \
      "nvmlDeviceGetSupportedClocksEventReasons", "nvmlDeviceGetSupportedClocksThrottleReasons")                       \
    X(GetCurrentClocksEventReasons, nvmlReturn_t, (nvD, unsigned long long *), 0,                                      \
      "nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons")                           \
    X(GetViolationStatus, nvmlReturn_t, (nvD, nvmlPerfPolicyType_t, nvmlViolationTime_t *), 0,                         \
      "nvmlDeviceGetViolationStatus")                                                                                  \
    X(GetMaxPcieLinkGeneration, nvmlReturn_t, (nvD, unsigned int *), 0, "nvmlDeviceGetMaxPcieLinkGeneration")          \
    X(GetMaxPcieLinkWidth, nvmlReturn_t, (nvD, unsigned int *), 0, "nvmlDeviceGetMaxPcieLinkWidth")                    \
    X(GetCurrPcieLinkGeneration, nvmlReturn_t, (nvD, unsigned int *), 0, "nvmlDeviceGetCurrPcieLinkGeneration")        \
    X(GetCurrPcieLinkWidth, nvmlReturn_t, (nvD, unsigned int *), 0, "nvmlDeviceGetCurrPcieLinkWidth")                  \
    X(GetPcieThroughput, nvmlReturn_t, (nvD, nvmlPcieUtilCounter_t, unsigned int *), 0, "nvmlDeviceGetPcieThroughput") \
    X(GetPcieReplayCounter, nvmlReturn_t, (nvD, unsigned int *), 0, "nvmlDeviceGetPcieReplayCounter")                  \
    X(GetEccMode, nvmlReturn_t, (nvD, nvmlEnableState_t *, nvmlEnableState_t *), 0, "nvmlDeviceGetEccMode")            \
    X(GetTotalEccErrors, nvmlReturn_t, (nvD, nvmlMemoryErrorType_t, nvmlEccCounterType_t, unsigned long long *), 0,    \
      "nvmlDeviceGetTotalEccErrors")                                                                                   \
    X(GetRemappedRows, nvmlReturn_t, (nvD, unsigned int *, unsigned int *, unsigned int *, unsigned int *), 0,         \
      "nvmlDeviceGetRemappedRows")                                                                                     \
    X(GetPerformanceState, nvmlReturn_t, (nvD, nvmlPstates_t *), 0, "nvmlDeviceGetPerformanceState")                   \
    X(GetFanSpeed, nvmlReturn_t, (nvD, unsigned int *), 0, "nvmlDeviceGetFanSpeed")                                    \
    X(GetUtilizationRates, nvmlReturn_t, (nvD, nvmlUtilization_t *), 0, "nvmlDeviceGetUtilizationRates")               \
    X(GetEncoderUtilization, nvmlReturn_t, (nvD, unsigned int *, unsigned int *), 0,                                   \
      "nvmlDeviceGetEncoderUtilization")                                                                               \
    X(GetDecoderUtilization, nvmlReturn_t, (nvD, unsigned int *, unsigned int *), 0,                                   \
      "nvmlDeviceGetDecoderUtilization")                                                                               \
    X(GetJpgUtilization, nvmlReturn_t, (nvD, unsigned int *, unsigned int *), 0, "nvmlDeviceGetJpgUtilization")        \
    X(GetOfaUtilization, nvmlReturn_t, (nvD, unsigned int *, unsigned int *), 0, "nvmlDeviceGetOfaUtilization")        \
    X(GetMigMode, nvmlReturn_t, (nvD, unsigned int *, unsigned int *), 0, "nvmlDeviceGetMigMode")                      \
    X(GetFieldValues, nvmlReturn_t, (nvD, int, nvmlFieldValue_t *), 0, "nvmlDeviceGetFieldValues")                     \
    X(GetComputeProcs, nvmlReturn_t, (nvD, unsigned int *, void *), 0, "nvmlDeviceGetComputeRunningProcesses_v3",      \
      "nvmlDeviceGetComputeRunningProcesses_v2", "nvmlDeviceGetComputeRunningProcesses")                               \
    X(GetGraphicsProcs, nvmlReturn_t, (nvD, unsigned int *, void *), 0, "nvmlDeviceGetGraphicsRunningProcesses_v3",    \
      "nvmlDeviceGetGraphicsRunningProcesses_v2", "nvmlDeviceGetGraphicsRunningProcesses")                             \
    X(GetMPSProcs, nvmlReturn_t, (nvD, unsigned int *, void *), 0, "nvmlDeviceGetMPSComputeRunningProcesses_v3",       \
      "nvmlDeviceGetMPSComputeRunningProcesses_v2", "nvmlDeviceGetMPSComputeRunningProcesses")                         \
    X(GetProcessUtilization, nvmlReturn_t,                                                                             \
      (nvD, nvmlProcessUtilizationSample_t *, unsigned int *, unsigned long long), 0,                                  \
      "nvmlDeviceGetProcessUtilization")                                                                               \
    X(EventSetCreate, nvmlReturn_t, (nvmlEventSet_t *), 0, "nvmlEventSetCreate")                                       \
    X(RegisterEvents, nvmlReturn_t, (nvD, unsigned long long, nvmlEventSet_t), 0, "nvmlDeviceRegisterEvents")          \
    X(EventSetWait, nvmlReturn_t, (nvmlEventSet_t, nvmlEventData_t *, unsigned int), 0, "nvmlEventSetWait_v2",         \
      "nvmlEventSetWait")                                                                                              \
    X(EventSetFree, nvmlReturn_t, (nvmlEventSet_t), 0, "nvmlEventSetFree")                                             \
    X(GpmQueryDeviceSupport, nvmlReturn_t, (nvD, nvmlGpmSupport_t *), 0, "nvmlGpmQueryDeviceSupport")                  \
    X(GpmSampleAlloc, nvmlReturn_t, (nvmlGpmSample_t *), 0, "nvmlGpmSampleAlloc")                                      \
    X(GpmSampleFree, nvmlReturn_t, (nvmlGpmSample_t), 0, "nvmlGpmSampleFree")                                          \
    X(GpmSampleGet, nvmlReturn_t, (nvD, nvmlGpmSample_t), 0, "nvmlGpmSampleGet")                                       \
    X(GpmMetricsGet, nvmlReturn_t, (nvmlGpmMetricsGet_t *), 0, "nvmlGpmMetricsGet")                                    \
    /* nvidia-smi compatibility fields (nvml_compat.c) */                                                              \
    X(GetPciInfoExt, nvmlReturn_t, (nvD, nvmlPciInfoExt_t *), 0, "nvmlDeviceGetPciInfoExt")                            \
    X(GetInforomVersion, nvmlReturn_t, (nvD, nvmlInforomObject_t, char *, unsigned int), 0,                            \
      "nvmlDeviceGetInforomVersion")                                                                                   \
    X(GetInforomImageVersion, nvmlReturn_t, (nvD, char *, unsigned int), 0, "nvmlDeviceGetInforomImageVersion")        \
    X(GetComputeMode, nvmlReturn_t, (nvD, nvmlComputeMode_t *), 0, "nvmlDeviceGetComputeMode")                         \
    X(GetPersistenceMode, nvmlReturn_t, (nvD, nvmlEnableState_t *), 0, "nvmlDeviceGetPersistenceMode")                 \
    X(GetDisplayMode, nvmlReturn_t, (nvD, nvmlEnableState_t *), 0, "nvmlDeviceGetDisplayMode")                         \
    X(GetDisplayActive, nvmlReturn_t, (nvD, nvmlEnableState_t *), 0, "nvmlDeviceGetDisplayActive")                     \
    X(GetAddressingMode, nvmlReturn_t, (nvD, nvmlDeviceAddressingMode_t *), 0, "nvmlDeviceGetAddressingMode")          \
    X(GetAccountingMode, nvmlReturn_t, (nvD, nvmlEnableState_t *), 0, "nvmlDeviceGetAccountingMode")                   \
    X(GetAccountingBufferSize, nvmlReturn_t, (nvD, unsigned int *), 0, "nvmlDeviceGetAccountingBufferSize")            \
    X(GetDriverModel, nvmlReturn_t, (nvD, nvmlDriverModel_t *, nvmlDriverModel_t *), 0, "nvmlDeviceGetDriverModel")    \
    X(GetGpuOperationMode, nvmlReturn_t, (nvD, nvmlGpuOperationMode_t *, nvmlGpuOperationMode_t *), 0,                 \
      "nvmlDeviceGetGpuOperationMode")                                                                                 \
    X(GetGspFirmwareMode, nvmlReturn_t, (nvD, unsigned int *, unsigned int *), 0, "nvmlDeviceGetGspFirmwareMode")      \
    X(GetC2cModeInfoV, nvmlReturn_t, (nvD, nvmlC2cModeInfo_v1_t *), 0, "nvmlDeviceGetC2cModeInfoV")                    \
    X(GetMarginTemperature, nvmlReturn_t, (nvD, nvmlMarginTemperature_t *), 0, "nvmlDeviceGetMarginTemperature")       \
    X(GetEncoderStats, nvmlReturn_t, (nvD, unsigned int *, unsigned int *, unsigned int *), 0,                         \
      "nvmlDeviceGetEncoderStats")                                                                                     \
    X(GetPowerManagementMode, nvmlReturn_t, (nvD, nvmlEnableState_t *), 0, "nvmlDeviceGetPowerManagementMode")         \
    X(GetApplicationsClock, nvmlReturn_t, (nvD, nvmlClockType_t, unsigned int *), 0, "nvmlDeviceGetApplicationsClock") \
    X(GetDefaultApplicationsClock, nvmlReturn_t, (nvD, nvmlClockType_t, unsigned int *), 0,                            \
      "nvmlDeviceGetDefaultApplicationsClock")                                                                         \
    X(GetGpuMaxPcieLinkGeneration, nvmlReturn_t, (nvD, unsigned int *), 0, "nvmlDeviceGetGpuMaxPcieLinkGeneration")    \
    X(GetDramEncryptionMode, nvmlReturn_t, (nvD, nvmlDramEncryptionInfo_t *, nvmlDramEncryptionInfo_t *), 0,           \
      "nvmlDeviceGetDramEncryptionMode")                                                                               \
    X(GetMemoryErrorCounter, nvmlReturn_t,                                                                             \
      (nvD, nvmlMemoryErrorType_t, nvmlEccCounterType_t, nvmlMemoryLocation_t, unsigned long long *), 0,               \
      "nvmlDeviceGetMemoryErrorCounter")                                                                               \
    X(GetRetiredPages, nvmlReturn_t, (nvD, unsigned int, unsigned int *, unsigned long long *), 0,                     \
      "nvmlDeviceGetRetiredPages")                                                                                     \
    X(GetRetiredPagesV2, nvmlReturn_t,                                                                                 \
      (nvD, unsigned int, unsigned int *, unsigned long long *, unsigned long long *), 0,                              \
      "nvmlDeviceGetRetiredPages_v2")                                                                                  \
    X(GetSamples, nvmlReturn_t,                                                                                        \
      (nvD, nvmlSamplingType_t, unsigned long long, nvmlValueType_t *, unsigned int *, nvmlSample_t *), 0,             \
      "nvmlDeviceGetSamples")                                                                                          \
    X(GetSupportedMemoryClocks, nvmlReturn_t, (nvD, unsigned int *, unsigned int *), 0,                                \
      "nvmlDeviceGetSupportedMemoryClocks")                                                                            \
    X(GetSupportedGraphicsClocks, nvmlReturn_t, (nvD, unsigned int, unsigned int *, unsigned int *), 0,                \
      "nvmlDeviceGetSupportedGraphicsClocks")                                                                          \
    X(GetFBCStats, nvmlReturn_t, (nvD, nvmlFBCStats_t *), 0, "nvmlDeviceGetFBCStats")                                  \
    X(GetRetiredPagesPendingStatus, nvmlReturn_t, (nvD, nvmlEnableState_t *), 0,                                       \
      "nvmlDeviceGetRetiredPagesPendingStatus")                                                                        \
    X(GetRowRemapperHistogram, nvmlReturn_t, (nvD, nvmlRowRemapperHistogramValues_t *), 0,                             \
      "nvmlDeviceGetRowRemapperHistogram")                                                                             \
    /* NVLink per link, where GetFieldValues does not give them (nvml_nvlink.c) */                                     \
    X(GetNvLinkErrorCounter, nvmlReturn_t, (nvD, unsigned int, nvmlNvLinkErrorCounter_t, unsigned long long *), 0,     \
      "nvmlDeviceGetNvLinkErrorCounter")                                                                               \
    /* gpusim only: the user and container a scenario gives a process (for pids not in /proc) */                       \
    X(GpusimProcessOwner, nvmlReturn_t, (unsigned int, char *, unsigned int, char *, unsigned int), 0,                 \
      "gpusimGetProcessOwner")                                                                                         \
    /* gpusim only: the command line a scenario gives a process (for pids not in /proc) */                             \
    X(GpusimProcessCommand, nvmlReturn_t, (unsigned int, char *, unsigned int), 0, "gpusimGetProcessCommand")          \
    /* gpusim only: sets the scenario's clock (a replay samples scenario time without waiting) */                      \
    X(GpusimSetTime, nvmlReturn_t, (double), 0, "gpusimSetTime")                                                       \
    /* topology, for job placement (nvml_topo.c) */                                                                    \
    X(GetCpuAffinity, nvmlReturn_t, (nvD, unsigned int, unsigned long *), 0, "nvmlDeviceGetCpuAffinity")               \
    X(GetTopologyCommonAncestor, nvmlReturn_t, (nvD, nvD, nvmlGpuTopologyLevel_t *), 0,                                \
      "nvmlDeviceGetTopologyCommonAncestor")                                                                           \
    X(GetP2PStatus, nvmlReturn_t, (nvD, nvD, nvmlGpuP2PCapsIndex_t, nvmlGpuP2PStatus_t *), 0,                          \
      "nvmlDeviceGetP2PStatus")                                                                                        \
    X(GetNvLinkState, nvmlReturn_t, (nvD, unsigned int, nvmlEnableState_t *), 0, "nvmlDeviceGetNvLinkState")           \
    X(GetNvLinkRemoteDeviceType, nvmlReturn_t, (nvD, unsigned int, nvmlIntNvLinkDeviceType_t *), 0,                    \
      "nvmlDeviceGetNvLinkRemoteDeviceType")                                                                           \
    X(GetNvLinkRemotePciInfo, nvmlReturn_t, (nvD, unsigned int, nvmlPciInfo_t *), 0,                                   \
      "nvmlDeviceGetNvLinkRemotePciInfo_v2")                                                                           \
    /* gpusim only: the scenario's clock */                                                                            \
    /* MIG devices (nvml_mig.c) */                                                                                     \
    X(GetMaxMigDeviceCount, nvmlReturn_t, (nvD, unsigned int *), 0, "nvmlDeviceGetMaxMigDeviceCount")                  \
    X(GetMigDeviceHandleByIndex, nvmlReturn_t, (nvD, unsigned int, nvD *), 0, "nvmlDeviceGetMigDeviceHandleByIndex")   \
    X(GetGpuInstanceId, nvmlReturn_t, (nvD, unsigned int *), 0, "nvmlDeviceGetGpuInstanceId")                          \
    X(GetComputeInstanceId, nvmlReturn_t, (nvD, unsigned int *), 0, "nvmlDeviceGetComputeInstanceId")                  \
    X(GpusimGetTime, double, (void), 0, "gpusimGetTime")

#define NV_SYM_ENUM(f, ret, params, req, ...) NV_##f,
typedef enum { NVML_SYMBOLS(NV_SYM_ENUM) NV_SYM_COUNT } nv_sym;
#undef NV_SYM_ENUM

/* Typed function pointers; NULL where the library does not export the symbol. */
#define NV_SYM_FIELD(f, ret, params, req, ...) ret(*f) params;
typedef struct nvml_fns {
    NVML_SYMBOLS(NV_SYM_FIELD)
} nvml_fns;
#undef NV_SYM_FIELD

#endif
