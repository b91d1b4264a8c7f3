/* api_samples.c - nvmlDeviceGetSamples: the driver's buffer of the last SAMPLE_BUFFER samples, one at
 * the end of each utilization period (k x period in scenario time). GPU and memory utilization: each
 * the mean of that period (the value utilization.gpu / .memory has at that time); power (mW),
 * encoder and decoder utilization, graphics and memory clocks: the metric's value at that time.
 * Module power, JPEG and OFA samples are NOT_SUPPORTED. */
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
    static const struct {
        metric_id m;
        double scale;
    } kinds[NVML_SAMPLINGTYPE_COUNT] = {
        [NVML_TOTAL_POWER_SAMPLES] = {M_POWER_DRAW, 1000},      [NVML_GPU_UTILIZATION_SAMPLES] = {M_UTIL_GPU, 1},
        [NVML_MEMORY_UTILIZATION_SAMPLES] = {M_UTIL_MEMORY, 1}, [NVML_ENC_UTILIZATION_SAMPLES] = {M_UTIL_ENCODER, 1},
        [NVML_DEC_UTILIZATION_SAMPLES] = {M_UTIL_DECODER, 1},   [NVML_PROCESSOR_CLK_SAMPLES] = {M_CLOCK_GR, 1},
        [NVML_MEMORY_CLK_SAMPLES] = {M_CLOCK_MEM, 1},
    };
    metric_id m = kinds[type].m;
    int util = type == NVML_GPU_UTILIZATION_SAMPLES || type == NVML_MEMORY_UTILIZATION_SAMPLES;
    if (m == 0 || sim_unsupported(gs.sc, c.gpu, m))
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
        if (util)
            sim_util_at(gs.sc, c.gpu, m, t, &v);
        else
            sim_value(gs.sc, c.gpu, m, t, &v);
        samples[i].timeStamp = gs_stamp_us(t);
        samples[i].sampleValue.ullVal = 0;
        samples[i].sampleValue.uiVal = (unsigned)llround(v * kinds[type].scale);
    }
    *count = n;
    return gs_leave(NVML_SUCCESS);
}
