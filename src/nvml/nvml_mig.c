/* nvml_mig.c - the MIG devices of a GPU in MIG mode (as its reads see it: no call at all with MIG
 * mode off): nvmlDeviceGetMaxMigDeviceCount slots, each
 * asked for a MIG device handle (NOT_FOUND: an empty slot), and of each its GPU and compute instance
 * ids, UUID, profile (the end of its name: "NVIDIA H100 80GB HBM3 MIG 3g.40gb") and memory. MIG
 * mode off, or a driver without MIG, is no MIG device and no error. */
#include "nvml_priv.h"
#include <stdio.h>
#include <string.h>

/* The profile from a MIG device's name: what follows its last "MIG ". */
static void profile_of(const char *name, char *out, size_t n)
{
    const char *p = NULL;
    for (const char *s = strstr(name, "MIG "); s; s = strstr(s + 1, "MIG "))
        p = s + 4;
    snprintf(out, n, "%s", p ? p : "");
}

static void read_memory(backend *b, nv_gpu *g, nvmlDevice_t h, gpu_mig *m)
{
    const nvml_fns *f = &b->fn;
    nvmlReturn_t rc = NVML_ERROR_FUNCTION_NOT_FOUND;
    if (f->GetMemoryInfoV2 && !g->mem_v1) {
        nvmlMemory_v2_t v2 = {.version = nvmlMemory_v2};
        rc = f->GetMemoryInfoV2(h, &v2);
        if (rc == NVML_SUCCESS) {
            m->mem_total_mib = (double)v2.total / 1048576.0;
            m->mem_used_mib = (double)v2.used / 1048576.0;
        }
    }
    if (rc != NVML_SUCCESS && f->GetMemoryInfo) {
        nvmlMemory_t v1;
        rc = f->GetMemoryInfo(h, &v1);
        if (rc == NVML_SUCCESS) {
            m->mem_total_mib = (double)v1.total / 1048576.0;
            m->mem_used_mib = (double)v1.used / 1048576.0;
        }
    }
    m->has_mem = rc == NVML_SUCCESS;
    if (rc != NVML_SUCCESS && !nv_refused(rc))
        nv_count_error(b, NV_GetMemoryInfo, rc);
}

/* One MIG device's identity and memory. */
static void read_one(backend *b, nv_gpu *g, nvmlDevice_t h, gpu_mig *m)
{
    const nvml_fns *f = &b->fn;
    char name[GW_STR_LEN] = "";
    if (f->GetGpuInstanceId && f->GetGpuInstanceId(h, &m->gi) != NVML_SUCCESS)
        m->gi = 0;
    if (f->GetComputeInstanceId && f->GetComputeInstanceId(h, &m->ci) != NVML_SUCCESS)
        m->ci = 0;
    if (f->GetName(h, name, sizeof name) == NVML_SUCCESS)
        profile_of(name, m->profile, sizeof m->profile);
    if (f->GetUUID && f->GetUUID(h, m->uuid, sizeof m->uuid) != NVML_SUCCESS)
        m->uuid[0] = 0;
    m->uuid[sizeof m->uuid - 1] = 0;
    read_memory(b, g, h, m);
}

/* MIG mode: as the GPU's reads last saw it (no call), else asked once. */
static int mig_mode(backend *b, nv_gpu *g)
{
    unsigned cur = 0, pending = 0;
    if (!g->mig_known && b->fn.GetMigMode) {
        nvmlReturn_t rc = b->fn.GetMigMode(g->dev, &cur, &pending);
        if (rc == NVML_SUCCESS || nv_refused(rc)) {
            g->mig_known = 1;
            g->mig_on = rc == NVML_SUCCESS && cur != 0;
        }
    }
    return g->mig_on;
}

static int read_mig(backend *b, nv_gpu *g, gpu_mig *out, int max)
{
    const nvml_fns *f = &b->fn;
    if (!f->GetMaxMigDeviceCount || !f->GetMigDeviceHandleByIndex || nv_probe(b, g) != GPU_OK || !mig_mode(b, g))
        return 0; /* no MIG device, and no call for them, with MIG mode off */
    unsigned slots = 0;
    nvmlReturn_t rc = f->GetMaxMigDeviceCount(g->dev, &slots);
    if (rc != NVML_SUCCESS) {
        if (rc == NVML_ERROR_GPU_IS_LOST)
            g->lost = 1;
        else if (!nv_refused(rc))
            nv_count_error(b, NV_GetMaxMigDeviceCount, rc);
        return rc == NVML_ERROR_GPU_IS_LOST ? -1 : 0;
    }
    int n = 0;
    for (unsigned i = 0; i < slots && n < max; i++) {
        nvmlDevice_t h = NULL;
        rc = f->GetMigDeviceHandleByIndex(g->dev, i, &h);
        if (rc == NVML_ERROR_NOT_FOUND || nv_refused(rc))
            continue;
        if (rc != NVML_SUCCESS || !h) {
            nv_count_error(b, NV_GetMigDeviceHandleByIndex, rc == NVML_SUCCESS ? NVML_ERROR_UNKNOWN : rc);
            continue;
        }
        gpu_mig *m = &out[n++];
        memset(m, 0, sizeof *m);
        m->index = (int)i;
        read_one(b, g, h, m);
    }
    return n;
}

int nv_read_mig_op(backend *b, int gpu, gpu_mig *out, int max)
{
    if (gpu < 0 || gpu >= b->count || max < 0)
        return -1;
    nv_gpu *g = &b->gpus[gpu];
    pthread_mutex_lock(&g->lock);
    int n = read_mig(b, g, out, max);
    pthread_mutex_unlock(&g->lock);
    return n;
}
