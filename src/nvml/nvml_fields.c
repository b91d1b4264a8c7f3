/* nvml_fields.c - the metrics NVML gives as field values, in one nvmlDeviceGetFieldValues call per sample
 * (each field's own status checked), and the single getters used where that call is missing. */
#include <string.h>
#include "nvml_priv.h"

/* Each row: a field id, the metric it gives, and whether a single getter also gives that metric
 * (then a field the GPU refuses is left to the getter rather than marking the metric unsupported).
 * The same field may give two metrics (device_memory and dram are one ECC counter). Other files'
 * metrics join the one call by adding rows here. */
enum { NV_FIELD_ONLY = 0, NV_FIELD_FALLBACK = 1 };
#define ECC_ROW(fid, unc, agg, loc)                                                                    \
    {                                                                                                  \
        fid, (metric_id)(M_ECC_LOC_FIRST + ((unc)*2 + (agg)) * ECC_NLOC + (loc)), 1, NV_FIELD_FALLBACK \
    }
static const struct nv_field {
    unsigned fid;
    metric_id id;
    double scale; /* NVML unit -> catalog unit */
    int fallback;
} fields[] = {
    {NVML_FI_DEV_MEMORY_TEMP, M_TEMP_MEMORY, 1, NV_FIELD_ONLY},
    {NVML_FI_DEV_TOTAL_ENERGY_CONSUMPTION, M_ENERGY, 1, NV_FIELD_ONLY},      /* mJ */
    {NVML_FI_DEV_POWER_INSTANT, M_POWER_DRAW_INSTANT, 0.001, NV_FIELD_ONLY}, /* mW -> W */
    {NVML_FI_DEV_PCIE_REPLAY_COUNTER, M_PCIE_REPLAY, 1, NV_FIELD_ONLY},
    {NVML_FI_DEV_ECC_SBE_VOL_TOTAL, M_ECC_SBE_VOL, 1, NV_FIELD_ONLY},
    {NVML_FI_DEV_ECC_DBE_VOL_TOTAL, M_ECC_DBE_VOL, 1, NV_FIELD_ONLY},
    {NVML_FI_DEV_ECC_SBE_AGG_TOTAL, M_ECC_SBE_AGG, 1, NV_FIELD_ONLY},
    {NVML_FI_DEV_ECC_DBE_AGG_TOTAL, M_ECC_DBE_AGG, 1, NV_FIELD_ONLY},
    {NVML_FI_DEV_REMAPPED_COR, M_REMAP_COR, 1, NV_FIELD_ONLY},
    {NVML_FI_DEV_REMAPPED_UNC, M_REMAP_UNC, 1, NV_FIELD_ONLY},
    {NVML_FI_DEV_REMAPPED_PENDING, M_REMAP_PENDING, 1, NV_FIELD_ONLY},
    {NVML_FI_DEV_REMAPPED_FAILURE, M_REMAP_FAILURE, 1, NV_FIELD_ONLY},
    {NVML_FI_DEV_PERF_POLICY_POWER, M_VIOL_POWER, 0.001, NV_FIELD_ONLY}, /* ns -> us */
    {NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_THERM_SLOWDOWN, M_VIOL_THERMAL, 0.001, NV_FIELD_ONLY},
    {NVML_FI_DEV_PERF_POLICY_SYNC_BOOST, M_VIOL_SYNC_BOOST, 0.001, NV_FIELD_ONLY},
    {NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_THERM_SLOWDOWN, M_VIOL_SW_THERMAL, 0.001, NV_FIELD_ONLY},
    {NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_POWER_BRAKE_SLOWDOWN, M_VIOL_POWER_BRAKE, 0.001, NV_FIELD_ONLY},
    {NVML_FI_DEV_POWER_AVERAGE, M_POWER_DRAW_AVERAGE, 0.001, NV_FIELD_ONLY}, /* mW -> W */
    {NVML_FI_DEV_REMAPPED_ROWS_COR_INACTIVE, M_REMAP_COR_INACTIVE, 1, NV_FIELD_ONLY},
    {NVML_FI_DEV_REMAPPED_ROWS_UNC_INACTIVE, M_REMAP_UNC_INACTIVE, 1, NV_FIELD_ONLY},
    /* power draw: GetPowerUsage's reading is the one-second average on Ampere and later, the field's
     * value (the capture's power.draw and power.draw.average agree); and the limits */
    {NVML_FI_DEV_POWER_AVERAGE, M_POWER_DRAW, 0.001, NV_FIELD_FALLBACK},
    {NVML_FI_DEV_POWER_CURRENT_LIMIT, M_POWER_ENFORCED_LIMIT, 0.001, NV_FIELD_FALLBACK},
    {NVML_FI_DEV_POWER_REQUESTED_LIMIT, M_POWER_LIMIT, 0.001, NV_FIELD_FALLBACK},
    /* ECC counters by location (corrected = single bit, uncorrected = double bit) */
    ECC_ROW(NVML_FI_DEV_ECC_SBE_VOL_DEV, 0, 0, 0),
    ECC_ROW(NVML_FI_DEV_ECC_SBE_VOL_DEV, 0, 0, 1),
    ECC_ROW(NVML_FI_DEV_ECC_SBE_AGG_DEV, 0, 1, 0),
    ECC_ROW(NVML_FI_DEV_ECC_SBE_AGG_DEV, 0, 1, 1),
    ECC_ROW(NVML_FI_DEV_ECC_DBE_VOL_DEV, 1, 0, 0),
    ECC_ROW(NVML_FI_DEV_ECC_DBE_VOL_DEV, 1, 0, 1),
    ECC_ROW(NVML_FI_DEV_ECC_DBE_AGG_DEV, 1, 1, 0),
    ECC_ROW(NVML_FI_DEV_ECC_DBE_AGG_DEV, 1, 1, 1),
    ECC_ROW(NVML_FI_DEV_ECC_SBE_VOL_REG, 0, 0, 2),
    ECC_ROW(NVML_FI_DEV_ECC_SBE_AGG_REG, 0, 1, 2),
    ECC_ROW(NVML_FI_DEV_ECC_DBE_VOL_REG, 1, 0, 2),
    ECC_ROW(NVML_FI_DEV_ECC_DBE_AGG_REG, 1, 1, 2),
    ECC_ROW(NVML_FI_DEV_ECC_SBE_VOL_L1, 0, 0, 3),
    ECC_ROW(NVML_FI_DEV_ECC_SBE_AGG_L1, 0, 1, 3),
    ECC_ROW(NVML_FI_DEV_ECC_DBE_VOL_L1, 1, 0, 3),
    ECC_ROW(NVML_FI_DEV_ECC_DBE_AGG_L1, 1, 1, 3),
    ECC_ROW(NVML_FI_DEV_ECC_SBE_VOL_L2, 0, 0, 4),
    ECC_ROW(NVML_FI_DEV_ECC_SBE_AGG_L2, 0, 1, 4),
    ECC_ROW(NVML_FI_DEV_ECC_DBE_VOL_L2, 1, 0, 4),
    ECC_ROW(NVML_FI_DEV_ECC_DBE_AGG_L2, 1, 1, 4),
    ECC_ROW(NVML_FI_DEV_ECC_SBE_VOL_TEX, 0, 0, 5),
    ECC_ROW(NVML_FI_DEV_ECC_SBE_AGG_TEX, 0, 1, 5),
    ECC_ROW(NVML_FI_DEV_ECC_DBE_VOL_TEX, 1, 0, 5),
    ECC_ROW(NVML_FI_DEV_ECC_DBE_AGG_TEX, 1, 1, 5),
    ECC_ROW(NVML_FI_DEV_ECC_DBE_VOL_CBU, 1, 0, 6),
    ECC_ROW(NVML_FI_DEV_ECC_DBE_AGG_CBU, 1, 1, 6),
};
#define N_FIELDS (sizeof fields / sizeof fields[0])

int nv_field_value(const nvmlFieldValue_t *f, double *out)
{
    switch (f->valueType) {
    case NVML_VALUE_TYPE_DOUBLE: *out = f->value.dVal; return 1;
    case NVML_VALUE_TYPE_UNSIGNED_INT: *out = f->value.uiVal; return 1;
    case NVML_VALUE_TYPE_UNSIGNED_LONG: *out = (double)f->value.ulVal; return 1;
    case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG: *out = (double)f->value.ullVal; return 1;
    case NVML_VALUE_TYPE_SIGNED_LONG_LONG: *out = (double)f->value.sllVal; return 1;
    case NVML_VALUE_TYPE_SIGNED_INT: *out = f->value.siVal; return 1;
    case NVML_VALUE_TYPE_UNSIGNED_SHORT: *out = f->value.usVal; return 1;
    }
    return 0;
}

/* Single getters, for libraries without (or refusing) GetFieldValues. */
static void read_fallbacks(nv_rd *r)
{
    const nvml_fns *f = &r->b->fn;
    nvD dev = r->g->dev;
    nv_unsupported(r, M_TEMP_MEMORY); /* only a field value gives these two */
    nv_unsupported(r, M_POWER_DRAW_INSTANT);
    nv_unsupported(r, M_POWER_DRAW_AVERAGE);
    nv_unsupported(r, M_VIOL_SW_THERMAL); /* the violation call has no policy for these two */
    nv_unsupported(r, M_VIOL_POWER_BRAKE);
    nv_unsupported(r, M_REMAP_COR_INACTIVE);
    nv_unsupported(r, M_REMAP_UNC_INACTIVE);
    unsigned long long ull = 0;
    if (f->GetTotalEnergyConsumption && nv_need(r, M_ENERGY) &&
        nv_check1(r, NV_GetTotalEnergyConsumption, f->GetTotalEnergyConsumption(dev, &ull), M_ENERGY))
        nv_set(r, M_ENERGY, (double)ull);
    unsigned u = 0;
    if (f->GetPcieReplayCounter && nv_need(r, M_PCIE_REPLAY) &&
        nv_check1(r, NV_GetPcieReplayCounter, f->GetPcieReplayCounter(dev, &u), M_PCIE_REPLAY))
        nv_set(r, M_PCIE_REPLAY, u);
    static const struct {
        nvmlMemoryErrorType_t e;
        nvmlEccCounterType_t c;
        metric_id id;
    } ecc[] = {{NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_VOLATILE_ECC, M_ECC_SBE_VOL},
               {NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC, M_ECC_DBE_VOL},
               {NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_AGGREGATE_ECC, M_ECC_SBE_AGG},
               {NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_AGGREGATE_ECC, M_ECC_DBE_AGG}};
    for (size_t i = 0; i < 4 && f->GetTotalEccErrors; i++)
        if (nv_need(r, ecc[i].id) &&
            nv_check1(r, NV_GetTotalEccErrors, f->GetTotalEccErrors(dev, ecc[i].e, ecc[i].c, &ull), ecc[i].id))
            nv_set(r, ecc[i].id, (double)ull);
    static const metric_id remap[] = {M_REMAP_COR, M_REMAP_UNC, M_REMAP_PENDING, M_REMAP_FAILURE};
    unsigned rw[4] = {0};
    if (f->GetRemappedRows &&
        (nv_need(r, M_REMAP_COR) || nv_need(r, M_REMAP_UNC) || nv_need(r, M_REMAP_PENDING) ||
         nv_need(r, M_REMAP_FAILURE)) &&
        nv_check(r, NV_GetRemappedRows, f->GetRemappedRows(dev, &rw[0], &rw[1], &rw[2], &rw[3]), remap, 4))
        for (int i = 0; i < 4; i++)
            nv_set(r, remap[i], rw[i]);
    static const struct {
        nvmlPerfPolicyType_t p;
        metric_id id;
    } viol[] = {{NVML_PERF_POLICY_POWER, M_VIOL_POWER},
                {NVML_PERF_POLICY_THERMAL, M_VIOL_THERMAL},
                {NVML_PERF_POLICY_SYNC_BOOST, M_VIOL_SYNC_BOOST}};
    for (size_t i = 0; i < sizeof viol / sizeof viol[0] && f->GetViolationStatus; i++) {
        nvmlViolationTime_t vt;
        if (nv_need(r, viol[i].id) &&
            nv_check1(r, NV_GetViolationStatus, f->GetViolationStatus(dev, viol[i].p, &vt), viol[i].id))
            nv_set(r, viol[i].id, vt.violationTime / 1000.0);
    }
}

void nv_read_fields(nv_rd *r)
{
    if (!r->b->fn.GetFieldValues || r->g->fields_off) {
        read_fallbacks(r);
        return;
    }
    nvmlFieldValue_t fv[N_FIELDS + NVLINK_NLINKS * NVL_NKINDS];
    unsigned char row[N_FIELDS];
    int n = 0;
    for (unsigned i = 0; i < N_FIELDS; i++) {
        if (!nv_need(r, fields[i].id) || (fields[i].fallback && mset_has(&r->g->field_off, fields[i].id)))
            continue;
        memset(&fv[n], 0, sizeof fv[n]);
        fv[n].fieldId = fields[i].fid;
        row[n++] = (unsigned char)i;
    }
    int ncat = n; /* then the NVLink links' rows */
    n += nv_nvlink_fields(r, fv + ncat, NVLINK_NLINKS * NVL_NKINDS);
    if (n == 0)
        return;
    nvmlReturn_t rc = r->b->fn.GetFieldValues(r->g->dev, n, fv);
    if (n > ncat)
        nv_nvlink_fields_take(r, rc, fv + ncat);
    if (nv_refused(rc)) {
        r->g->fields_off = 1;
        read_fallbacks(r);
        return;
    }
    if (rc != NVML_SUCCESS) {
        nv_check(r, NV_GetFieldValues, rc, NULL, 0);
        return;
    }
    for (int k = 0; k < ncat; k++) {
        const struct nv_field *d = &fields[row[k]];
        double v = 0;
        nvmlReturn_t frc = fv[k].nvmlReturn;
        if (frc == NVML_SUCCESS && !nv_field_value(&fv[k], &v))
            frc = NVML_ERROR_UNKNOWN; /* a value type this build does not know */
        if (d->fallback && nv_refused(frc)) {
            mset_add(&r->g->field_off, d->id); /* its getter answers instead, now and from now on */
            continue;
        }
        if (nv_check1(r, NV_GetFieldValues, frc, d->id))
            nv_set(r, d->id, nv_scaled(v, d->scale));
    }
}
