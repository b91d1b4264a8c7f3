/* nvml_topo.c - where a GPU sits, for job placement: its CPU affinity and NUMA node, and its PCIe
 * path and NVLink to every other GPU (nvmlDeviceGetCpuAffinity, GetMemoryAffinity,
 * GetTopologyCommonAncestor, GetP2PStatus); and gpusim's clock. */
#include <string.h>
#include "nvml_priv.h"

static topo_path path_of(nvmlGpuTopologyLevel_t level)
{
    switch (level) {
    case NVML_TOPOLOGY_INTERNAL:
    case NVML_TOPOLOGY_SINGLE:
    case NVML_TOPOLOGY_MULTIPLE: return TOPO_PATH_SWITCH;
    case NVML_TOPOLOGY_HOSTBRIDGE: return TOPO_PATH_HOSTBRIDGE;
    case NVML_TOPOLOGY_NODE: return TOPO_PATH_NODE;
    case NVML_TOPOLOGY_SYSTEM: return TOPO_PATH_SYSTEM;
    default: return TOPO_PATH_UNKNOWN;
    }
}

static void read_cpus(backend *b, nv_gpu *g, gpu_topology *out)
{
    enum { WORDS = GW_TOPO_MAX_CPUS / (8 * sizeof(unsigned long)) };
    unsigned long set[WORDS] = {0};
    const unsigned bits = 8 * sizeof set[0];
    if (!b->fn.GetCpuAffinity)
        return;
    nvmlReturn_t rc = b->fn.GetCpuAffinity(g->dev, WORDS, set);
    if (rc != NVML_SUCCESS) {
        if (rc != NVML_ERROR_NOT_SUPPORTED)
            nv_count_error(b, NV_GetCpuAffinity, rc);
        return;
    }
    for (unsigned c = 0; c < GW_TOPO_MAX_CPUS; c++)
        if (set[c / bits] & (1UL << (c % bits))) {
            out->cpus[c / 64] |= 1ULL << (c % 64);
            out->has_cpus = 1;
        }
}

/* The one NUMA node of the GPU's memory affinity, or -1. */
static int read_node(backend *b, nv_gpu *g)
{
    enum { WORDS = 4 };
    unsigned long set[WORDS] = {0};
    const unsigned bits = 8 * sizeof set[0];
    if (!b->fn.GetMemoryAffinity || b->fn.GetMemoryAffinity(g->dev, WORDS, set, 0 /* NODE */) != NVML_SUCCESS)
        return -1;
    int node = -1;
    for (unsigned i = 0; i < WORDS * bits; i++)
        if (set[i / bits] & (1UL << (i % bits))) {
            if (node >= 0)
                return -1;
            node = (int)i;
        }
    return node;
}

int nv_read_topology(backend *b, int gpu, gpu_topology *out)
{
    if (gpu < 0 || gpu >= b->count)
        return -1;
    memset(out, 0, sizeof *out);
    out->numa_node = -1;
    pthread_mutex_lock(&b->lock);
    nv_gpu *g = &b->gpus[gpu];
    if (nv_probe(b, g) != GPU_OK) {
        pthread_mutex_unlock(&b->lock);
        return -1;
    }
    read_cpus(b, g, out);
    out->numa_node = read_node(b, g);
    for (int i = 0; i < b->count && i < GW_TOPO_MAX_GPUS; i++) {
        nv_gpu *p = &b->gpus[i];
        if (i == gpu || nv_probe(b, p) != GPU_OK)
            continue;
        nvmlGpuTopologyLevel_t level;
        if (b->fn.GetTopologyCommonAncestor && b->fn.GetTopologyCommonAncestor(g->dev, p->dev, &level) == NVML_SUCCESS)
            out->path[i] = (unsigned char)path_of(level);
        nvmlGpuP2PStatus_t st;
        if (b->fn.GetP2PStatus && b->fn.GetP2PStatus(g->dev, p->dev, NVML_P2P_CAPS_INDEX_NVLINK, &st) == NVML_SUCCESS)
            out->nvlink[i] = st == NVML_P2P_STATUS_OK;
    }
    pthread_mutex_unlock(&b->lock);
    return 0;
}

double nv_get_time(backend *b)
{
    if (!b->fn.GpusimGetTime)
        return -1;
    pthread_mutex_lock(&b->lock);
    double t = b->fn.GpusimGetTime();
    pthread_mutex_unlock(&b->lock);
    return t;
}
