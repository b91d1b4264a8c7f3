/* api_topology.c - where GPUs sit for job placement: NUMA node, CPU and memory affinity, the
 * GPUs near a CPU or a GPU, the PCIe level between two GPUs and their peer-to-peer status
 * (the scenario's `topology:`, see sim/core/topology.c). */
#include "nvml_exports.h"
#include "topology.h"
#include <string.h>

static int valid_level(unsigned level)
{
    return level == NVML_TOPOLOGY_INTERNAL || level == NVML_TOPOLOGY_SINGLE || level == NVML_TOPOLOGY_MULTIPLE ||
           level == NVML_TOPOLOGY_HOSTBRIDGE || level == NVML_TOPOLOGY_NODE || level == NVML_TOPOLOGY_SYSTEM;
}

static nvmlReturn_t cpu_affinity(const char *fn, nvmlDevice_t device, unsigned int size, unsigned long *set,
                                 unsigned scope)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter_dev(&c, fn, device);
    if (rc != NVML_SUCCESS)
        return gs_leave(rc);
    if (!set || size == 0 || scope > NVML_AFFINITY_SCOPE_SOCKET)
        return gs_leave(NVML_ERROR_INVALID_ARGUMENT);
    /* one NUMA node per socket: both scopes give the node's CPUs */
    topo_node_cpus(gs.sc, gs.sc->topo.numa[c.gpu], set, size);
    return gs_leave(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetCpuAffinity(nvmlDevice_t d, unsigned int n, unsigned long *set)
{
    return cpu_affinity(__func__, d, n, set, NVML_AFFINITY_SCOPE_NODE);
}

nvmlReturn_t nvmlDeviceGetCpuAffinityWithinScope(nvmlDevice_t d, unsigned int n, unsigned long *set,
                                                 nvmlAffinityScope_t scope)
{
    return cpu_affinity(__func__, d, n, set, scope);
}

nvmlReturn_t nvmlDeviceGetMemoryAffinity(nvmlDevice_t device, unsigned int size, unsigned long *set,
                                         nvmlAffinityScope_t scope)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter_dev(&c, __func__, device);
    if (rc != NVML_SUCCESS)
        return gs_leave(rc);
    if (!set || size == 0 || scope > NVML_AFFINITY_SCOPE_SOCKET)
        return gs_leave(NVML_ERROR_INVALID_ARGUMENT);
    const unsigned bits = 8 * sizeof(unsigned long);
    unsigned node = (unsigned)gs.sc->topo.numa[c.gpu];
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

/* The count protocol of the GPU-set calls: *count 0 asks for the number; otherwise up to
 * *count handles are written and *count is set to how many were. */
static nvmlReturn_t hand_out(const int *gpus, unsigned n, unsigned int *count, nvmlDevice_t *array)
{
    if (*count == 0) {
        *count = n;
        return NVML_SUCCESS;
    }
    if (!array)
        return NVML_ERROR_INVALID_ARGUMENT;
    unsigned k = n < *count ? n : *count;
    for (unsigned i = 0; i < k; i++)
        array[i] = &gs.devs[gpus[i]];
    *count = k;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlSystemGetTopologyGpuSet(unsigned int cpu, unsigned int *count, nvmlDevice_t *array)
{
    gs_call c;
    int gpus[SIM_MAX_GPUS];
    unsigned n = 0;
    nvmlReturn_t rc = gs_enter(&c, __func__);
    if (rc != NVML_SUCCESS)
        return gs_leave(rc);
    if (!count)
        return gs_leave(NVML_ERROR_INVALID_ARGUMENT);
    for (int g = 0; g < gs.sc->ngpus; g++)
        if (topo_cpu_in_node(gs.sc, gs.sc->topo.numa[g], cpu))
            gpus[n++] = g;
    return gs_leave(hand_out(gpus, n, count, array));
}

/* GPUs whose path to the device is no longer than level (SYSTEM: every other GPU). */
nvmlReturn_t nvmlDeviceGetTopologyNearestGpus(nvmlDevice_t device, nvmlGpuTopologyLevel_t level, unsigned int *count,
                                              nvmlDevice_t *array)
{
    gs_call c;
    int gpus[SIM_MAX_GPUS];
    unsigned n = 0;
    nvmlReturn_t rc = gs_enter_dev(&c, __func__, device);
    if (rc != NVML_SUCCESS)
        return gs_leave(rc);
    if (!count || !valid_level((unsigned)level))
        return gs_leave(NVML_ERROR_INVALID_ARGUMENT);
    for (int g = 0; g < gs.sc->ngpus; g++)
        if (g != c.gpu && topo_level(gs.sc, c.gpu, g) <= (int)level)
            gpus[n++] = g;
    return gs_leave(hand_out(gpus, n, count, array));
}

/* The second device of a pair: its index, or an error (bad handle, lost, the same GPU). */
static nvmlReturn_t second_gpu(const gs_call *c, nvmlDevice_t dev, int *out)
{
    int idx = gs_dev_index(dev);
    if (idx < 0 || idx == c->gpu)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (sim_lost(gs.sc, idx, c->t))
        return NVML_ERROR_GPU_IS_LOST;
    *out = idx;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetTopologyCommonAncestor(nvmlDevice_t d1, nvmlDevice_t d2, nvmlGpuTopologyLevel_t *path)
{
    gs_call c;
    int other = -1;
    nvmlReturn_t rc = gs_enter_dev(&c, __func__, d1);
    if (rc == NVML_SUCCESS)
        rc = second_gpu(&c, d2, &other);
    if (rc == NVML_SUCCESS && !path)
        rc = NVML_ERROR_INVALID_ARGUMENT;
    if (rc == NVML_SUCCESS)
        *path = (nvmlGpuTopologyLevel_t)topo_level(gs.sc, c.gpu, other);
    return gs_leave(rc);
}

nvmlReturn_t nvmlDeviceGetP2PStatus(nvmlDevice_t d1, nvmlDevice_t d2, nvmlGpuP2PCapsIndex_t caps,
                                    nvmlGpuP2PStatus_t *status)
{
    gs_call c;
    int other = -1, st = -1;
    nvmlReturn_t rc = gs_enter_dev(&c, __func__, d1);
    if (rc == NVML_SUCCESS)
        rc = second_gpu(&c, d2, &other);
    if (rc == NVML_SUCCESS && (!status || (st = topo_p2p(gs.sc, c.gpu, other, (unsigned)caps)) < 0))
        rc = NVML_ERROR_INVALID_ARGUMENT;
    if (rc == NVML_SUCCESS)
        *status = (nvmlGpuP2PStatus_t)st;
    return gs_leave(rc);
}
