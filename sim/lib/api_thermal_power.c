/* api_thermal_power.c - temperatures and thresholds, fan, power (usage, limits, energy)
 * and the performance state. Power is in mW, energy in mJ, temperatures in C. */
#include "nvml_exports.h"

nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, nvmlTemperatureSensors_t sensor, unsigned int *temp)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter_dev(&c, __func__, device);
    if (rc == NVML_SUCCESS && sensor != NVML_TEMPERATURE_GPU)
        rc = NVML_ERROR_INVALID_ARGUMENT;
    if (rc == NVML_SUCCESS)
        rc = gs_metric_u(&c, M_TEMP_GPU, 1, temp);
    return gs_leave(rc);
}

#ifndef GPUSIM_MINIMAL
nvmlReturn_t nvmlDeviceGetTemperatureV(nvmlDevice_t device, nvmlTemperature_v1_t *t)
{
    gs_call c;
    unsigned int v = 0;
    nvmlReturn_t rc = gs_enter_dev(&c, __func__, device);
    if (rc == NVML_SUCCESS && !t)
        rc = NVML_ERROR_INVALID_ARGUMENT;
    if (rc == NVML_SUCCESS && t->version != nvmlTemperature_v1)
        rc = NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    if (rc == NVML_SUCCESS && t->sensorType != NVML_TEMPERATURE_GPU)
        rc = NVML_ERROR_INVALID_ARGUMENT;
    if (rc == NVML_SUCCESS)
        rc = gs_metric_u(&c, M_TEMP_GPU, 1, &v);
    if (rc == NVML_SUCCESS)
        t->temperature = (int)v;
    return gs_leave(rc);
}
#endif

nvmlReturn_t nvmlDeviceGetTemperatureThreshold(nvmlDevice_t device, nvmlTemperatureThresholds_t type,
                                               unsigned int *temp)
{
    gs_call c;
    metric_id m;
    nvmlReturn_t rc = gs_enter_dev(&c, __func__, device);
    if (rc != NVML_SUCCESS)
        return gs_leave(rc);
    switch (type) {
    case NVML_TEMPERATURE_THRESHOLD_SHUTDOWN: m = M_TEMP_SHUTDOWN; break;
    case NVML_TEMPERATURE_THRESHOLD_SLOWDOWN: m = M_TEMP_SLOWDOWN; break;
    case NVML_TEMPERATURE_THRESHOLD_MEM_MAX: m = M_TEMP_MEM_MAX; break;
    case NVML_TEMPERATURE_THRESHOLD_GPU_MAX: m = M_TEMP_GPU_MAX; break;
    default: return gs_leave((unsigned)type < 8 ? NVML_ERROR_NOT_SUPPORTED : NVML_ERROR_INVALID_ARGUMENT);
    }
    return gs_leave(gs_metric_u(&c, m, 1, temp));
}

GS_METRIC_GETTER(nvmlDeviceGetFanSpeed, M_FAN_SPEED, 1)

nvmlReturn_t nvmlDeviceGetFanSpeed_v2(nvmlDevice_t device, unsigned int fan, unsigned int *speed)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter_dev(&c, __func__, device);
    if (rc == NVML_SUCCESS)
        rc = gs_metric_u(&c, M_FAN_SPEED, 1, speed);
    if (rc == NVML_SUCCESS && fan > 0)
        rc = NVML_ERROR_INVALID_ARGUMENT; /* one fan */
    return gs_leave(rc);
}

nvmlReturn_t nvmlDeviceGetNumFans(nvmlDevice_t device, unsigned int *n)
{
    gs_call c;
    double v;
    nvmlReturn_t rc = gs_enter_dev(&c, __func__, device);
    if (rc == NVML_SUCCESS && !n)
        rc = NVML_ERROR_INVALID_ARGUMENT;
    if (rc == NVML_SUCCESS)
        rc = gs_metric(&c, M_FAN_SPEED, &v);
    if (rc == NVML_SUCCESS)
        *n = 1;
    return gs_leave(rc);
}

GS_METRIC_GETTER(nvmlDeviceGetPowerUsage, M_POWER_DRAW, 1000.0)
GS_METRIC_GETTER(nvmlDeviceGetEnforcedPowerLimit, M_POWER_ENFORCED_LIMIT, 1000.0)
GS_METRIC_GETTER(nvmlDeviceGetPowerManagementLimit, M_POWER_LIMIT, 1000.0)
GS_METRIC_GETTER(nvmlDeviceGetPowerManagementDefaultLimit, M_POWER_DEFAULT_LIMIT, 1000.0)

nvmlReturn_t nvmlDeviceGetPowerManagementLimitConstraints(nvmlDevice_t device, unsigned int *minLimit,
                                                          unsigned int *maxLimit)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter_dev(&c, __func__, device);
    if (rc == NVML_SUCCESS && (!minLimit || !maxLimit))
        rc = NVML_ERROR_INVALID_ARGUMENT;
    if (rc == NVML_SUCCESS)
        rc = gs_metric_u(&c, M_POWER_MIN_LIMIT, 1000.0, minLimit);
    if (rc == NVML_SUCCESS)
        rc = gs_metric_u(&c, M_POWER_MAX_LIMIT, 1000.0, maxLimit);
    return gs_leave(rc);
}

nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t device, unsigned long long *energy)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter_dev(&c, __func__, device);
    if (rc == NVML_SUCCESS)
        rc = gs_metric_ull(&c, M_ENERGY, 1, energy);
    return gs_leave(rc);
}

GS_METRIC_GETTER(nvmlDeviceGetPerformanceState, M_PSTATE, 1)
