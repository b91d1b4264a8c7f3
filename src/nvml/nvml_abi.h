/* nvml_abi.h - the NVML ABI facts gpuwatch and gpusim share: return codes, enums,
 * struct layouts and function signatures of libnvidia-ml.so.1 (NVML API 12/13, LP64).
 * Written from the documented API; no NVIDIA header is included or copied. */
#ifndef GPUWATCH_NVML_ABI_H
#define GPUWATCH_NVML_ABI_H

#include <stddef.h>

typedef enum {
    NVML_SUCCESS = 0,
    NVML_ERROR_UNINITIALIZED = 1,
    NVML_ERROR_INVALID_ARGUMENT = 2,
    NVML_ERROR_NOT_SUPPORTED = 3,
    NVML_ERROR_NO_PERMISSION = 4,
    NVML_ERROR_ALREADY_INITIALIZED = 5,
    NVML_ERROR_NOT_FOUND = 6,
    NVML_ERROR_INSUFFICIENT_SIZE = 7,
    NVML_ERROR_INSUFFICIENT_POWER = 8,
    NVML_ERROR_DRIVER_NOT_LOADED = 9,
    NVML_ERROR_TIMEOUT = 10,
    NVML_ERROR_IRQ_ISSUE = 11,
    NVML_ERROR_LIBRARY_NOT_FOUND = 12,
    NVML_ERROR_FUNCTION_NOT_FOUND = 13,
    NVML_ERROR_CORRUPTED_INFOROM = 14,
    NVML_ERROR_GPU_IS_LOST = 15,
    NVML_ERROR_RESET_REQUIRED = 16,
    NVML_ERROR_OPERATING_SYSTEM = 17,
    NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18,
    NVML_ERROR_IN_USE = 19,
    NVML_ERROR_MEMORY = 20,
    NVML_ERROR_NO_DATA = 21,
    NVML_ERROR_VGPU_ECC_NOT_SUPPORTED = 22,
    NVML_ERROR_INSUFFICIENT_RESOURCES = 23,
    NVML_ERROR_FREQ_NOT_SUPPORTED = 24,
    NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25,
    NVML_ERROR_DEPRECATED = 26,
    NVML_ERROR_NOT_READY = 27,
    NVML_ERROR_GPU_NOT_FOUND = 28,
    NVML_ERROR_INVALID_STATE = 29,
    NVML_ERROR_RESET_TYPE_NOT_SUPPORTED = 30,
    NVML_ERROR_UNKNOWN = 999
} nvmlReturn_t;

/* Opaque handles, passed by value. */
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef struct nvmlEventSet_st *nvmlEventSet_t;
typedef struct nvmlGpmSample_st *nvmlGpmSample_t;

#define NVML_STRUCT_VERSION(size, ver) ((unsigned int)((size) | ((ver) << 24U)))

#define NVML_DEVICE_NAME_BUFFER_SIZE 64
#define NVML_DEVICE_NAME_V2_BUFFER_SIZE 96
#define NVML_DEVICE_UUID_BUFFER_SIZE 80
#define NVML_DEVICE_UUID_V2_BUFFER_SIZE 96
#define NVML_DEVICE_SERIAL_BUFFER_SIZE 30
#define NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE 80
#define NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE 80
#define NVML_DEVICE_VBIOS_VERSION_BUFFER_SIZE 32
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE 32
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE 16
#define NVML_VALUE_NOT_AVAILABLE_ULL 0xFFFFFFFFFFFFFFFFULL

#define NVML_INIT_FLAG_NO_GPUS 1u

typedef enum { NVML_FEATURE_DISABLED = 0, NVML_FEATURE_ENABLED = 1 } nvmlEnableState_t;

typedef struct {
    char busIdLegacy[NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE]; /* @0 */
    unsigned int domain;                                     /* @16 */
    unsigned int bus;                                        /* @20 */
    unsigned int device;                                     /* @24 */
    unsigned int pciDeviceId;                                /* @28 */
    unsigned int pciSubSystemId;                             /* @32 */
    char busId[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];          /* @36 */
} nvmlPciInfo_t;                                             /* 68 B */

typedef struct {
    unsigned int gpu;
    unsigned int memory;
} nvmlUtilization_t;

typedef struct {
    unsigned long long total, free, used;
} nvmlMemory_t;
typedef struct {
    unsigned int version;
    unsigned long long total;
    unsigned long long reserved;
    unsigned long long free;
    unsigned long long used;
} nvmlMemory_v2_t; /* 40 B */
#define nvmlMemory_v2 NVML_STRUCT_VERSION(sizeof(nvmlMemory_v2_t), 2)

typedef struct {
    unsigned long long bar1Total, bar1Free, bar1Used;
} nvmlBAR1Memory_t;

typedef enum { NVML_TEMPERATURE_GPU = 0 } nvmlTemperatureSensors_t;
typedef enum {
    NVML_TEMPERATURE_THRESHOLD_SHUTDOWN = 0,
    NVML_TEMPERATURE_THRESHOLD_SLOWDOWN = 1,
    NVML_TEMPERATURE_THRESHOLD_MEM_MAX = 2,
    NVML_TEMPERATURE_THRESHOLD_GPU_MAX = 3
} nvmlTemperatureThresholds_t;
typedef struct {
    unsigned int version;
    nvmlTemperatureSensors_t sensorType;
    int temperature;
} nvmlTemperature_v1_t;
#define nvmlTemperature_v1 NVML_STRUCT_VERSION(sizeof(nvmlTemperature_v1_t), 1)

typedef enum { NVML_CLOCK_GRAPHICS = 0, NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2, NVML_CLOCK_VIDEO = 3 } nvmlClockType_t;
typedef unsigned int nvmlPstates_t; /* 0..15, 32 = unknown */
#define NVML_PSTATE_UNKNOWN 32
typedef unsigned int nvmlDeviceArchitecture_t;
typedef unsigned int nvmlBrandType_t;
typedef unsigned int nvmlComputeMode_t;

typedef enum { NVML_PCIE_UTIL_TX_BYTES = 0, NVML_PCIE_UTIL_RX_BYTES = 1 } nvmlPcieUtilCounter_t;
typedef enum { NVML_MEMORY_ERROR_TYPE_CORRECTED = 0, NVML_MEMORY_ERROR_TYPE_UNCORRECTED = 1 } nvmlMemoryErrorType_t;
typedef enum { NVML_VOLATILE_ECC = 0, NVML_AGGREGATE_ECC = 1 } nvmlEccCounterType_t;

typedef enum {
    NVML_PERF_POLICY_POWER = 0,
    NVML_PERF_POLICY_THERMAL = 1,
    NVML_PERF_POLICY_SYNC_BOOST = 2
} nvmlPerfPolicyType_t;
typedef struct {
    unsigned long long referenceTime;
    unsigned long long violationTime;
} nvmlViolationTime_t;

/* Clock event ("throttle") reason bits. */
#define nvmlClocksEventReasonGpuIdle 0x0000000000000001ULL
#define nvmlClocksEventReasonApplicationsClocksSetting 0x0000000000000002ULL
#define nvmlClocksEventReasonSwPowerCap 0x0000000000000004ULL
#define nvmlClocksThrottleReasonHwSlowdown 0x0000000000000008ULL
#define nvmlClocksEventReasonSyncBoost 0x0000000000000010ULL
#define nvmlClocksEventReasonSwThermalSlowdown 0x0000000000000020ULL
#define nvmlClocksThrottleReasonHwThermalSlowdown 0x0000000000000040ULL
#define nvmlClocksThrottleReasonHwPowerBrakeSlowdown 0x0000000000000080ULL
#define nvmlClocksEventReasonDisplayClockSetting 0x0000000000000100ULL

/* Field values. */
typedef enum {
    NVML_VALUE_TYPE_DOUBLE = 0,
    NVML_VALUE_TYPE_UNSIGNED_INT = 1,
    NVML_VALUE_TYPE_UNSIGNED_LONG = 2,
    NVML_VALUE_TYPE_UNSIGNED_LONG_LONG = 3,
    NVML_VALUE_TYPE_SIGNED_LONG_LONG = 4,
    NVML_VALUE_TYPE_SIGNED_INT = 5,
    NVML_VALUE_TYPE_UNSIGNED_SHORT = 6
} nvmlValueType_t;
typedef union {
    double dVal;
    int siVal;
    unsigned int uiVal;
    unsigned long ulVal;
    unsigned long long ullVal;
    signed long long sllVal;
    unsigned short usVal;
} nvmlValue_t;
typedef struct {
    unsigned int fieldId;      /* @0 */
    unsigned int scopeId;      /* @4 */
    long long timestamp;       /* @8 */
    long long latencyUsec;     /* @16 */
    nvmlValueType_t valueType; /* @24 */
    nvmlReturn_t nvmlReturn;   /* @28 */
    nvmlValue_t value;         /* @32 */
} nvmlFieldValue_t;            /* 40 B */

#define NVML_FI_DEV_ECC_CURRENT 1
#define NVML_FI_DEV_ECC_PENDING 2
/* ECC counters by location: single bit (SBE) / double bit (DBE), volatile / aggregate */
#define NVML_FI_DEV_ECC_SBE_VOL_L1 7
#define NVML_FI_DEV_ECC_DBE_VOL_L1 8
#define NVML_FI_DEV_ECC_SBE_VOL_L2 9
#define NVML_FI_DEV_ECC_DBE_VOL_L2 10
#define NVML_FI_DEV_ECC_SBE_VOL_DEV 11
#define NVML_FI_DEV_ECC_DBE_VOL_DEV 12
#define NVML_FI_DEV_ECC_SBE_VOL_REG 13
#define NVML_FI_DEV_ECC_DBE_VOL_REG 14
#define NVML_FI_DEV_ECC_SBE_VOL_TEX 15
#define NVML_FI_DEV_ECC_DBE_VOL_TEX 16
#define NVML_FI_DEV_ECC_DBE_VOL_CBU 17
#define NVML_FI_DEV_ECC_SBE_AGG_L1 18
#define NVML_FI_DEV_ECC_DBE_AGG_L1 19
#define NVML_FI_DEV_ECC_SBE_AGG_L2 20
#define NVML_FI_DEV_ECC_DBE_AGG_L2 21
#define NVML_FI_DEV_ECC_SBE_AGG_DEV 22
#define NVML_FI_DEV_ECC_DBE_AGG_DEV 23
#define NVML_FI_DEV_ECC_SBE_AGG_REG 24
#define NVML_FI_DEV_ECC_DBE_AGG_REG 25
#define NVML_FI_DEV_ECC_SBE_AGG_TEX 26
#define NVML_FI_DEV_ECC_DBE_AGG_TEX 27
#define NVML_FI_DEV_ECC_DBE_AGG_CBU 28
#define NVML_FI_DEV_RETIRED_SBE 29
#define NVML_FI_DEV_RETIRED_DBE 30
#define NVML_FI_DEV_RETIRED_PENDING 31
#define NVML_FI_DEV_POWER_MIN_LIMIT 187
#define NVML_FI_DEV_POWER_MAX_LIMIT 188
#define NVML_FI_DEV_POWER_DEFAULT_LIMIT 189
#define NVML_FI_DEV_POWER_CURRENT_LIMIT 190
#define NVML_FI_DEV_ENERGY 191
#define NVML_FI_DEV_POWER_REQUESTED_LIMIT 192
#define NVML_FI_DEV_ECC_SBE_VOL_TOTAL 3
#define NVML_FI_DEV_ECC_DBE_VOL_TOTAL 4
#define NVML_FI_DEV_ECC_SBE_AGG_TOTAL 5
#define NVML_FI_DEV_ECC_DBE_AGG_TOTAL 6
#define NVML_FI_DEV_PERF_POLICY_POWER 74
#define NVML_FI_DEV_PERF_POLICY_THERMAL 75
#define NVML_FI_DEV_MEMORY_TEMP 82
#define NVML_FI_DEV_TOTAL_ENERGY_CONSUMPTION 83
#define NVML_FI_DEV_NVLINK_LINK_COUNT 91
#define NVML_FI_DEV_PCIE_REPLAY_COUNTER 94
#define NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX 138
#define NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX 139
#define NVML_FI_DEV_REMAPPED_COR 142
#define NVML_FI_DEV_REMAPPED_UNC 143
#define NVML_FI_DEV_REMAPPED_PENDING 144
#define NVML_FI_DEV_REMAPPED_FAILURE 145
/* NVLink per link (scopeId = the link): data-link replay, recovery and CRC counters, link state */
#define NVML_FI_DEV_NVLINK_ERROR_DL_REPLAY 161
#define NVML_FI_DEV_NVLINK_ERROR_DL_RECOVERY 162
#define NVML_FI_DEV_NVLINK_ERROR_DL_CRC 163
#define NVML_FI_DEV_NVLINK_GET_STATE 165
#define NVML_FI_DEV_POWER_INSTANT 186
#define NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_THERM_SLOWDOWN 269
#define NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_THERM_SLOWDOWN 270
#define NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_POWER_BRAKE_SLOWDOWN 271

/* nvmlDeviceGetNvLinkErrorCounter's counters (NVML_NVLINK_MAX_LINKS links of 18) */
typedef enum {
    NVML_NVLINK_ERROR_DL_REPLAY = 0,
    NVML_NVLINK_ERROR_DL_RECOVERY = 1,
    NVML_NVLINK_ERROR_DL_CRC_FLIT = 2,
    NVML_NVLINK_ERROR_DL_CRC_DATA = 3
} nvmlNvLinkErrorCounter_t;
#define NVML_NVLINK_MAX_LINKS 18

/* nvidia-smi compatibility fields (modes, InfoROM, encoder statistics, per-location ECC, row
 * remapper histogram, T.Limit margin, applications clocks, PCI class). Versioned structs carry
 * NVML_STRUCT_VERSION: sizeof | version << 24. */
typedef unsigned int nvmlInforomObject_t;
#define NVML_INFOROM_OEM 0
#define NVML_INFOROM_ECC 1
#define NVML_INFOROM_POWER 2
#define NVML_DEVICE_INFOROM_VERSION_BUFFER_SIZE 16
typedef unsigned int nvmlMemoryLocation_t; /* L1 0, L2 1, DRAM/device memory 2, register file 3, texture 4,
                                              texture shared 5, CBU 6, SRAM 7 */
typedef unsigned int nvmlGpuOperationMode_t;
typedef unsigned int nvmlDriverModel_t;
#define NVML_FI_DEV_PERF_POLICY_SYNC_BOOST 76
#define NVML_FI_DEV_POWER_AVERAGE 185
#define NVML_FI_DEV_REMAPPED_ROWS_COR_INACTIVE 301 /* NVML 13.3 (driver 595) */
#define NVML_FI_DEV_REMAPPED_ROWS_UNC_INACTIVE 302
typedef struct {
    unsigned int version;
    unsigned int domain;
    unsigned int bus;
    unsigned int device;
    unsigned int pciDeviceId;
    unsigned int pciSubSystemId;
    unsigned int baseClass;
    unsigned int subClass;
    char busId[32];
} nvmlPciInfoExt_t; /* 64 B */
#define nvmlPciInfoExt_v1 (unsigned int)(sizeof(nvmlPciInfoExt_t) | (1u << 24))
typedef struct {
    unsigned int version;
    int marginTemperature;
} nvmlMarginTemperature_t;
#define nvmlMarginTemperature_v1 (unsigned int)(sizeof(nvmlMarginTemperature_t) | (1u << 24))
typedef struct {
    unsigned int version;
    unsigned int value; /* NVML_DEVICE_ADDRESSING_MODE_NONE 0, HMM 1, ATS 2 */
} nvmlDeviceAddressingMode_t;
#define nvmlDeviceAddressingMode_v1 (unsigned int)(sizeof(nvmlDeviceAddressingMode_t) | (1u << 24))
typedef struct {
    unsigned int version;
    unsigned int encryptionState; /* nvmlEnableState_t */
} nvmlDramEncryptionInfo_t;
#define nvmlDramEncryptionInfo_v1 (unsigned int)(sizeof(nvmlDramEncryptionInfo_t) | (1u << 24))
typedef struct {
    unsigned int isC2cEnabled;
} nvmlC2cModeInfo_v1_t;
typedef struct {
    unsigned int max, high, partial, low, none;
} nvmlRowRemapperHistogramValues_t;
#define NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS 0
#define NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR 1

/* Samples (nvmlDeviceGetSamples). */
typedef unsigned int nvmlSamplingType_t;
#define NVML_TOTAL_POWER_SAMPLES 0
#define NVML_GPU_UTILIZATION_SAMPLES 1
#define NVML_MEMORY_UTILIZATION_SAMPLES 2
#define NVML_ENC_UTILIZATION_SAMPLES 3
#define NVML_DEC_UTILIZATION_SAMPLES 4
#define NVML_PROCESSOR_CLK_SAMPLES 5
#define NVML_MEMORY_CLK_SAMPLES 6
#define NVML_MODULE_POWER_SAMPLES 7
#define NVML_JPG_UTILIZATION_SAMPLES 8
#define NVML_OFA_UTILIZATION_SAMPLES 9
#define NVML_SAMPLINGTYPE_COUNT 10
typedef struct {
    unsigned long long timeStamp; /* @0, CPU us */
    nvmlValue_t sampleValue;      /* @8 */
} nvmlSample_t;                   /* 16 B */

/* Frame buffer capture sessions (nvmlDeviceGetFBCStats). */
typedef struct {
    unsigned int sessionsCount;
    unsigned int averageFPS;
    unsigned int averageLatency; /* us */
} nvmlFBCStats_t;

/* Topology, affinity, NVLink, peer-to-peer. */
typedef unsigned int nvmlAffinityScope_t;
#define NVML_AFFINITY_SCOPE_NODE 0
#define NVML_AFFINITY_SCOPE_SOCKET 1
typedef enum {
    NVML_TOPOLOGY_INTERNAL = 0,
    NVML_TOPOLOGY_SINGLE = 10,
    NVML_TOPOLOGY_MULTIPLE = 20,
    NVML_TOPOLOGY_HOSTBRIDGE = 30,
    NVML_TOPOLOGY_NODE = 40,
    NVML_TOPOLOGY_SYSTEM = 50
} nvmlGpuTopologyLevel_t;
typedef enum {
    NVML_P2P_CAPS_INDEX_READ = 0,
    NVML_P2P_CAPS_INDEX_WRITE = 1,
    NVML_P2P_CAPS_INDEX_NVLINK = 2,
    NVML_P2P_CAPS_INDEX_ATOMICS = 3,
    NVML_P2P_CAPS_INDEX_PCI = 4, /* also NVML_P2P_CAPS_INDEX_PROP */
    NVML_P2P_CAPS_INDEX_UNKNOWN = 5
} nvmlGpuP2PCapsIndex_t;
typedef enum {
    NVML_P2P_STATUS_OK = 0,
    NVML_P2P_STATUS_CHIPSET_NOT_SUPPORTED = 1,
    NVML_P2P_STATUS_GPU_NOT_SUPPORTED = 2,
    NVML_P2P_STATUS_IOH_TOPOLOGY_NOT_SUPPORTED = 3,
    NVML_P2P_STATUS_DISABLED_BY_REGKEY = 4,
    NVML_P2P_STATUS_NOT_SUPPORTED = 5,
    NVML_P2P_STATUS_UNKNOWN = 6
} nvmlGpuP2PStatus_t;
typedef unsigned int nvmlIntNvLinkDeviceType_t;
#define NVML_NVLINK_DEVICE_TYPE_GPU 0x00
#define NVML_NVLINK_DEVICE_TYPE_IBMNPU 0x01
#define NVML_NVLINK_DEVICE_TYPE_SWITCH 0x02
#define NVML_NVLINK_DEVICE_TYPE_UNKNOWN 0xFF

/* Processes. */
typedef struct {
    unsigned int pid;
    unsigned long long usedGpuMemory;
} nvmlProcessInfo_v1_t; /* 16 B */
typedef struct {
    unsigned int pid;                 /* @0 */
    unsigned long long usedGpuMemory; /* @8 */
    unsigned int gpuInstanceId;       /* @16 */
    unsigned int computeInstanceId;   /* @20 */
} nvmlProcessInfo_t;                  /* 24 B */
typedef struct {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId;
    unsigned int computeInstanceId;
    unsigned long long usedGpuCcProtectedMemory;
} nvmlProcessDetail_v1_t; /* 32 B */
typedef struct {
    unsigned int version;
    unsigned int mode;
    unsigned int numProcArrayEntries;
    nvmlProcessDetail_v1_t *procArray;
} nvmlProcessDetailList_t; /* 24 B */
typedef struct {
    unsigned int pid;             /* @0 */
    unsigned long long timeStamp; /* @8 */
    unsigned int smUtil;          /* @16 */
    unsigned int memUtil;         /* @20 */
    unsigned int encUtil;         /* @24 */
    unsigned int decUtil;         /* @28 */
} nvmlProcessUtilizationSample_t; /* 32 B */

/* Events. */
typedef struct {
    nvmlDevice_t device;            /* @0 */
    unsigned long long eventType;   /* @8 */
    unsigned long long eventData;   /* @16 */
    unsigned int gpuInstanceId;     /* @24 */
    unsigned int computeInstanceId; /* @28 */
} nvmlEventData_t;                  /* 32 B */
#define nvmlEventTypeSingleBitEccError 0x0000000000000001ULL
#define nvmlEventTypeDoubleBitEccError 0x0000000000000002ULL
#define nvmlEventTypeXidCriticalError 0x0000000000000008ULL

/* GPM (Hopper+). Only metrics[0..numMetrics-1] is ever touched, so the array size here
 * (NVML 12.0-12.4's 98) is a floor, not a promise about the library's own maximum. */
#define NVML_GPM_METRIC_MAX 98
#define NVML_GPM_METRICS_GET_VERSION 1
#define NVML_GPM_SUPPORT_VERSION 1
typedef struct {
    char *shortName;
    char *longName;
    char *unit;
} nvmlGpmMetricMetricInfo_t;
typedef struct {
    unsigned int metricId;                /* @0 */
    nvmlReturn_t nvmlReturn;              /* @4 */
    double value;                         /* @8 */
    nvmlGpmMetricMetricInfo_t metricInfo; /* @16 */
} nvmlGpmMetric_t;                        /* 40 B */
typedef struct {
    unsigned int version;
    unsigned int numMetrics;
    nvmlGpmSample_t sample1;
    nvmlGpmSample_t sample2;
    nvmlGpmMetric_t metrics[NVML_GPM_METRIC_MAX];
} nvmlGpmMetricsGet_t;
typedef struct {
    unsigned int version;
    unsigned int isSupportedDevice;
} nvmlGpmSupport_t;
#define NVML_GPM_METRIC_GRAPHICS_UTIL 1
#define NVML_GPM_METRIC_SM_UTIL 2
#define NVML_GPM_METRIC_SM_OCCUPANCY 3
#define NVML_GPM_METRIC_ANY_TENSOR_UTIL 5
#define NVML_GPM_METRIC_DRAM_BW_UTIL 10
#define NVML_GPM_METRIC_PCIE_TX_PER_SEC 20
#define NVML_GPM_METRIC_PCIE_RX_PER_SEC 21
#define NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC 60
#define NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC 61

_Static_assert(sizeof(nvmlPciInfo_t) == 68, "nvmlPciInfo_t layout");
_Static_assert(sizeof(nvmlMemory_v2_t) == 40, "nvmlMemory_v2_t layout");
_Static_assert(sizeof(nvmlFieldValue_t) == 40, "nvmlFieldValue_t layout");
_Static_assert(sizeof(nvmlProcessInfo_t) == 24, "nvmlProcessInfo_t layout");
_Static_assert(sizeof(nvmlProcessUtilizationSample_t) == 32, "nvmlProcessUtilizationSample_t layout");
_Static_assert(sizeof(nvmlEventData_t) == 32, "nvmlEventData_t layout");
_Static_assert(sizeof(nvmlSample_t) == 16, "nvmlSample_t layout");
_Static_assert(sizeof(nvmlGpmMetric_t) == 40, "nvmlGpmMetric_t layout");
_Static_assert(sizeof(nvmlPciInfoExt_t) == 64, "nvmlPciInfoExt_t layout");
_Static_assert(sizeof(nvmlRowRemapperHistogramValues_t) == 20, "nvmlRowRemapperHistogramValues_t layout");
_Static_assert(offsetof(nvmlGpmMetricsGet_t, metrics) == 24, "nvmlGpmMetricsGet_t layout");

#endif
