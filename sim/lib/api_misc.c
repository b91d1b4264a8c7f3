/* api_misc.c - modes: persistence, compute, display. The model's defaults (sim/core/model.c): a
 * datacenter board runs persistence mode and no display, a GeForce the other way round, compute
 * mode Default; a scenario may set any of them (persistence_mode: 0, compute_mode: 3, ...). */
#include "nvml_exports.h"

static nvmlReturn_t enable_state(const char *fn, nvmlDevice_t device, metric_id m, nvmlEnableState_t *out)
{
    gs_call c;
    unsigned v = 0;
    nvmlReturn_t rc = gs_enter_dev(&c, fn, device);
    if (rc == NVML_SUCCESS && !out)
        rc = NVML_ERROR_INVALID_ARGUMENT;
    if (rc == NVML_SUCCESS)
        rc = gs_metric_u(&c, m, 1, &v);
    if (rc == NVML_SUCCESS)
        *out = v ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
    return gs_leave(rc);
}

nvmlReturn_t nvmlDeviceGetPersistenceMode(nvmlDevice_t d, nvmlEnableState_t *m)
{
    return enable_state(__func__, d, M_PERSISTENCE_MODE, m);
}
nvmlReturn_t nvmlDeviceGetDisplayActive(nvmlDevice_t d, nvmlEnableState_t *m)
{
    return enable_state(__func__, d, M_DISPLAY_ACTIVE, m);
}
nvmlReturn_t nvmlDeviceGetDisplayMode(nvmlDevice_t d, nvmlEnableState_t *m)
{
    return enable_state(__func__, d, M_DISPLAY_ATTACHED, m);
}

nvmlReturn_t nvmlDeviceGetComputeMode(nvmlDevice_t device, nvmlComputeMode_t *mode)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter_dev(&c, __func__, device);
    if (rc == NVML_SUCCESS)
        rc = gs_metric_u(&c, M_COMPUTE_MODE, 1, mode);
    return gs_leave(rc);
}
