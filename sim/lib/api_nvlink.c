/* api_nvlink.c - NVLink links: which are active and what is at their far end (an NVSwitch on
 * HGX boards, the peer GPU with bridges), from the scenario's `topology: nvlink`; each link's
 * state and data-link error counters as the metrics nvlink.linkN.* give them (a scenario brings a
 * link down or makes it count errors with their generators), by getter and by field value. */
#include "nvml_exports.h"
#include "topology.h"
#include <math.h>

/* Enters for a link of a device: NOT_SUPPORTED without NVLink, INVALID_ARGUMENT past its links. */
static nvmlReturn_t enter_link(gs_call *c, const char *fn, nvmlDevice_t device, unsigned link, topo_link *out)
{
    nvmlReturn_t rc = gs_enter_dev(c, fn, device);
    if (rc != NVML_SUCCESS)
        return rc;
    if (gs.sc->gpus[c->gpu].spec->p.nvlinks <= 0)
        return NVML_ERROR_NOT_SUPPORTED;
    if (topo_link_at(gs.sc, c->gpu, link, out) != 0)
        return NVML_ERROR_INVALID_ARGUMENT;
    double up = 0;
    if (gs_metric(c, nvlink_id((int)link, NVL_STATE), &up) == NVML_SUCCESS)
        out->active = up >= 0.5; /* a link the scenario brings down has no far end either */
    return NVML_SUCCESS;
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

/* counter: NVML_NVLINK_ERROR_DL_REPLAY 0, RECOVERY 1, CRC_FLIT 2, CRC_DATA 3, ECC_DATA 4. The link's
 * CRC errors are all reported as flow-control digit (flit) errors. */
nvmlReturn_t nvmlDeviceGetNvLinkErrorCounter(nvmlDevice_t device, unsigned int link, unsigned int counter,
                                             unsigned long long *value)
{
    gs_call c;
    topo_link l;
    nvmlReturn_t rc = enter_link(&c, __func__, device, link, &l);
    if (rc == NVML_SUCCESS && (!value || counter > 4))
        rc = NVML_ERROR_INVALID_ARGUMENT;
    if (rc != NVML_SUCCESS)
        return gs_leave(rc);
    static const int kind[5] = {NVL_REPLAY, NVL_RECOVERY, NVL_CRC, -1, -1};
    *value = 0;
    if (kind[counter] >= 0)
        rc = gs_metric_ull(&c, nvlink_id((int)link, (nvlink_kind)kind[counter]), 1, value);
    return gs_leave(rc);
}

#ifndef GPUSIM_MINIMAL
int gs_nvlink_field(const gs_call *c, nvmlFieldValue_t *f)
{
    static const struct {
        unsigned id;
        nvlink_kind kind;
    } map[] = {{NVML_FI_DEV_NVLINK_GET_STATE, NVL_STATE},
               {NVML_FI_DEV_NVLINK_ERROR_DL_CRC, NVL_CRC},
               {NVML_FI_DEV_NVLINK_ERROR_DL_REPLAY, NVL_REPLAY},
               {NVML_FI_DEV_NVLINK_ERROR_DL_RECOVERY, NVL_RECOVERY}};
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
        if (map[i].id != f->fieldId)
            continue;
        double v;
        if (gs.sc->gpus[c->gpu].spec->p.nvlinks <= 0)
            f->nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
        else if (f->scopeId >= (unsigned)gs.sc->gpus[c->gpu].spec->p.nvlinks)
            f->nvmlReturn = NVML_ERROR_INVALID_ARGUMENT;
        else if ((f->nvmlReturn = gs_metric(c, nvlink_id((int)f->scopeId, map[i].kind), &v)) == NVML_SUCCESS) {
            f->valueType = map[i].kind == NVL_STATE ? NVML_VALUE_TYPE_UNSIGNED_INT : NVML_VALUE_TYPE_UNSIGNED_LONG_LONG;
            if (map[i].kind == NVL_STATE)
                f->value.uiVal = v >= 0.5 ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
            else
                f->value.ullVal = (unsigned long long)llround(v);
        }
        return 1;
    }
    return 0;
}
#endif
