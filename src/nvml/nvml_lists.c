/* nvml_lists.c - backend_ops.read_list: a GPU's retired pages (GetRetiredPages_v2, or the plain call
 * without times), the driver's sample buffers (GetSamples: power, utilizations, clocks) and its
 * supported clocks (GetSupportedMemoryClocks, GetSupportedGraphicsClocks). One-shot reads for the
 * -q report: each asks for the count, then fills a bounded buffer. */
#include <stdlib.h>
#include <string.h>
#include "nvml_priv.h"

#define NV_LIST_MAX 4096 /* items a list gives at most, whatever the driver says */

static int retired(backend *b, nv_gpu *g, unsigned cause, gpu_list_item *out, int max)
{
    const nvml_fns *f = &b->fn;
    unsigned n = 0;
    nvmlReturn_t rc = f->GetRetiredPagesV2 ? f->GetRetiredPagesV2(g->dev, cause, &n, NULL, NULL)
                      : f->GetRetiredPages ? f->GetRetiredPages(g->dev, cause, &n, NULL)
                                           : NVML_ERROR_FUNCTION_NOT_FOUND;
    if (rc != NVML_SUCCESS && rc != NVML_ERROR_INSUFFICIENT_SIZE)
        return -1;
    if (n == 0)
        return 0;
    if (n > (unsigned)max)
        n = (unsigned)max;
    unsigned long long *addr = calloc(n, sizeof *addr), *ts = calloc(n, sizeof *ts);
    int got = -1;
    if (addr && ts) {
        rc = f->GetRetiredPagesV2 ? f->GetRetiredPagesV2(g->dev, cause, &n, addr, ts)
                                  : f->GetRetiredPages(g->dev, cause, &n, addr);
        if (rc == NVML_SUCCESS) {
            got = n > (unsigned)max ? max : (int)n;
            for (int i = 0; i < got; i++)
                out[i] = (gpu_list_item){(double)addr[i], ts[i] * 1000000ull}; /* seconds -> us */
        }
    }
    free(addr);
    free(ts);
    return got;
}

static double sample_value(nvmlValueType_t type, const nvmlValue_t *v)
{
    switch (type) {
    case NVML_VALUE_TYPE_DOUBLE: return v->dVal;
    case NVML_VALUE_TYPE_UNSIGNED_LONG: return (double)v->ulVal;
    case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG: return (double)v->ullVal;
    case NVML_VALUE_TYPE_SIGNED_LONG_LONG: return (double)v->sllVal;
    case NVML_VALUE_TYPE_SIGNED_INT: return v->siVal;
    case NVML_VALUE_TYPE_UNSIGNED_SHORT: return v->usVal;
    default: return v->uiVal;
    }
}

static int samples(backend *b, nv_gpu *g, nvmlSamplingType_t type, double scale, gpu_list_item *out, int max)
{
    nvmlValueType_t vt = NVML_VALUE_TYPE_UNSIGNED_INT;
    unsigned n = 0;
    if (!b->fn.GetSamples)
        return -1;
    nvmlReturn_t rc = b->fn.GetSamples(g->dev, type, 0, &vt, &n, NULL);
    if (rc == NVML_ERROR_NOT_FOUND)
        return 0;
    if (rc != NVML_SUCCESS)
        return -1;
    if (n > (unsigned)max)
        n = (unsigned)max;
    if (n == 0)
        return 0;
    nvmlSample_t *buf = calloc(n, sizeof *buf);
    if (!buf)
        return -1;
    rc = b->fn.GetSamples(g->dev, type, 0, &vt, &n, buf);
    int got = rc == NVML_SUCCESS ? (n > (unsigned)max ? max : (int)n) : rc == NVML_ERROR_NOT_FOUND ? 0 : -1;
    for (int i = 0; i < got; i++)
        out[i] = (gpu_list_item){nv_scaled(sample_value(vt, &buf[i].sampleValue), scale), buf[i].timeStamp};
    free(buf);
    return got;
}

static int clocks(backend *b, nv_gpu *g, int graphics, unsigned mem, gpu_list_item *out, int max)
{
    const nvml_fns *f = &b->fn;
    unsigned n = (unsigned)(max < NV_LIST_MAX ? max : NV_LIST_MAX);
    unsigned *mhz = calloc(n ? n : 1, sizeof *mhz);
    if (!mhz)
        return -1;
    nvmlReturn_t rc = graphics ? (f->GetSupportedGraphicsClocks ? f->GetSupportedGraphicsClocks(g->dev, mem, &n, mhz)
                                                                : NVML_ERROR_FUNCTION_NOT_FOUND)
                               : (f->GetSupportedMemoryClocks ? f->GetSupportedMemoryClocks(g->dev, &n, mhz)
                                                              : NVML_ERROR_FUNCTION_NOT_FOUND);
    int got = -1;
    if (rc == NVML_SUCCESS) {
        got = n > (unsigned)max ? max : (int)n;
        for (int i = 0; i < got; i++)
            out[i] = (gpu_list_item){mhz[i], 0};
    }
    free(mhz);
    return got;
}

int nv_read_list(backend *b, int gpu, gpu_list_kind kind, double arg, gpu_list_item *out, int max)
{
    if (gpu < 0 || gpu >= b->count || max <= 0)
        return -1;
    if (max > NV_LIST_MAX)
        max = NV_LIST_MAX;
    nv_gpu *g = &b->gpus[gpu];
    pthread_mutex_lock(&g->lock);
    int n = -1;
    if (nv_probe(b, g) == GPU_OK) {
        switch (kind) {
        case GPU_LIST_RETIRED_SBE:
            n = retired(b, g, NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS, out, max);
            break;
        case GPU_LIST_RETIRED_DBE: n = retired(b, g, NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR, out, max); break;
        case GPU_LIST_SAMPLES_POWER: n = samples(b, g, NVML_TOTAL_POWER_SAMPLES, 0.001, out, max); break; /* mW */
        case GPU_LIST_SAMPLES_GPU_UTIL: n = samples(b, g, NVML_GPU_UTILIZATION_SAMPLES, 1, out, max); break;
        case GPU_LIST_SAMPLES_MEM_UTIL: n = samples(b, g, NVML_MEMORY_UTILIZATION_SAMPLES, 1, out, max); break;
        case GPU_LIST_SAMPLES_ENC_UTIL: n = samples(b, g, NVML_ENC_UTILIZATION_SAMPLES, 1, out, max); break;
        case GPU_LIST_SAMPLES_DEC_UTIL: n = samples(b, g, NVML_DEC_UTILIZATION_SAMPLES, 1, out, max); break;
        case GPU_LIST_SAMPLES_SM_CLOCK: n = samples(b, g, NVML_PROCESSOR_CLK_SAMPLES, 1, out, max); break;
        case GPU_LIST_SAMPLES_MEM_CLOCK: n = samples(b, g, NVML_MEMORY_CLK_SAMPLES, 1, out, max); break;
        case GPU_LIST_MEM_CLOCKS: n = clocks(b, g, 0, 0, out, max); break;
        case GPU_LIST_GR_CLOCKS: n = clocks(b, g, 1, arg > 0 ? (unsigned)arg : 0, out, max); break;
        }
    }
    pthread_mutex_unlock(&g->lock);
    return n;
}
