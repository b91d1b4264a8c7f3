/* api_nvlink.c - NVLink links: which are active and what is at their far end (an NVSwitch on
 * HGX boards, the peer GPU with bridges), from the scenario's `topology: nvlink`. */
#include "nvml_exports.h"
#include "topology.h"

/* Enters for a link of a device: NOT_SUPPORTED without NVLink, INVALID_ARGUMENT past its links. */
static nvmlReturn_t enter_link(gs_call *c, const char *fn, nvmlDevice_t device, unsigned link, topo_link *out)
{
    nvmlReturn_t rc = gs_enter_dev(c, fn, device);
    if (rc != NVML_SUCCESS)
        return rc;
    if (gs.sc->gpus[c->gpu].spec->p.nvlinks <= 0)
        return NVML_ERROR_NOT_SUPPORTED;
    return topo_link_at(gs.sc, c->gpu, link, out) == 0 ? NVML_SUCCESS : NVML_ERROR_INVALID_ARGUMENT;
}

nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t device, unsigned int link, nvmlEnableState_t *active)
{
    gs_call c;
    topo_link l;
    nvmlReturn_t rc = enter_link(&c, __func__, device, link, &l);
    if (rc == NVML_SUCCESS && !active)
        rc = NVML_ERROR_INVALID_ARGUMENT;
    if (rc == NVML_SUCCESS)
        *active = l.active ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
    return gs_leave(rc);
}

/* An inactive link has no far end: NOT_SUPPORTED. */
static nvmlReturn_t remote_pci(const char *fn, nvmlDevice_t device, unsigned link, nvmlPciInfo_t *pci, int full)
{
    gs_call c;
    topo_link l;
    nvmlReturn_t rc = enter_link(&c, fn, device, link, &l);
    if (rc == NVML_SUCCESS && !pci)
        rc = NVML_ERROR_INVALID_ARGUMENT;
    if (rc == NVML_SUCCESS && !l.active)
        rc = NVML_ERROR_NOT_SUPPORTED;
    if (rc != NVML_SUCCESS)
        return gs_leave(rc);
    if (l.is_switch)
        gs_fill_pci(pci, 0, topo_switch_bus(l.peer), 0, 0, 0, full);
    else
        gs_gpu_pci(l.peer, pci, full);
    return gs_leave(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo(nvmlDevice_t d, unsigned int link, nvmlPciInfo_t *pci)
{
    return remote_pci(__func__, d, link, pci, 0);
}

nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t d, unsigned int link, nvmlPciInfo_t *pci)
{
    return remote_pci(__func__, d, link, pci, 1);
}

nvmlReturn_t nvmlDeviceGetNvLinkRemoteDeviceType(nvmlDevice_t device, unsigned int link,
                                                 nvmlIntNvLinkDeviceType_t *type)
{
    gs_call c;
    topo_link l;
    nvmlReturn_t rc = enter_link(&c, __func__, device, link, &l);
    if (rc == NVML_SUCCESS && !type)
        rc = NVML_ERROR_INVALID_ARGUMENT;
    if (rc == NVML_SUCCESS && !l.active)
        rc = NVML_ERROR_NOT_SUPPORTED;
    if (rc == NVML_SUCCESS)
        *type = l.is_switch ? NVML_NVLINK_DEVICE_TYPE_SWITCH : NVML_NVLINK_DEVICE_TYPE_GPU;
    return gs_leave(rc);
}
