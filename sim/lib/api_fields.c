/* api_fields.c - nvmlDeviceGetFieldValues for every field id whose value gpusim models (ECC mode,
 * totals and locations, retired pages, violations, temperatures, energy, PCIe replays, remapped rows,
 * power readings and limits, NVLink count); any other id is answered per field with NOT_SUPPORTED. */
#include "nvml_exports.h"
#include <math.h>
#include <time.h>

#ifndef GPUSIM_MINIMAL

#define ULL NVML_VALUE_TYPE_UNSIGNED_LONG_LONG
#define ECC(fid, unc, agg, loc)                                                          \
    {                                                                                    \
        fid, (metric_id)(M_ECC_LOC_FIRST + ((unc)*2 + (agg)) * ECC_NLOC + (loc)), 1, ULL \
    }

typedef struct {
    unsigned id;
    metric_id m;
    double scale;
    nvmlValueType_t type;
} field_map;

static const field_map fields[] = {
    {NVML_FI_DEV_ECC_CURRENT, M_ECC_MODE, 1, NVML_VALUE_TYPE_UNSIGNED_INT},
    {NVML_FI_DEV_ECC_PENDING, M_ECC_MODE_PEND, 1, NVML_VALUE_TYPE_UNSIGNED_INT},
    ECC(NVML_FI_DEV_ECC_SBE_VOL_L1, 0, 0, 3),
    ECC(NVML_FI_DEV_ECC_DBE_VOL_L1, 1, 0, 3),
    ECC(NVML_FI_DEV_ECC_SBE_VOL_L2, 0, 0, 4),
    ECC(NVML_FI_DEV_ECC_DBE_VOL_L2, 1, 0, 4),
    ECC(NVML_FI_DEV_ECC_SBE_VOL_DEV, 0, 0, 0),
    ECC(NVML_FI_DEV_ECC_DBE_VOL_DEV, 1, 0, 0),
    ECC(NVML_FI_DEV_ECC_SBE_VOL_REG, 0, 0, 2),
    ECC(NVML_FI_DEV_ECC_DBE_VOL_REG, 1, 0, 2),
    ECC(NVML_FI_DEV_ECC_SBE_VOL_TEX, 0, 0, 5),
    ECC(NVML_FI_DEV_ECC_DBE_VOL_TEX, 1, 0, 5),
    ECC(NVML_FI_DEV_ECC_DBE_VOL_CBU, 1, 0, 6),
    ECC(NVML_FI_DEV_ECC_SBE_AGG_L1, 0, 1, 3),
    ECC(NVML_FI_DEV_ECC_DBE_AGG_L1, 1, 1, 3),
    ECC(NVML_FI_DEV_ECC_SBE_AGG_L2, 0, 1, 4),
    ECC(NVML_FI_DEV_ECC_DBE_AGG_L2, 1, 1, 4),
    ECC(NVML_FI_DEV_ECC_SBE_AGG_DEV, 0, 1, 0),
    ECC(NVML_FI_DEV_ECC_DBE_AGG_DEV, 1, 1, 0),
    ECC(NVML_FI_DEV_ECC_SBE_AGG_REG, 0, 1, 2),
    ECC(NVML_FI_DEV_ECC_DBE_AGG_REG, 1, 1, 2),
    ECC(NVML_FI_DEV_ECC_SBE_AGG_TEX, 0, 1, 5),
    ECC(NVML_FI_DEV_ECC_DBE_AGG_TEX, 1, 1, 5),
    ECC(NVML_FI_DEV_ECC_DBE_AGG_CBU, 1, 1, 6),
    {NVML_FI_DEV_RETIRED_SBE, M_RETIRED_SBE, 1, ULL},
    {NVML_FI_DEV_RETIRED_DBE, M_RETIRED_DBE, 1, ULL},
    {NVML_FI_DEV_RETIRED_PENDING, M_RETIRED_PENDING, 1, NVML_VALUE_TYPE_UNSIGNED_INT},
    {NVML_FI_DEV_ECC_SBE_VOL_TOTAL, M_ECC_SBE_VOL, 1, NVML_VALUE_TYPE_UNSIGNED_LONG_LONG},
    {NVML_FI_DEV_ECC_DBE_VOL_TOTAL, M_ECC_DBE_VOL, 1, NVML_VALUE_TYPE_UNSIGNED_LONG_LONG},
    {NVML_FI_DEV_ECC_SBE_AGG_TOTAL, M_ECC_SBE_AGG, 1, NVML_VALUE_TYPE_UNSIGNED_LONG_LONG},
    {NVML_FI_DEV_ECC_DBE_AGG_TOTAL, M_ECC_DBE_AGG, 1, NVML_VALUE_TYPE_UNSIGNED_LONG_LONG},
    {NVML_FI_DEV_PERF_POLICY_POWER, M_VIOL_POWER, 1000.0, NVML_VALUE_TYPE_UNSIGNED_LONG_LONG},
    {NVML_FI_DEV_PERF_POLICY_THERMAL, M_VIOL_THERMAL, 1000.0, NVML_VALUE_TYPE_UNSIGNED_LONG_LONG},
    {NVML_FI_DEV_MEMORY_TEMP, M_TEMP_MEMORY, 1, NVML_VALUE_TYPE_UNSIGNED_INT},
    {NVML_FI_DEV_TOTAL_ENERGY_CONSUMPTION, M_ENERGY, 1, NVML_VALUE_TYPE_UNSIGNED_LONG_LONG},
    {NVML_FI_DEV_PCIE_REPLAY_COUNTER, M_PCIE_REPLAY, 1, NVML_VALUE_TYPE_UNSIGNED_LONG_LONG},
    {NVML_FI_DEV_REMAPPED_COR, M_REMAP_COR, 1, NVML_VALUE_TYPE_UNSIGNED_INT},
    {NVML_FI_DEV_REMAPPED_UNC, M_REMAP_UNC, 1, NVML_VALUE_TYPE_UNSIGNED_INT},
    {NVML_FI_DEV_REMAPPED_PENDING, M_REMAP_PENDING, 1, NVML_VALUE_TYPE_UNSIGNED_INT},
    {NVML_FI_DEV_REMAPPED_FAILURE, M_REMAP_FAILURE, 1, NVML_VALUE_TYPE_UNSIGNED_INT},
    {NVML_FI_DEV_REMAPPED_ROWS_COR_INACTIVE, M_REMAP_COR_INACTIVE, 1, NVML_VALUE_TYPE_UNSIGNED_INT},
    {NVML_FI_DEV_REMAPPED_ROWS_UNC_INACTIVE, M_REMAP_UNC_INACTIVE, 1, NVML_VALUE_TYPE_UNSIGNED_INT},
    {NVML_FI_DEV_POWER_AVERAGE, M_POWER_DRAW_AVERAGE, 1000.0, NVML_VALUE_TYPE_UNSIGNED_INT},
    {NVML_FI_DEV_PERF_POLICY_SYNC_BOOST, M_VIOL_SYNC_BOOST, 1000.0, NVML_VALUE_TYPE_UNSIGNED_LONG_LONG},
    {NVML_FI_DEV_POWER_INSTANT, M_POWER_DRAW_INSTANT, 1000.0, NVML_VALUE_TYPE_UNSIGNED_INT},
    {NVML_FI_DEV_POWER_MIN_LIMIT, M_POWER_MIN_LIMIT, 1000.0, NVML_VALUE_TYPE_UNSIGNED_INT},
    {NVML_FI_DEV_POWER_MAX_LIMIT, M_POWER_MAX_LIMIT, 1000.0, NVML_VALUE_TYPE_UNSIGNED_INT},
    {NVML_FI_DEV_POWER_DEFAULT_LIMIT, M_POWER_DEFAULT_LIMIT, 1000.0, NVML_VALUE_TYPE_UNSIGNED_INT},
    {NVML_FI_DEV_POWER_CURRENT_LIMIT, M_POWER_ENFORCED_LIMIT, 1000.0, NVML_VALUE_TYPE_UNSIGNED_INT},
    {NVML_FI_DEV_POWER_REQUESTED_LIMIT, M_POWER_LIMIT, 1000.0, NVML_VALUE_TYPE_UNSIGNED_INT},
    {NVML_FI_DEV_ENERGY, M_ENERGY, 1, NVML_VALUE_TYPE_UNSIGNED_LONG_LONG},
};

static void set_value(nvmlFieldValue_t *f, nvmlValueType_t type, double v)
{
    f->valueType = type;
    if (type == NVML_VALUE_TYPE_UNSIGNED_INT)
        f->value.uiVal = (unsigned int)(fmin(v, 4294967295.0) + 0.5);
    else
        f->value.ullVal = (unsigned long long)(v + 0.5);
    f->nvmlReturn = NVML_SUCCESS;
}

/* Fields that are not catalog metrics: the NVLink count, clock-event-reason counters (ns). */
static int counter_field(const gs_call *c, nvmlFieldValue_t *f)
{
    int idx = f->fieldId == NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_THERM_SLOWDOWN         ? 1
              : f->fieldId == NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_THERM_SLOWDOWN       ? 2
              : f->fieldId == NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_POWER_BRAKE_SLOWDOWN ? 3
                                                                                      : -1;
    if (f->fieldId == NVML_FI_DEV_NVLINK_LINK_COUNT) {
        int links = gs.sc->gpus[c->gpu].spec->p.nvlinks;
        if (links > 0)
            set_value(f, NVML_VALUE_TYPE_UNSIGNED_INT, links);
        return 1;
    }
    if (idx < 0)
        return 0;
    double ns[4];
    sim_violations(gs.sc, c->gpu, c->t, ns);
    set_value(f, NVML_VALUE_TYPE_UNSIGNED_LONG_LONG, ns[idx]);
    return 1;
}

static void one_field(const gs_call *c, nvmlFieldValue_t *f, long long now_us)
{
    f->timestamp = now_us;
    f->latencyUsec = 0;
    f->nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
    if (counter_field(c, f) || gs_nvlink_field(c, f))
        return;
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        if (fields[i].id != f->fieldId)
            continue;
        double v;
        if (gs_metric(c, fields[i].m, &v) == NVML_SUCCESS)
            set_value(f, fields[i].type, v * fields[i].scale);
        return;
    }
}

nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t device, int count, nvmlFieldValue_t *values)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter_dev(&c, __func__, device);
    if (rc != NVML_SUCCESS)
        return gs_leave(rc);
    if (count <= 0 || !values)
        return gs_leave(NVML_ERROR_INVALID_ARGUMENT);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    long long now_us = (long long)ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
    for (int i = 0; i < count; i++)
        one_field(&c, &values[i], now_us);
    return gs_leave(NVML_SUCCESS);
}

#endif
