/* api_procs.c - running process lists (plain/_v2/_v3, the two-call protocol), per-process
 * utilization samples and the process detail list. */
#include "nvml_exports.h"
#include <stdint.h>
#include <string.h>
#include <time.h>

#define MAX_PROCS 256
#define NO_INSTANCE 0xFFFFFFFFu

/* Active processes of c's GPU having any of the type bits; returns the count. */
static int list_procs(const gs_call *c, unsigned type_mask, sim_proc_sample *out)
{
    sim_proc_sample all[MAX_PROCS];
    int n = sim_processes(gs.sc, c->gpu, c->t, all, MAX_PROCS), k = 0;
    for (int i = 0; i < n && i < MAX_PROCS; i++)
        if (all[i].type & type_mask)
            out[k++] = all[i];
    return k;
}

static void fill_procs(const sim_proc_sample *ps, unsigned n, void *infos, size_t stride)
{
    for (unsigned i = 0; i < n; i++) {
        unsigned char *rec = (unsigned char *)infos + i * stride;
        unsigned long long bytes = (unsigned long long)(ps[i].mem_mib * 1048576.0 + 0.5);
        if (stride == sizeof(nvmlProcessInfo_t)) {
            nvmlProcessInfo_t *p = (nvmlProcessInfo_t *)rec;
            p->pid = ps[i].pid;
            p->usedGpuMemory = bytes;
            p->gpuInstanceId = ps[i].gi >= 0 ? (unsigned)ps[i].gi : NO_INSTANCE; /* its MIG device, if any */
            p->computeInstanceId = ps[i].gi >= 0 ? (unsigned)ps[i].ci : NO_INSTANCE;
        } else {
            nvmlProcessInfo_v1_t *p = (nvmlProcessInfo_v1_t *)rec;
            p->pid = ps[i].pid;
            p->usedGpuMemory = bytes;
        }
    }
}

/* stride: 16 for the plain functions (pid, memory), 24 for _v2/_v3 (plus instance ids). */
static nvmlReturn_t running(const char *fn, nvmlDevice_t device, unsigned type_mask, unsigned int *count, void *infos,
                            size_t stride)
{
    gs_call c;
    sim_proc_sample ps[MAX_PROCS];
    nvmlReturn_t rc = gs_enter_dev(&c, fn, device);
    if (rc != NVML_SUCCESS)
        return gs_leave(rc);
    if (!count)
        return gs_leave(NVML_ERROR_INVALID_ARGUMENT);
    unsigned n = (unsigned)list_procs(&c, type_mask, ps), asked = *count;
    if (gs_count_fault(&c, fn, asked, count, &rc)) {
        /* size games: a wrong count; at most `asked` records written */
        if (rc == NVML_SUCCESS && infos)
            fill_procs(ps, n < asked ? n : asked, infos, stride);
        return gs_leave(rc);
    }
    if (n == 0) {
        *count = 0;
        return gs_leave(NVML_SUCCESS);
    }
    if (*count < n) {
        *count = n;
        return gs_leave(NVML_ERROR_INSUFFICIENT_SIZE);
    }
    if (!infos)
        return gs_leave(NVML_ERROR_INVALID_ARGUMENT);
    fill_procs(ps, n, infos, stride);
    *count = n;
    return gs_leave(NVML_SUCCESS);
}

#define V1 sizeof(nvmlProcessInfo_v1_t)
#define V2 sizeof(nvmlProcessInfo_t)
#define C SIM_PROC_COMPUTE
#define G SIM_PROC_GRAPHICS

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t d, unsigned int *n, nvmlProcessInfo_v1_t *p)
{
    return running(__func__, d, C, n, p, V1);
}
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v2(nvmlDevice_t d, unsigned int *n, nvmlProcessInfo_t *p)
{
    return running(__func__, d, C, n, p, V2);
}
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t d, unsigned int *n, nvmlProcessInfo_t *p)
{
    return running(__func__, d, C, n, p, V2);
}
nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses(nvmlDevice_t d, unsigned int *n, nvmlProcessInfo_v1_t *p)
{
    return running(__func__, d, G, n, p, V1);
}
nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v2(nvmlDevice_t d, unsigned int *n, nvmlProcessInfo_t *p)
{
    return running(__func__, d, G, n, p, V2);
}
nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v3(nvmlDevice_t d, unsigned int *n, nvmlProcessInfo_t *p)
{
    return running(__func__, d, G, n, p, V2);
}
/* MPS servers are not simulated: the lists are always empty. */
nvmlReturn_t nvmlDeviceGetMPSComputeRunningProcesses(nvmlDevice_t d, unsigned int *n, nvmlProcessInfo_v1_t *p)
{
    return running(__func__, d, 0, n, p, V1);
}
nvmlReturn_t nvmlDeviceGetMPSComputeRunningProcesses_v2(nvmlDevice_t d, unsigned int *n, nvmlProcessInfo_t *p)
{
    return running(__func__, d, 0, n, p, V2);
}
nvmlReturn_t nvmlDeviceGetMPSComputeRunningProcesses_v3(nvmlDevice_t d, unsigned int *n, nvmlProcessInfo_t *p)
{
    return running(__func__, d, 0, n, p, V2);
}

#ifndef GPUSIM_MINIMAL
static unsigned long long realtime_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (unsigned long long)ts.tv_sec * 1000000ULL + (unsigned long long)ts.tv_nsec / 1000ULL;
}

static void fill_util(const sim_proc_sample *ps, int k, nvmlProcessUtilizationSample_t *samples, unsigned long long now)
{
    for (int i = 0; i < k; i++)
        samples[i] = (nvmlProcessUtilizationSample_t){.pid = ps[i].pid,
                                                      .timeStamp = now,
                                                      .smUtil = (unsigned)ps[i].sm,
                                                      .memUtil = (unsigned)ps[i].mem,
                                                      .encUtil = (unsigned)ps[i].enc,
                                                      .decUtil = (unsigned)ps[i].dec};
}

/* One sample per active process with a non-zero utilization; NOT_FOUND when there is none. */
nvmlReturn_t nvmlDeviceGetProcessUtilization(nvmlDevice_t device, nvmlProcessUtilizationSample_t *samples,
                                             unsigned int *count, unsigned long long lastSeen)
{
    gs_call c;
    sim_proc_sample ps[MAX_PROCS];
    nvmlReturn_t rc = gs_enter_dev(&c, __func__, device);
    if (rc != NVML_SUCCESS)
        return gs_leave(rc);
    if (!count)
        return gs_leave(NVML_ERROR_INVALID_ARGUMENT);
    if (gs.sc->gpus[c.gpu].spec->nmig)
        return gs_leave(NVML_ERROR_NOT_SUPPORTED); /* none in MIG mode (nvidia-smi pmon prints -) */
    unsigned long long now = realtime_us();
    int n = list_procs(&c, C | G, ps), k = 0;
    for (int i = 0; i < n; i++) {
        const sim_proc_sample *p = &ps[i];
        if (now <= lastSeen || (p->sm <= 0 && p->mem <= 0 && p->enc <= 0 && p->dec <= 0))
            continue;
        ps[k++] = *p;
    }
    unsigned asked = samples ? *count : 0;
    if (gs_count_fault(&c, __func__, asked, count, &rc)) {
        /* size games: a wrong count, at most `asked` samples written */
        if (rc == NVML_SUCCESS && samples)
            fill_util(ps, (unsigned)k < asked ? k : (int)asked, samples, now);
        return gs_leave(rc);
    }
    if (k == 0)
        return gs_leave(NVML_ERROR_NOT_FOUND);
    if (!samples || *count < (unsigned)k) {
        *count = (unsigned)k;
        return gs_leave(NVML_ERROR_INSUFFICIENT_SIZE);
    }
    fill_util(ps, k, samples, now);
    *count = (unsigned)k;
    return gs_leave(NVML_SUCCESS);
}
#endif

nvmlReturn_t nvmlDeviceGetRunningProcessDetailList(nvmlDevice_t device, nvmlProcessDetailList_t *plist)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter_dev(&c, __func__, device);
    (void)plist;
    return gs_leave(rc == NVML_SUCCESS ? NVML_ERROR_NOT_SUPPORTED : rc);
}
