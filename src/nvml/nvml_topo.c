/* nvml_topo.c - where a GPU sits, for job placement: its CPU affinity and NUMA node, and its PCIe
 * path and NVLink to every other GPU (nvmlDeviceGetCpuAffinity, GetMemoryAffinity,
 * GetTopologyCommonAncestor, GetP2PStatus); and gpusim's clock. */
#include <string.h>
#include "nvml_priv.h"

static topo_path path_of(nvmlGpuTopologyLevel_t level)
{
    switch (level) {
    case NVML_TOPOLOGY_INTERNAL:
    case NVML_TOPOLOGY_SINGLE: return TOPO_PATH_SWITCH;
    case NVML_TOPOLOGY_MULTIPLE: return TOPO_PATH_BRIDGES;
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

#define NV_MAX_NVLINKS 18 /* NVML_NVLINK_MAX_LINKS */

/* The GPU's active NVLinks: how many end at an NVSwitch, and how many at each other GPU (matched by
 * its PCI position). A GPU without NVLink answers NOT_SUPPORTED for link 0 and is asked no more. */
static int read_links(backend *b, nv_gpu *g, unsigned char direct[GW_TOPO_MAX_GPUS])
{
    const nvml_fns *f = &b->fn;
    int to_switch = 0;
    if (!f->GetNvLinkState)
        return 0;
    for (unsigned l = 0; l < NV_MAX_NVLINKS; l++) {
        nvmlEnableState_t on = NVML_FEATURE_DISABLED;
        if (f->GetNvLinkState(g->dev, l, &on) != NVML_SUCCESS) {
            if (l == 0)
                break;
            continue;
        }
        if (on != NVML_FEATURE_ENABLED)
            continue;
        nvmlIntNvLinkDeviceType_t type = NVML_NVLINK_DEVICE_TYPE_UNKNOWN;
        if (f->GetNvLinkRemoteDeviceType && f->GetNvLinkRemoteDeviceType(g->dev, l, &type) == NVML_SUCCESS &&
            type == NVML_NVLINK_DEVICE_TYPE_SWITCH) {
            to_switch++;
            continue;
        }
        nvmlPciInfo_t pci;
        memset(&pci, 0, sizeof pci);
        if (!f->GetNvLinkRemotePciInfo || f->GetNvLinkRemotePciInfo(g->dev, l, &pci) != NVML_SUCCESS)
            continue;
        for (int i = 0; i < b->count && i < GW_TOPO_MAX_GPUS; i++) {
            nv_gpu *p = &b->gpus[i];
            if (p != g && p->have_pci && p->pci_domain == pci.domain && p->pci_bus == pci.bus &&
                p->pci_device == pci.device && direct[i] < 255)
                direct[i]++;
        }
    }
    return to_switch;
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
    unsigned char direct[GW_TOPO_MAX_GPUS] = {0};
    int to_switch = read_links(b, g, direct);
    for (int i = 0; i < b->count && i < GW_TOPO_MAX_GPUS; i++) {
        nv_gpu *p = &b->gpus[i];
        if (i == gpu || nv_probe(b, p) != GPU_OK)
            continue;
        nvmlGpuTopologyLevel_t level;
        if (b->fn.GetTopologyCommonAncestor && b->fn.GetTopologyCommonAncestor(g->dev, p->dev, &level) == NVML_SUCCESS)
            out->path[i] = (unsigned char)path_of(level);
        nvmlGpuP2PStatus_t st;
        if (b->fn.GetP2PStatus && b->fn.GetP2PStatus(g->dev, p->dev, NVML_P2P_CAPS_INDEX_NVLINK, &st) == NVML_SUCCESS)
            out->nvlink[i] = st != NVML_P2P_STATUS_OK ? 0
                             : direct[i] + to_switch > 0
                                 ? (unsigned char)(direct[i] + to_switch > 255 ? 255 : direct[i] + to_switch)
                                 : 1; /* peer-to-peer over NVLink, links not told */
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
