/* api_mig.c - MIG devices (a scenario's `mig:`): their handles by index under a GPU in MIG mode,
 * their GPU and compute instance ids, the GPU they belong to, and what the device getters answer
 * for one (name "<GPU name> MIG <profile>", UUID "MIG-...", its memory: its own use and its
 * processes'). A GPU handle is no MIG device, nor is a MIG handle a GPU's: the other getters refuse
 * it as an invalid argument. */
#include "nvml_exports.h"
#include <stdio.h>
#include <string.h>

#define MAX_MIG_DEVICES 7 /* what the driver reports for a GPU in MIG mode (A100, H100) */
#define MIB 1048576.0
#define MAX_PROCS 256

nvmlReturn_t gs_enter_mig(gs_call *c, const char *fn, nvmlDevice_t dev, int *mig)
{
    pthread_mutex_lock(&gs.mu);
    c->gpu = -1;
    if (gs.refcount == 0 || !gs.sc)
        return NVML_ERROR_UNINITIALIZED;
    int gpu = gs_mig_index(dev, mig);
    if (gpu < 0)
        return NVML_ERROR_INVALID_ARGUMENT;
    nvmlReturn_t rc = gs_enter_gpu(c, fn, gpu);
    if (rc == NVML_SUCCESS && gs_mig_index(dev, mig) != gpu) /* started again on another scenario meanwhile */
        rc = NVML_ERROR_INVALID_ARGUMENT;
    return rc;
}

static const sim_mig *mig_of(const gs_call *c, int k)
{
    return &gs.sc->gpus[c->gpu].spec->mig[k];
}

static unsigned mig_count(const gs_call *c)
{
    return (unsigned)gs.sc->gpus[c->gpu].spec->nmig;
}

nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t device, unsigned int *count)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter_dev(&c, __func__, device);
    if (rc == NVML_SUCCESS && !count)
        rc = NVML_ERROR_INVALID_ARGUMENT;
    if (rc == NVML_SUCCESS)
        *count = mig_count(&c) ? MAX_MIG_DEVICES : 0; /* the possible ones; 0 with MIG mode off */
    return gs_leave(rc);
}

nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t device, unsigned int index, nvmlDevice_t *mig)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter_dev(&c, __func__, device);
    if (rc == NVML_SUCCESS && (!mig || index >= MAX_MIG_DEVICES))
        rc = NVML_ERROR_INVALID_ARGUMENT;
    if (rc == NVML_SUCCESS && !mig_count(&c))
        rc = NVML_ERROR_NOT_SUPPORTED; /* MIG mode off */
    if (rc == NVML_SUCCESS && index >= mig_count(&c))
        rc = NVML_ERROR_NOT_FOUND; /* a slot with no MIG device */
    if (rc == NVML_SUCCESS)
        *mig = &gs.migs[c.gpu][index];
    return gs_leave(rc);
}

nvmlReturn_t nvmlDeviceIsMigDeviceHandle(nvmlDevice_t device, unsigned int *isMig)
{
    gs_call c;
    int k;
    if (gs_is_mig_handle(device)) {
        nvmlReturn_t rc = gs_enter_mig(&c, __func__, device, &k);
        if (rc == NVML_SUCCESS && !isMig)
            rc = NVML_ERROR_INVALID_ARGUMENT;
        if (rc == NVML_SUCCESS)
            *isMig = 1;
        return gs_leave(rc);
    }
    nvmlReturn_t rc = gs_enter_dev(&c, __func__, device);
    if (rc == NVML_SUCCESS && !isMig)
        rc = NVML_ERROR_INVALID_ARGUMENT;
    if (rc == NVML_SUCCESS)
        *isMig = 0;
    return gs_leave(rc);
}

/* An id of a MIG device: gi = 1 its GPU instance's, 0 its compute instance's. A GPU's handle is
 * not a MIG device: NOT_SUPPORTED (with MIG mode off) or INVALID_ARGUMENT. */
static nvmlReturn_t instance_id(const char *fn, nvmlDevice_t device, int gi, unsigned int *id)
{
    gs_call c;
    int k;
    if (!gs_is_mig_handle(device)) {
        nvmlReturn_t rc = gs_enter_dev(&c, fn, device);
        if (rc == NVML_SUCCESS)
            rc = mig_count(&c) ? NVML_ERROR_INVALID_ARGUMENT : NVML_ERROR_NOT_SUPPORTED;
        return gs_leave(rc);
    }
    nvmlReturn_t rc = gs_enter_mig(&c, fn, device, &k);
    if (rc == NVML_SUCCESS && !id)
        rc = NVML_ERROR_INVALID_ARGUMENT;
    if (rc == NVML_SUCCESS)
        *id = gi ? mig_of(&c, k)->gi : mig_of(&c, k)->ci;
    return gs_leave(rc);
}

nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t device, unsigned int *id)
{
    return instance_id(__func__, device, 1, id);
}

nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t device, unsigned int *id)
{
    return instance_id(__func__, device, 0, id);
}

nvmlReturn_t nvmlDeviceGetDeviceHandleFromMigDeviceHandle(nvmlDevice_t mig, nvmlDevice_t *device)
{
    gs_call c;
    int k;
    nvmlReturn_t rc = gs_enter_mig(&c, __func__, mig, &k);
    if (rc == NVML_SUCCESS && !device)
        rc = NVML_ERROR_INVALID_ARGUMENT;
    if (rc == NVML_SUCCESS)
        *device = &gs.devs[c.gpu];
    return gs_leave(rc);
}

nvmlReturn_t gs_mig_name(nvmlDevice_t dev, char *name, unsigned int length)
{
    gs_call c;
    int k;
    char text[SIM_NAME_LEN + 40];
    nvmlReturn_t rc = gs_enter_mig(&c, "nvmlDeviceGetName", dev, &k);
    if (rc == NVML_SUCCESS) {
        snprintf(text, sizeof text, "%s MIG %s", gs.sc->gpus[c.gpu].spec->name, mig_of(&c, k)->profile);
        rc = gs_copy_string(text, name, length);
    }
    return gs_leave(rc);
}

/* "MIG-" and a UUID's shape, from the GPU's UUID and the instance ids (FNV-1a), unless given. */
static void mig_uuid(const gs_call *c, int k, char *out, size_t n)
{
    const sim_mig *m = mig_of(c, k);
    if (m->uuid[0]) {
        snprintf(out, n, "%s", m->uuid);
        return;
    }
    unsigned long long h = 1469598103934665603ull;
    char key[SIM_NAME_LEN + 32];
    snprintf(key, sizeof key, "%s/%u/%u", gs.sc->gpus[c->gpu].uuid, m->gi, m->ci);
    for (const char *p = key; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ull;
    unsigned long long h2 = h * 0x9E3779B97F4A7C15ull;
    snprintf(out, n, "MIG-%08llx-%04llx-%04llx-%04llx-%012llx", h >> 32, (h >> 16) & 0xffff, h & 0xffff, h2 >> 48,
             h2 & 0xffffffffffffull);
}

nvmlReturn_t gs_mig_uuid(nvmlDevice_t dev, char *uuid, unsigned int length)
{
    gs_call c;
    int k;
    char text[SIM_NAME_LEN];
    nvmlReturn_t rc = gs_enter_mig(&c, "nvmlDeviceGetUUID", dev, &k);
    if (rc == NVML_SUCCESS) {
        mig_uuid(&c, k, text, sizeof text);
        rc = gs_copy_string(text, uuid, length);
    }
    return gs_leave(rc);
}

nvmlReturn_t gs_mig_memory(nvmlDevice_t dev, unsigned long long *total, unsigned long long *used,
                           unsigned long long *freeb)
{
    gs_call c;
    int k;
    nvmlReturn_t rc = gs_enter_mig(&c, "nvmlDeviceGetMemoryInfo", dev, &k);
    if (rc != NVML_SUCCESS)
        return gs_leave(rc);
    const sim_mig *m = mig_of(&c, k);
    sim_proc_sample ps[MAX_PROCS];
    int n = sim_processes(gs.sc, c.gpu, c.t, ps, MAX_PROCS);
    double in_use = m->used_mib;
    for (int i = 0; i < n && i < MAX_PROCS; i++)
        if (ps[i].gi == (int)m->gi && ps[i].ci == (int)m->ci)
            in_use += ps[i].mem_mib;
    in_use = in_use > m->memory_mib ? m->memory_mib : in_use;
    *total = (unsigned long long)(m->memory_mib * MIB + 0.5);
    *used = (unsigned long long)(in_use * MIB + 0.5);
    *freeb = *total - *used;
    return gs_leave(NVML_SUCCESS);
}
