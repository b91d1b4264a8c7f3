/* nvml_info.c - a GPU's identity strings and its static values (limits, maxima, topology), read once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nvml_priv.h"
#include "util.h"

typedef nvmlReturn_t (*nv_str_fn)(nvmlDevice_t, char *, unsigned int);

static void set_str(gpu_info *info, metric_id id, const char *s)
{
    gw_strlcpy(info->str[id], s, GW_STR_LEN);
    mset_add(&info->str_present, id);
}

static void read_str(nv_rd *r, gpu_info *info, nv_sym sym, nv_str_fn fn, metric_id id)
{
    char buf[GW_STR_LEN];
    if (!fn || r->g->lost || mset_has(&r->g->unsup, id))
        return;
    if (nv_check1(r, sym, fn(r->g->dev, buf, sizeof buf), id)) {
        buf[sizeof buf - 1] = 0;
        set_str(info, id, buf);
    }
}

static void read_pci(nv_rd *r, gpu_info *info)
{
    static const metric_id ids[] = {M_PCI_BUS_ID, M_PCI_DEVICE_ID, M_PCI_SUB_DEVICE_ID};
    nvmlPciInfo_t pci;
    if (!r->b->fn.GetPciInfo || r->g->lost || mset_has(&r->g->unsup, M_PCI_BUS_ID))
        return;
    memset(&pci, 0, sizeof pci);
    if (!nv_check(r, NV_GetPciInfo, r->b->fn.GetPciInfo(r->g->dev, &pci), ids, 3))
        return;
    pci.busId[sizeof pci.busId - 1] = 0;
    char s[GW_STR_LEN];
    if (pci.busId[0])
        set_str(info, M_PCI_BUS_ID, pci.busId);
    else { /* the plain (v1) call fills only the legacy 4-digit-domain id: format NVML's 8-digit form */
        snprintf(s, sizeof s, "%08X:%02X:%02X.0", pci.domain, pci.bus, pci.device);
        set_str(info, M_PCI_BUS_ID, s);
    }
    snprintf(s, sizeof s, "0x%08X", pci.pciDeviceId);
    set_str(info, M_PCI_DEVICE_ID, s);
    snprintf(s, sizeof s, "0x%08X", pci.pciSubSystemId);
    set_str(info, M_PCI_SUB_DEVICE_ID, s);
    r->g->pci_domain = pci.domain;
    r->g->pci_bus = pci.bus;
    r->g->pci_device = pci.device;
    r->g->have_pci = 1;
}

int nv_numa_from_sysfs(const char *root, unsigned domain, unsigned bus, unsigned device)
{
    char path[256];
    snprintf(path, sizeof path, "%s/bus/pci/devices/%04x:%02x:%02x.0/numa_node", root, domain & 0xffff, bus & 0xff,
             device & 0xff);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int node = -1;
    if (fscanf(f, "%d", &node) != 1)
        node = -1;
    fclose(f);
    return node;
}

/* The one NUMA node in NVML's memory affinity of the GPU (scope NODE), or -1. */
static int numa_from_affinity(nv_rd *r)
{
    enum { WORDS = 4, SCOPE_NODE = 0 };
    unsigned long set[WORDS] = {0};
    const unsigned bits = 8 * sizeof set[0];
    nvmlReturn_t rc = r->b->fn.GetMemoryAffinity(r->g->dev, WORDS, set, SCOPE_NODE);
    if (rc != NVML_SUCCESS) {
        if (rc != NVML_ERROR_NOT_SUPPORTED)
            nv_check1(r, NV_GetMemoryAffinity, rc, M_NUMA_NODE);
        return -1;
    }
    int node = -1;
    for (unsigned i = 0; i < WORDS * bits; i++)
        if (set[i / bits] & (1UL << (i % bits))) {
            if (node >= 0)
                return -1; /* several nodes: no single answer */
            node = (int)i;
        }
    return node;
}

/* NVML's own node id (GPUs that are NUMA nodes), else the node of its memory affinity, else sysfs. */
static void read_numa(nv_rd *r)
{
    unsigned v = 0;
    if (!nv_need(r, M_NUMA_NODE))
        return;
    if (r->b->fn.GetNumaNodeId) {
        nvmlReturn_t rc = r->b->fn.GetNumaNodeId(r->g->dev, &v);
        if (rc == NVML_SUCCESS) {
            nv_set(r, M_NUMA_NODE, v);
            return;
        }
        if (rc != NVML_ERROR_NOT_SUPPORTED) /* NOT_SUPPORTED is the rule on x86 */
            nv_check1(r, NV_GetNumaNodeId, rc, M_NUMA_NODE);
    }
    int node = r->b->fn.GetMemoryAffinity && !r->g->lost ? numa_from_affinity(r) : -1;
    if (node < 0 && r->g->have_pci)
        node = nv_numa_from_sysfs("/sys", r->g->pci_domain, r->g->pci_bus, r->g->pci_device);
    if (node >= 0)
        nv_set(r, M_NUMA_NODE, node);
    else
        nv_unsupported(r, M_NUMA_NODE);
}

static void read_thresholds(nv_rd *r)
{
    static const struct {
        nvmlTemperatureThresholds_t t;
        metric_id id;
    } th[] = {
        {NVML_TEMPERATURE_THRESHOLD_SLOWDOWN, M_TEMP_SLOWDOWN},
        {NVML_TEMPERATURE_THRESHOLD_SHUTDOWN, M_TEMP_SHUTDOWN},
        {NVML_TEMPERATURE_THRESHOLD_MEM_MAX, M_TEMP_MEM_MAX},
        {NVML_TEMPERATURE_THRESHOLD_GPU_MAX, M_TEMP_GPU_MAX},
    };
    for (size_t i = 0; i < sizeof th / sizeof th[0] && r->b->fn.GetTemperatureThreshold; i++) {
        unsigned v = 0;
        if (nv_need(r, th[i].id) && nv_check1(r, NV_GetTemperatureThreshold,
                                              r->b->fn.GetTemperatureThreshold(r->g->dev, th[i].t, &v), th[i].id))
            nv_set(r, th[i].id, v);
    }
}

static void read_max_clocks(nv_rd *r)
{
    static const struct {
        nvmlClockType_t t;
        metric_id id;
    } ck[] = {
        {NVML_CLOCK_GRAPHICS, M_CLOCK_MAX_GR}, {NVML_CLOCK_SM, M_CLOCK_MAX_SM}, {NVML_CLOCK_MEM, M_CLOCK_MAX_MEM}};
    for (size_t i = 0; i < sizeof ck / sizeof ck[0] && r->b->fn.GetMaxClockInfo; i++) {
        unsigned v = 0;
        if (nv_need(r, ck[i].id) &&
            nv_check1(r, NV_GetMaxClockInfo, r->b->fn.GetMaxClockInfo(r->g->dev, ck[i].t, &v), ck[i].id))
            nv_set(r, ck[i].id, v);
    }
}

static void read_bar1_total(nv_rd *r)
{
    nvmlBAR1Memory_t bar1;
    if (r->b->fn.GetBAR1MemoryInfo && nv_need(r, M_BAR1_TOTAL) &&
        nv_check1(r, NV_GetBAR1MemoryInfo, r->b->fn.GetBAR1MemoryInfo(r->g->dev, &bar1), M_BAR1_TOTAL))
        nv_set(r, M_BAR1_TOTAL, bar1.bar1Total / 1048576.0);
}

static void read_power_limits(nv_rd *r)
{
    const nvml_fns *f = &r->b->fn;
    nv_read_u32(r, NV_GetPowerDefaultLimit, f->GetPowerDefaultLimit, M_POWER_DEFAULT_LIMIT, 0.001);
    static const metric_id ids[] = {M_POWER_MIN_LIMIT, M_POWER_MAX_LIMIT};
    unsigned lo = 0, hi = 0;
    if (f->GetPowerLimitConstraints && (nv_need(r, M_POWER_MIN_LIMIT) || nv_need(r, M_POWER_MAX_LIMIT)) &&
        nv_check(r, NV_GetPowerLimitConstraints, f->GetPowerLimitConstraints(r->g->dev, &lo, &hi), ids, 2)) {
        nv_set(r, M_POWER_MIN_LIMIT, lo / 1000.0);
        nv_set(r, M_POWER_MAX_LIMIT, hi / 1000.0);
    }
}

static void read_misc_statics(nv_rd *r)
{
    const nvml_fns *f = &r->b->fn;
    nvD dev = r->g->dev;
    nv_read_u32(r, NV_GetMinorNumber, f->GetMinorNumber, M_MINOR_NUMBER, 1);
    nv_read_u32(r, NV_GetArchitecture, f->GetArchitecture, M_ARCHITECTURE, 1);
    nv_read_u32(r, NV_GetMaxPcieLinkGeneration, f->GetMaxPcieLinkGeneration, M_PCIE_GEN_MAX, 1);
    nv_read_u32(r, NV_GetMaxPcieLinkWidth, f->GetMaxPcieLinkWidth, M_PCIE_WIDTH_MAX, 1);
    int major = 0, minor = 0;
    if (f->GetCudaComputeCapability && nv_need(r, M_COMPUTE_CAP) &&
        nv_check1(r, NV_GetCudaComputeCapability, f->GetCudaComputeCapability(dev, &major, &minor), M_COMPUTE_CAP))
        nv_set(r, M_COMPUTE_CAP, major + minor / 10.0);
    unsigned long long mask = 0;
    if (f->GetSupportedClocksEventReasons && nv_need(r, M_CER_SUPPORTED) &&
        nv_check1(r, NV_GetSupportedClocksEventReasons, f->GetSupportedClocksEventReasons(dev, &mask), M_CER_SUPPORTED))
        nv_set(r, M_CER_SUPPORTED, (double)mask);
    static const metric_id ecc[] = {M_ECC_MODE, M_ECC_MODE_PEND};
    nvmlEnableState_t cur = NVML_FEATURE_DISABLED, pend = NVML_FEATURE_DISABLED;
    if (f->GetEccMode && (nv_need(r, M_ECC_MODE) || nv_need(r, M_ECC_MODE_PEND)) &&
        nv_check(r, NV_GetEccMode, f->GetEccMode(dev, &cur, &pend), ecc, 2)) {
        nv_set(r, M_ECC_MODE, cur == NVML_FEATURE_ENABLED);
        nv_set(r, M_ECC_MODE_PEND, pend == NVML_FEATURE_ENABLED);
    }
}

gpu_status nv_read_info(backend *b, int gpu, gpu_info *info, gpu_sample *statics)
{
    nv_gpu *g = &b->gpus[gpu];
    memset(info, 0, sizeof *info);
    memset(&statics->present, 0, sizeof statics->present);
    info->index = gpu;
    statics->status = GPU_OK;
    gpu_status st = nv_probe(b, g);
    if (st != GPU_OK)
        return st;
    nv_rd r = {.b = b, .g = g, .out = statics};
    for (int id = M_STR_END; id < M_COUNT; id++)
        if (catalog_get((metric_id)id)->flags & MF_STATIC)
            mset_add(&r.want, (metric_id)id);

    nvmlReturn_t rc = b->fn.GetName(g->dev, info->str[M_NAME], GW_STR_LEN);
    if (!nv_check1(&r, NV_GetName, rc, M_NAME))
        return g->lost ? GPU_LOST : GPU_ERROR;
    info->str[M_NAME][GW_STR_LEN - 1] = 0;
    mset_add(&info->str_present, M_NAME);
    read_str(&r, info, NV_GetUUID, b->fn.GetUUID, M_UUID);
    read_str(&r, info, NV_GetSerial, b->fn.GetSerial, M_SERIAL);
    read_str(&r, info, NV_GetVbiosVersion, b->fn.GetVbiosVersion, M_VBIOS_VERSION);
    read_pci(&r, info);
    if (b->versions.driver[0])
        set_str(info, M_DRIVER_VERSION, b->versions.driver);

    nv_set(&r, M_INDEX, gpu);
    read_misc_statics(&r);
    read_numa(&r);
    read_thresholds(&r);
    read_max_clocks(&r);
    nv_read_memory(&r);
    read_bar1_total(&r);
    read_power_limits(&r);
    nv_compat_info(&r, info);
    if (g->lost) {
        memset(&statics->present, 0, sizeof statics->present);
        statics->status = GPU_LOST;
        return GPU_LOST;
    }
    return GPU_OK;
}
