/* api_misc.c - modes: persistence, compute, display. */
#include "nvml_exports.h"

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
