/* api_clocks.c - current and maximum clocks, clock event (throttle) reasons, violation times. */
#include "nvml_exports.h"

/* Catalog metric of a clock type; -1 for an invalid type. */
static int clock_metric(nvmlClockType_t type, int max)
{
    switch (type) {
    case NVML_CLOCK_GRAPHICS: return max ? M_CLOCK_MAX_GR : M_CLOCK_GR;
    case NVML_CLOCK_SM: return max ? M_CLOCK_MAX_SM : M_CLOCK_SM;
    case NVML_CLOCK_MEM: return max ? M_CLOCK_MAX_MEM : M_CLOCK_MEM;
    case NVML_CLOCK_VIDEO: return max ? -2 : M_CLOCK_VIDEO;
    }
    return -1;
}

static nvmlReturn_t clock_value(const char *fn, nvmlDevice_t device, nvmlClockType_t type, int max, unsigned int *mhz)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter_dev(&c, fn, device);
    if (rc != NVML_SUCCESS)
        return gs_leave(rc);
    int m = clock_metric(type, max);
    if (m == -1 || !mhz)
        return gs_leave(NVML_ERROR_INVALID_ARGUMENT);
    if (m == -2) { /* max video clock: not in the catalog, a preset value */
        *mhz = (unsigned)gs.sc->gpus[c.gpu].spec->p.clk_max_video;
        return gs_leave(NVML_SUCCESS);
    }
    return gs_leave(gs_metric_u(&c, (metric_id)m, 1, mhz));
}

nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t d, nvmlClockType_t t, unsigned int *v)
{
    return clock_value(__func__, d, t, 0, v);
}

nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t d, nvmlClockType_t t, unsigned int *v)
{
    return clock_value(__func__, d, t, 1, v);
}

nvmlReturn_t nvmlDeviceGetMaxCustomerBoostClock(nvmlDevice_t d, nvmlClockType_t t, unsigned int *v)
{
    return clock_value(__func__, d, t, 1, v);
}

/* clockId: 0 current, 1 application target, 2 application default, 3 customer boost max. */
nvmlReturn_t nvmlDeviceGetClock(nvmlDevice_t d, nvmlClockType_t t, unsigned int clockId, unsigned int *v)
{
    if (clockId == 1 || clockId == 2) {
        gs_call c;
        nvmlReturn_t rc = gs_enter_dev(&c, __func__, d);
        return gs_leave(rc == NVML_SUCCESS ? NVML_ERROR_DEPRECATED : rc);
    }
    if (clockId > 3) {
        gs_call c;
        nvmlReturn_t rc = gs_enter_dev(&c, __func__, d);
        return gs_leave(rc == NVML_SUCCESS ? NVML_ERROR_INVALID_ARGUMENT : rc);
    }
    return clock_value(__func__, d, t, clockId == 3, v);
}

static nvmlReturn_t reasons(const char *fn, nvmlDevice_t device, metric_id m, unsigned long long *out)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter_dev(&c, fn, device);
    if (rc == NVML_SUCCESS)
        rc = gs_metric_ull(&c, m, 1, out);
    return gs_leave(rc);
}

#ifndef GPUSIM_MINIMAL
nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t d, unsigned long long *r)
{
    return reasons(__func__, d, M_CER_ACTIVE, r);
}

nvmlReturn_t nvmlDeviceGetSupportedClocksEventReasons(nvmlDevice_t d, unsigned long long *r)
{
    return reasons(__func__, d, M_CER_SUPPORTED, r);
}
#endif

nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t d, unsigned long long *r)
{
    return reasons(__func__, d, M_CER_ACTIVE, r);
}

nvmlReturn_t nvmlDeviceGetSupportedClocksThrottleReasons(nvmlDevice_t d, unsigned long long *r)
{
    return reasons(__func__, d, M_CER_SUPPORTED, r);
}

/* violationTime in ns (the catalog keeps us); referenceTime = now in us. */
nvmlReturn_t nvmlDeviceGetViolationStatus(nvmlDevice_t device, nvmlPerfPolicyType_t policy, nvmlViolationTime_t *v)
{
    gs_call c;
    double us;
    nvmlReturn_t rc = gs_enter_dev(&c, __func__, device);
    if (rc != NVML_SUCCESS)
        return gs_leave(rc);
    if (!v)
        return gs_leave(NVML_ERROR_INVALID_ARGUMENT);
    if (policy == NVML_PERF_POLICY_POWER)
        rc = gs_metric(&c, M_VIOL_POWER, &us);
    else if (policy == NVML_PERF_POLICY_THERMAL)
        rc = gs_metric(&c, M_VIOL_THERMAL, &us);
    else if (policy == NVML_PERF_POLICY_SYNC_BOOST)
        rc = gs_metric(&c, M_VIOL_SYNC_BOOST, &us);
    else
        rc = (unsigned)policy <= 11 ? NVML_ERROR_NOT_SUPPORTED : NVML_ERROR_INVALID_ARGUMENT;
    if (rc == NVML_SUCCESS) {
        v->referenceTime = (unsigned long long)(c.t * 1e6);
        v->violationTime = (unsigned long long)(us * 1000.0 + 0.5);
    }
    return gs_leave(rc);
}

/* Supported clocks: the preset's maximum memory clock (and its idle one when lower); with each, the
 * graphics clocks from the maximum down to the idle clock in 15 MHz steps (the step the captures'
 * boards use; the idle memory clock allows only the lower half). The two-call protocol: a count too
 * small gets INSUFFICIENT_SIZE and the count needed. */
#define GS_CLOCK_STEP 15.0
#define GS_MAX_CLOCKS 512

static nvmlReturn_t give_clocks(const double *mhz, unsigned n, unsigned int *count, unsigned int *out)
{
    if (!count)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (*count < n || !out) {
        *count = n;
        return NVML_ERROR_INSUFFICIENT_SIZE;
    }
    for (unsigned i = 0; i < n; i++)
        out[i] = (unsigned)mhz[i];
    *count = n;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetSupportedMemoryClocks(nvmlDevice_t device, unsigned int *count, unsigned int *mhz)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter_dev(&c, __func__, device);
    if (rc != NVML_SUCCESS)
        return gs_leave(rc);
    const sim_preset *p = &gs.sc->gpus[c.gpu].spec->p;
    double v[2] = {p->clk_max_mem, p->clk_idle_mem};
    return gs_leave(give_clocks(v, p->clk_idle_mem < p->clk_max_mem ? 2 : 1, count, mhz));
}

nvmlReturn_t nvmlDeviceGetSupportedGraphicsClocks(nvmlDevice_t device, unsigned int memMHz, unsigned int *count,
                                                  unsigned int *mhz)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter_dev(&c, __func__, device);
    if (rc != NVML_SUCCESS)
        return gs_leave(rc);
    const sim_preset *p = &gs.sc->gpus[c.gpu].spec->p;
    if (memMHz != (unsigned)p->clk_max_mem && memMHz != (unsigned)p->clk_idle_mem)
        return gs_leave(NVML_ERROR_NOT_FOUND);
    double top = memMHz == (unsigned)p->clk_max_mem ? p->clk_max_gr : (p->clk_max_gr + p->clk_idle_gr) / 2;
    double v[GS_MAX_CLOCKS];
    unsigned n = 0;
    for (double f = top; f >= p->clk_idle_gr && n < GS_MAX_CLOCKS; f -= GS_CLOCK_STEP)
        v[n++] = f;
    return gs_leave(give_clocks(v, n, count, mhz));
}
