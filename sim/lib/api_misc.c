/* api_misc.c - modes (persistence, compute, display) and NUMA/CPU affinity. The host's CPUs
 * are split evenly between the NUMA nodes the scenario's GPUs sit on. */
#include "nvml_exports.h"
#include <string.h>
#include <unistd.h>

static nvmlReturn_t enable_state(const char *fn, nvmlDevice_t device, int datacenter_value, nvmlEnableState_t *out)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter_dev(&c, fn, device);
    if (rc == NVML_SUCCESS && !out)
        rc = NVML_ERROR_INVALID_ARGUMENT;
    if (rc == NVML_SUCCESS) {
        int geforce = gs.sc->gpus[c.gpu].spec->p.brand == 5;
        *out = (geforce ? !datacenter_value : datacenter_value) ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
    }
    return gs_leave(rc);
}

/* Datacenter boards run persistence mode and no display; a GeForce the other way round. */
nvmlReturn_t nvmlDeviceGetPersistenceMode(nvmlDevice_t d, nvmlEnableState_t *m)
{
    return enable_state(__func__, d, 1, m);
}
nvmlReturn_t nvmlDeviceGetDisplayActive(nvmlDevice_t d, nvmlEnableState_t *m)
{
    return enable_state(__func__, d, 0, m);
}
nvmlReturn_t nvmlDeviceGetDisplayMode(nvmlDevice_t d, nvmlEnableState_t *m)
{
    return enable_state(__func__, d, 0, m);
}

nvmlReturn_t nvmlDeviceGetComputeMode(nvmlDevice_t device, nvmlComputeMode_t *mode)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter_dev(&c, __func__, device);
    if (rc == NVML_SUCCESS && !mode)
        rc = NVML_ERROR_INVALID_ARGUMENT;
    if (rc == NVML_SUCCESS)
        *mode = 0; /* NVML_COMPUTEMODE_DEFAULT */
    return gs_leave(rc);
}

static int gpu_numa_node(const gs_call *c)
{
    double v = 0;
    sim_value(gs.sc, c->gpu, M_NUMA_NODE, c->t, &v);
    return (int)v;
}

static nvmlReturn_t cpu_affinity(const char *fn, nvmlDevice_t device, unsigned int size, unsigned long *set)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter_dev(&c, fn, device);
    if (rc != NVML_SUCCESS)
        return gs_leave(rc);
    if (!set || size == 0)
        return gs_leave(NVML_ERROR_INVALID_ARGUMENT);
    int nodes = 1;
    for (int g = 0; g < gs.sc->ngpus; g++) {
        gs_call other = {.gpu = g, .t = c.t};
        if (gpu_numa_node(&other) + 1 > nodes)
            nodes = gpu_numa_node(&other) + 1;
    }
    long ncpu = sysconf(_SC_NPROCESSORS_CONF);
    if (ncpu < 1)
        ncpu = 1;
    long node = gpu_numa_node(&c), first = node * ncpu / nodes, last = (node + 1) * ncpu / nodes;
    const unsigned bits = 8 * sizeof(unsigned long);
    memset(set, 0, size * sizeof *set);
    for (long cpu = first; cpu < last && cpu < (long)(size * bits); cpu++)
        set[cpu / bits] |= 1UL << (cpu % bits);
    return gs_leave(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetCpuAffinity(nvmlDevice_t d, unsigned int n, unsigned long *set)
{
    return cpu_affinity(__func__, d, n, set);
}

nvmlReturn_t nvmlDeviceGetCpuAffinityWithinScope(nvmlDevice_t d, unsigned int n, unsigned long *set, unsigned int scope)
{
    (void)scope;
    return cpu_affinity(__func__, d, n, set);
}

nvmlReturn_t nvmlDeviceGetMemoryAffinity(nvmlDevice_t device, unsigned int size, unsigned long *set, unsigned int scope)
{
    gs_call c;
    (void)scope;
    nvmlReturn_t rc = gs_enter_dev(&c, __func__, device);
    if (rc != NVML_SUCCESS)
        return gs_leave(rc);
    if (!set || size == 0)
        return gs_leave(NVML_ERROR_INVALID_ARGUMENT);
    const unsigned bits = 8 * sizeof(unsigned long);
    unsigned node = (unsigned)gpu_numa_node(&c);
    memset(set, 0, size * sizeof *set);
    if (node < size * bits)
        set[node / bits] |= 1UL << (node % bits);
    return gs_leave(NVML_SUCCESS);
}

/* Only GPUs that are NUMA nodes themselves (Grace Hopper C2C) have one: not simulated. */
nvmlReturn_t nvmlDeviceGetNumaNodeId(nvmlDevice_t device, unsigned int *node)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter_dev(&c, __func__, device);
    (void)node;
    return gs_leave(rc == NVML_SUCCESS ? NVML_ERROR_NOT_SUPPORTED : rc);
}
