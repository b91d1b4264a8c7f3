/* api_samples.c - nvmlDeviceGetSamples for GPU and memory utilization: the driver's buffer of
 * the last SAMPLE_BUFFER samples, one at the end of each utilization period (k x period in
 * scenario time), each the mean of that period: the value utilization.gpu / .memory has at
 * that time. Power, clock and engine samples are NOT_SUPPORTED. */
#include "nvml_exports.h"
#include <math.h>

#define SAMPLE_BUFFER 120

nvmlReturn_t nvmlDeviceGetSamples(nvmlDevice_t device, nvmlSamplingType_t type, unsigned long long lastSeen,
                                  nvmlValueType_t *valType, unsigned int *count, nvmlSample_t *samples)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter_dev(&c, __func__, device);
    if (rc != NVML_SUCCESS)
        return gs_leave(rc);
    if (!valType || !count || type >= NVML_SAMPLINGTYPE_COUNT)
        return gs_leave(NVML_ERROR_INVALID_ARGUMENT);
    metric_id m = type == NVML_GPU_UTILIZATION_SAMPLES ? M_UTIL_GPU : M_UTIL_MEMORY;
    if ((type != NVML_GPU_UTILIZATION_SAMPLES && type != NVML_MEMORY_UTILIZATION_SAMPLES) ||
        sim_unsupported(gs.sc, c.gpu, m))
        return gs_leave(NVML_ERROR_NOT_SUPPORTED);
    double period = gs.sc->gpus[c.gpu].spec->p.util_period_s;
    long long last = (long long)floor(c.t / period + 1e-6), first = last - SAMPLE_BUFFER + 1;
    if (first < 1)
        first = 1;
    while (first <= last && gs_stamp_us((double)first * period) <= lastSeen)
        first++; /* only samples newer than lastSeen */
    unsigned n = first <= last ? (unsigned)(last - first + 1) : 0;
    if (n == 0)
        return gs_leave(NVML_ERROR_NOT_FOUND);
    *valType = NVML_VALUE_TYPE_UNSIGNED_INT;
    if (!samples) {
        *count = n;
        return gs_leave(NVML_SUCCESS);
    }
    if (*count < n)
        n = *count; /* the oldest ones: asking again after the last one returned gives the rest */
    for (unsigned i = 0; i < n; i++) {
        double t = (double)(first + i) * period, v = 0;
        sim_util_at(gs.sc, c.gpu, m, t, &v);
        samples[i].timeStamp = gs_stamp_us(t);
        samples[i].sampleValue.ullVal = 0;
        samples[i].sampleValue.uiVal = (unsigned)v;
    }
    *count = n;
    return gs_leave(NVML_SUCCESS);
}
