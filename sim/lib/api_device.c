/* api_device.c - device enumeration, handles and identity: count, handles by index / UUID /
 * PCI bus id, name, UUID, serial, PCI info, architecture, brand, VBIOS, minor number. */
#include "nvml_exports.h"
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static nvmlReturn_t get_count(const char *fn, unsigned int *n)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter(&c, fn);
    if (rc == NVML_SUCCESS && !n)
        rc = NVML_ERROR_INVALID_ARGUMENT;
    if (rc == NVML_SUCCESS)
        *n = (unsigned)gs.sc->ngpus;
    return gs_leave(rc);
}

nvmlReturn_t nvmlDeviceGetCount(unsigned int *n)
{
    return get_count(__func__, n);
}
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *n)
{
    return get_count(__func__, n);
}

static nvmlReturn_t by_index(const char *fn, unsigned int index, nvmlDevice_t *device)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter(&c, fn);
    if (rc != NVML_SUCCESS)
        return gs_leave(rc);
    if (!device || index >= (unsigned)gs.sc->ngpus)
        return gs_leave(NVML_ERROR_INVALID_ARGUMENT);
    if (sim_lost(gs.sc, (int)index, c.t))
        return gs_leave(NVML_ERROR_GPU_IS_LOST);
    *device = &gs.devs[index];
    return gs_leave(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int i, nvmlDevice_t *d)
{
    return by_index(__func__, i, d);
}
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t *d)
{
    return by_index(__func__, i, d);
}

nvmlReturn_t nvmlDeviceGetHandleByUUID(const char *uuid, nvmlDevice_t *device)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter(&c, __func__);
    if (rc != NVML_SUCCESS)
        return gs_leave(rc);
    if (!uuid || !device)
        return gs_leave(NVML_ERROR_INVALID_ARGUMENT);
    for (int i = 0; i < gs.sc->ngpus; i++)
        if (strcmp(gs.sc->gpus[i].uuid, uuid) == 0) {
            if (sim_lost(gs.sc, i, c.t))
                return gs_leave(NVML_ERROR_GPU_IS_LOST);
            *device = &gs.devs[i];
            return gs_leave(NVML_SUCCESS);
        }
    return gs_leave(NVML_ERROR_NOT_FOUND);
}

/* Bus ids match on (domain, bus, device) whatever the domain's width ("0000:18:00.0" too). */
static int same_bus_id(const char *a, const char *b)
{
    unsigned d1, b1, v1, d2, b2, v2;
    if (sscanf(a, "%x:%x:%x", &d1, &b1, &v1) != 3 || sscanf(b, "%x:%x:%x", &d2, &b2, &v2) != 3)
        return strcasecmp(a, b) == 0;
    return d1 == d2 && b1 == b2 && v1 == v2;
}

static nvmlReturn_t by_bus_id(const char *fn, const char *bus, nvmlDevice_t *device)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter(&c, fn);
    if (rc != NVML_SUCCESS)
        return gs_leave(rc);
    if (!bus || !device)
        return gs_leave(NVML_ERROR_INVALID_ARGUMENT);
    for (int i = 0; i < gs.sc->ngpus; i++)
        if (same_bus_id(gs.sc->gpus[i].pci_bus_id, bus)) {
            if (sim_lost(gs.sc, i, c.t))
                return gs_leave(NVML_ERROR_GPU_IS_LOST);
            *device = &gs.devs[i];
            return gs_leave(NVML_SUCCESS);
        }
    return gs_leave(NVML_ERROR_NOT_FOUND);
}

nvmlReturn_t nvmlDeviceGetHandleByPciBusId(const char *b, nvmlDevice_t *d)
{
    return by_bus_id(__func__, b, d);
}
nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *b, nvmlDevice_t *d)
{
    return by_bus_id(__func__, b, d);
}

nvmlReturn_t nvmlDeviceGetIndex(nvmlDevice_t device, unsigned int *index)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter_dev(&c, __func__, device);
    if (rc == NVML_SUCCESS)
        rc = gs_metric_u(&c, M_INDEX, 1, index);
    return gs_leave(rc);
}

nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t device, unsigned int *minor)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter_dev(&c, __func__, device);
    if (rc == NVML_SUCCESS)
        rc = gs_metric_u(&c, M_MINOR_NUMBER, 1, minor);
    return gs_leave(rc);
}

/* A string metric into a caller buffer. */
static nvmlReturn_t dev_string(const char *fn, nvmlDevice_t device, metric_id m, char *buf, unsigned int len)
{
    gs_call c;
    char s[128];
    nvmlReturn_t rc = gs_enter_dev(&c, fn, device);
    if (rc != NVML_SUCCESS)
        return gs_leave(rc);
    if (!buf)
        return gs_leave(NVML_ERROR_INVALID_ARGUMENT);
    if (sim_string(gs.sc, c.gpu, m, s, sizeof s) != 0)
        return gs_leave(NVML_ERROR_NOT_SUPPORTED);
    return gs_leave(gs_copy_string(s, buf, len));
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char *b, unsigned int n)
{
    return gs_is_mig_handle(d) ? gs_mig_name(d, b, n) : dev_string(__func__, d, M_NAME, b, n);
}
nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t d, char *b, unsigned int n)
{
    return gs_is_mig_handle(d) ? gs_mig_uuid(d, b, n) : dev_string(__func__, d, M_UUID, b, n);
}
nvmlReturn_t nvmlDeviceGetSerial(nvmlDevice_t d, char *b, unsigned int n)
{
    return dev_string(__func__, d, M_SERIAL, b, n);
}
nvmlReturn_t nvmlDeviceGetVbiosVersion(nvmlDevice_t d, char *b, unsigned int n)
{
    return dev_string(__func__, d, M_VBIOS_VERSION, b, n);
}

nvmlReturn_t nvmlDeviceGetBoardPartNumber(nvmlDevice_t device, char *buf, unsigned int len)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter_dev(&c, __func__, device);
    if (rc == NVML_SUCCESS)
        rc = NVML_ERROR_NOT_SUPPORTED;
    (void)buf;
    (void)len;
    return gs_leave(rc);
}

nvmlReturn_t nvmlDeviceGetArchitecture(nvmlDevice_t device, nvmlDeviceArchitecture_t *arch)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter_dev(&c, __func__, device);
    if (rc == NVML_SUCCESS)
        rc = gs_metric_u(&c, M_ARCHITECTURE, 1, arch);
    return gs_leave(rc);
}

nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device, int *major, int *minor)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter_dev(&c, __func__, device);
    if (rc == NVML_SUCCESS && (!major || !minor))
        rc = NVML_ERROR_INVALID_ARGUMENT;
    if (rc == NVML_SUCCESS) {
        *major = gs.sc->gpus[c.gpu].spec->p.cc_major;
        *minor = gs.sc->gpus[c.gpu].spec->p.cc_minor;
    }
    return gs_leave(rc);
}

nvmlReturn_t nvmlDeviceGetBrand(nvmlDevice_t device, nvmlBrandType_t *type)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter_dev(&c, __func__, device);
    if (rc == NVML_SUCCESS && !type)
        rc = NVML_ERROR_INVALID_ARGUMENT;
    if (rc == NVML_SUCCESS)
        *type = gs.sc->gpus[c.gpu].spec->p.brand;
    return gs_leave(rc);
}

void gs_gpu_pci(int gpu, nvmlPciInfo_t *pci, int full)
{
    const sim_gpu *g = &gs.sc->gpus[gpu];
    unsigned dom = 0, bus = g->pci_bus, dev = 0;
    sscanf(g->pci_bus_id, "%x:%x:%x", &dom, &bus, &dev);
    gs_fill_pci(pci, dom, bus, dev, g->spec->p.pci_device_id, g->spec->p.pci_subsys_id, full);
}

/* full = 0 for the older entry points: their structs end after pciSubSystemId (36 bytes,
 * the first field holding the 16-byte bus id), so nothing past that is written. */
static nvmlReturn_t pci_info(const char *fn, nvmlDevice_t device, nvmlPciInfo_t *pci, int full)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter_dev(&c, fn, device);
    if (rc == NVML_SUCCESS && !pci)
        rc = NVML_ERROR_INVALID_ARGUMENT;
    if (rc != NVML_SUCCESS)
        return gs_leave(rc);
    gs_gpu_pci(c.gpu, pci, full);
    return gs_leave(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetPciInfo(nvmlDevice_t d, nvmlPciInfo_t *p)
{
    return pci_info(__func__, d, p, 0);
}
nvmlReturn_t nvmlDeviceGetPciInfo_v2(nvmlDevice_t d, nvmlPciInfo_t *p)
{
    return pci_info(__func__, d, p, 0);
}
nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t d, nvmlPciInfo_t *p)
{
    return pci_info(__func__, d, p, 1);
}
