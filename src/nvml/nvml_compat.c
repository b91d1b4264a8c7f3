/* nvml_compat.c - the rest of nvidia-smi's --query-gpu fields that NVML answers: modes (compute,
 * persistence, display, accounting, driver model, GOM, GSP, C2C, addressing), InfoROM versions, PCI
 * position and class, applications clocks, encoder statistics, per-location ECC counters, retired
 * pages, the row remapper histogram and the T.Limit margin. The static ones are read once with the
 * GPU's identity (nv_compat_info), the others per sample and only when wanted (nv_compat_read). */
#include <stdio.h>
#include <string.h>
#include "nvml_priv.h"
#include "util.h"

typedef nvmlReturn_t (*nv_state_fn)(nvmlDevice_t, nvmlEnableState_t *);

static void set_str(gpu_info *info, metric_id id, const char *s)
{
    gw_strlcpy(info->str[id], s, GW_STR_LEN);
    mset_add(&info->str_present, id);
}

/* One nvmlEnableState_t getter into one metric (0/1). */
static void read_state(nv_rd *r, nv_sym sym, nv_state_fn fn, metric_id id)
{
    nvmlEnableState_t v = NVML_FEATURE_DISABLED;
    if (fn && nv_need(r, id) && nv_check1(r, sym, fn(r->g->dev, &v), id))
        nv_set(r, id, v == NVML_FEATURE_ENABLED);
}

/* A pair (current, pending) of unsigned values from one call (made before: the values are read
 * after it returns). */
static void set_pair(nv_rd *r, const metric_id ids[2], nv_sym sym, nvmlReturn_t rc, unsigned cur, unsigned pend)
{
    if (nv_check(r, sym, rc, ids, 2)) {
        nv_set(r, ids[0], cur);
        nv_set(r, ids[1], pend);
    }
}

static int need2(const nv_rd *r, metric_id a, metric_id b)
{
    return nv_need(r, a) || nv_need(r, b);
}

/* pci.domain/bus/device as nvidia-smi prints them ("0x0000", "0x00", "0x09"), and the class codes. */
static void read_pci_strings(nv_rd *r, gpu_info *info)
{
    char s[GW_STR_LEN];
    if (r->g->have_pci) {
        snprintf(s, sizeof s, "0x%04X", r->g->pci_domain);
        set_str(info, M_PCI_DOMAIN, s);
        snprintf(s, sizeof s, "0x%02X", r->g->pci_bus);
        set_str(info, M_PCI_BUS, s);
        snprintf(s, sizeof s, "0x%02X", r->g->pci_device);
        set_str(info, M_PCI_DEVICE, s);
    }
    static const metric_id ids[] = {M_PCI_BASE_CLASS, M_PCI_SUB_CLASS};
    nvmlPciInfoExt_t ext = {.version = nvmlPciInfoExt_v1};
    if (!r->b->fn.GetPciInfoExt || r->g->lost || mset_has(&r->g->unsup, M_PCI_BASE_CLASS))
        return;
    if (nv_check(r, NV_GetPciInfoExt, r->b->fn.GetPciInfoExt(r->g->dev, &ext), ids, 2)) {
        snprintf(s, sizeof s, "0x%X", ext.baseClass);
        set_str(info, M_PCI_BASE_CLASS, s);
        snprintf(s, sizeof s, "0x%X", ext.subClass);
        set_str(info, M_PCI_SUB_CLASS, s);
    }
}

static void read_inforom(nv_rd *r, gpu_info *info)
{
    static const struct {
        nvmlInforomObject_t obj;
        metric_id id;
    } objs[] = {
        {NVML_INFOROM_OEM, M_INFOROM_OEM}, {NVML_INFOROM_ECC, M_INFOROM_ECC}, {NVML_INFOROM_POWER, M_INFOROM_PWR}};
    char buf[GW_STR_LEN];
    const nvml_fns *f = &r->b->fn;
    if (f->GetInforomImageVersion && !r->g->lost && !mset_has(&r->g->unsup, M_INFOROM_IMG) &&
        nv_check1(r, NV_GetInforomImageVersion, f->GetInforomImageVersion(r->g->dev, buf, sizeof buf), M_INFOROM_IMG)) {
        buf[sizeof buf - 1] = 0;
        set_str(info, M_INFOROM_IMG, buf);
    }
    for (size_t i = 0; i < sizeof objs / sizeof objs[0] && f->GetInforomVersion; i++) {
        if (r->g->lost || mset_has(&r->g->unsup, objs[i].id))
            continue;
        if (nv_check1(r, NV_GetInforomVersion, f->GetInforomVersion(r->g->dev, objs[i].obj, buf, sizeof buf),
                      objs[i].id)) {
            buf[sizeof buf - 1] = 0;
            set_str(info, objs[i].id, buf);
        }
    }
}

/* Modes that change only with a reboot or a reset, and the default applications clocks. */
static void read_static_modes(nv_rd *r)
{
    const nvml_fns *f = &r->b->fn;
    nvD dev = r->g->dev;
    unsigned a = 0, b = 0;
    nv_read_u32(r, NV_GetAccountingBufferSize, f->GetAccountingBufferSize, M_ACCOUNTING_BUFFER, 1);
    nv_read_u32(r, NV_GetGpuMaxPcieLinkGeneration, f->GetGpuMaxPcieLinkGeneration, M_PCIE_GEN_GPUMAX, 1);
    read_state(r, NV_GetPowerManagementMode, f->GetPowerManagementMode, M_POWER_MANAGEMENT);
    nvmlDeviceAddressingMode_t am = {.version = nvmlDeviceAddressingMode_v1};
    if (f->GetAddressingMode && nv_need(r, M_ADDRESSING_MODE) &&
        nv_check1(r, NV_GetAddressingMode, f->GetAddressingMode(dev, &am), M_ADDRESSING_MODE))
        nv_set(r, M_ADDRESSING_MODE, am.value);
    nvmlReturn_t rc;
    static const metric_id dm[] = {M_DRIVER_MODEL_CUR, M_DRIVER_MODEL_PEND};
    if (f->GetDriverModel && need2(r, dm[0], dm[1])) {
        rc = f->GetDriverModel(dev, &a, &b);
        set_pair(r, dm, NV_GetDriverModel, rc, a, b);
    }
    static const metric_id gom[] = {M_GOM_CUR, M_GOM_PEND};
    if (f->GetGpuOperationMode && need2(r, gom[0], gom[1])) {
        rc = f->GetGpuOperationMode(dev, &a, &b);
        set_pair(r, gom, NV_GetGpuOperationMode, rc, a, b);
    }
    static const metric_id gsp[] = {M_GSP_MODE_CUR, M_GSP_MODE_DEFAULT};
    if (f->GetGspFirmwareMode && need2(r, gsp[0], gsp[1])) {
        rc = f->GetGspFirmwareMode(dev, &a, &b);
        set_pair(r, gsp, NV_GetGspFirmwareMode, rc, a != 0, b != 0);
    }
    nvmlC2cModeInfo_v1_t c2c = {0};
    if (f->GetC2cModeInfoV && nv_need(r, M_C2C_MODE) &&
        nv_check1(r, NV_GetC2cModeInfoV, f->GetC2cModeInfoV(dev, &c2c), M_C2C_MODE))
        nv_set(r, M_C2C_MODE, c2c.isC2cEnabled != 0);
    static const metric_id enc[] = {M_DRAM_ENC_CUR, M_DRAM_ENC_PEND};
    nvmlDramEncryptionInfo_t ec = {.version = nvmlDramEncryptionInfo_v1}, ep = ec;
    if (f->GetDramEncryptionMode && need2(r, enc[0], enc[1])) {
        rc = f->GetDramEncryptionMode(dev, &ec, &ep);
        set_pair(r, enc, NV_GetDramEncryptionMode, rc, ec.encryptionState == NVML_FEATURE_ENABLED,
                 ep.encryptionState == NVML_FEATURE_ENABLED);
    }
    static const struct {
        nvmlClockType_t t;
        metric_id id;
    } ck[] = {{NVML_CLOCK_GRAPHICS, M_CLOCK_DEF_APP_GR}, {NVML_CLOCK_MEM, M_CLOCK_DEF_APP_MEM}};
    for (size_t i = 0; i < 2 && f->GetDefaultApplicationsClock; i++)
        if (nv_need(r, ck[i].id) &&
            nv_check1(r, NV_GetDefaultApplicationsClock, f->GetDefaultApplicationsClock(dev, ck[i].t, &a), ck[i].id))
            nv_set(r, ck[i].id, a);
}

void nv_compat_info(nv_rd *r, gpu_info *info)
{
    read_pci_strings(r, info);
    read_inforom(r, info);
    read_static_modes(r);
}

/* Modes an administrator changes at run time. */
static void read_modes(nv_rd *r)
{
    const nvml_fns *f = &r->b->fn;
    unsigned v = 0;
    if (f->GetComputeMode && nv_need(r, M_COMPUTE_MODE) &&
        nv_check1(r, NV_GetComputeMode, f->GetComputeMode(r->g->dev, &v), M_COMPUTE_MODE))
        nv_set(r, M_COMPUTE_MODE, v);
    read_state(r, NV_GetPersistenceMode, f->GetPersistenceMode, M_PERSISTENCE_MODE);
    read_state(r, NV_GetDisplayActive, f->GetDisplayActive, M_DISPLAY_ACTIVE);
    read_state(r, NV_GetAccountingMode, f->GetAccountingMode, M_ACCOUNTING_MODE);
    /* display_mode is what nvidia-smi now calls display_attached: one call for both */
    static const metric_id disp[] = {M_DISPLAY_MODE, M_DISPLAY_ATTACHED};
    nvmlEnableState_t d = NVML_FEATURE_DISABLED;
    if (f->GetDisplayMode && need2(r, disp[0], disp[1]) &&
        nv_check(r, NV_GetDisplayMode, f->GetDisplayMode(r->g->dev, &d), disp, 2)) {
        nv_set(r, M_DISPLAY_MODE, d == NVML_FEATURE_ENABLED);
        nv_set(r, M_DISPLAY_ATTACHED, d == NVML_FEATURE_ENABLED);
    }
    static const struct {
        nvmlClockType_t t;
        metric_id id;
    } ck[] = {{NVML_CLOCK_GRAPHICS, M_CLOCK_APP_GR}, {NVML_CLOCK_MEM, M_CLOCK_APP_MEM}};
    for (size_t i = 0; i < 2 && f->GetApplicationsClock; i++)
        if (nv_need(r, ck[i].id) &&
            nv_check1(r, NV_GetApplicationsClock, f->GetApplicationsClock(r->g->dev, ck[i].t, &v), ck[i].id))
            nv_set(r, ck[i].id, v);
}

static void read_encoder_stats(nv_rd *r)
{
    static const metric_id ids[] = {M_ENC_SESSIONS, M_ENC_FPS, M_ENC_LATENCY};
    unsigned n = 0, fps = 0, lat = 0;
    if (!r->b->fn.GetEncoderStats || !(nv_need(r, ids[0]) || nv_need(r, ids[1]) || nv_need(r, ids[2])))
        return;
    if (nv_check(r, NV_GetEncoderStats, r->b->fn.GetEncoderStats(r->g->dev, &n, &fps, &lat), ids, 3)) {
        nv_set(r, M_ENC_SESSIONS, n);
        nv_set(r, M_ENC_FPS, fps);
        nv_set(r, M_ENC_LATENCY, lat);
    }
}

static void read_fbc_stats(nv_rd *r)
{
    static const metric_id ids[] = {M_FBC_SESSIONS, M_FBC_FPS, M_FBC_LATENCY};
    nvmlFBCStats_t st = {0};
    if (!r->b->fn.GetFBCStats || !(nv_need(r, ids[0]) || nv_need(r, ids[1]) || nv_need(r, ids[2])))
        return;
    if (nv_check(r, NV_GetFBCStats, r->b->fn.GetFBCStats(r->g->dev, &st), ids, 3)) {
        nv_set(r, M_FBC_SESSIONS, st.sessionsCount);
        nv_set(r, M_FBC_FPS, st.averageFPS);
        nv_set(r, M_FBC_LATENCY, st.averageLatency);
    }
}

static void read_margin(nv_rd *r)
{
    nvmlMarginTemperature_t m = {.version = nvmlMarginTemperature_v1};
    if (r->b->fn.GetMarginTemperature && nv_need(r, M_TEMP_TLIMIT) &&
        nv_check1(r, NV_GetMarginTemperature, r->b->fn.GetMarginTemperature(r->g->dev, &m), M_TEMP_TLIMIT))
        nv_set(r, M_TEMP_TLIMIT, m.marginTemperature);
}

/* Per-location ECC counters: one call per (type, counter, location); device_memory and dram
 * are the same NVML location, read once for both. */
static void read_ecc_locations(nv_rd *r)
{
    if (!r->b->fn.GetMemoryErrorCounter)
        return;
    for (int unc = 0; unc < 2; unc++)
        for (int agg = 0; agg < 2; agg++)
            for (int loc = 0; loc < ECC_NLOC; loc++) {
                metric_id id = (metric_id)ecc_loc_id(unc, agg, loc);
                /* location 1 (dram) was read with location 0 (device_memory) when either was wanted */
                if (loc == 1 && ecc_loc_nvml(0) == ecc_loc_nvml(1))
                    continue;
                metric_id twin = (metric_id)ecc_loc_id(unc, agg, 1);
                int pair = loc == 0 && ecc_loc_nvml(0) == ecc_loc_nvml(1);
                if (!nv_need(r, id) && !(pair && nv_need(r, twin)))
                    continue;
                unsigned long long n = 0;
                metric_id ids[2] = {id, twin};
                nvmlReturn_t rc = r->b->fn.GetMemoryErrorCounter(
                    r->g->dev, unc ? NVML_MEMORY_ERROR_TYPE_UNCORRECTED : NVML_MEMORY_ERROR_TYPE_CORRECTED,
                    agg ? NVML_AGGREGATE_ECC : NVML_VOLATILE_ECC, ecc_loc_nvml(loc), &n);
                if (nv_check(r, NV_GetMemoryErrorCounter, rc, ids, pair ? 2 : 1)) {
                    nv_set(r, id, (double)n);
                    if (pair)
                        nv_set(r, twin, (double)n);
                }
            }
}

static void read_retired_pages(nv_rd *r)
{
    static const struct {
        unsigned cause;
        metric_id id;
    } rp[] = {{NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS, M_RETIRED_SBE},
              {NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR, M_RETIRED_DBE}};
    const nvml_fns *f = &r->b->fn;
    for (size_t i = 0; i < 2 && f->GetRetiredPages; i++) {
        unsigned count = 0;
        if (!nv_need(r, rp[i].id))
            continue;
        /* a count of 0 and no buffer asks for the count; INSUFFICIENT_SIZE carries it too */
        nvmlReturn_t rc = f->GetRetiredPages(r->g->dev, rp[i].cause, &count, NULL);
        if (rc == NVML_ERROR_INSUFFICIENT_SIZE)
            rc = NVML_SUCCESS;
        if (nv_check1(r, NV_GetRetiredPages, rc, rp[i].id))
            nv_set(r, rp[i].id, count);
    }
    read_state(r, NV_GetRetiredPagesPendingStatus, f->GetRetiredPagesPendingStatus, M_RETIRED_PENDING);
}

static void read_remap_histogram(nv_rd *r)
{
    static const metric_id ids[] = {M_REMAP_HIST_MAX, M_REMAP_HIST_HIGH, M_REMAP_HIST_PARTIAL, M_REMAP_HIST_LOW,
                                    M_REMAP_HIST_NONE};
    int want = 0;
    for (int i = 0; i < 5; i++)
        want |= nv_need(r, ids[i]);
    nvmlRowRemapperHistogramValues_t h;
    if (!want || !r->b->fn.GetRowRemapperHistogram)
        return;
    memset(&h, 0, sizeof h);
    if (nv_check(r, NV_GetRowRemapperHistogram, r->b->fn.GetRowRemapperHistogram(r->g->dev, &h), ids, 5)) {
        nv_set(r, M_REMAP_HIST_MAX, h.max);
        nv_set(r, M_REMAP_HIST_HIGH, h.high);
        nv_set(r, M_REMAP_HIST_PARTIAL, h.partial);
        nv_set(r, M_REMAP_HIST_LOW, h.low);
        nv_set(r, M_REMAP_HIST_NONE, h.none);
    }
}

void nv_compat_read(nv_rd *r)
{
    read_modes(r);
    read_encoder_stats(r);
    read_fbc_stats(r);
    read_margin(r);
    read_ecc_locations(r);
    read_retired_pages(r);
    read_remap_histogram(r);
}
