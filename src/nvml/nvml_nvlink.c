/* nvml_nvlink.c - NVLink per link: whether each link is up and its data-link error counters (CRC,
 * replay, recovery), plus the number of links up and the counters summed over the links. The
 * sample's one nvmlDeviceGetFieldValues call (nvml_fields.c) asks every link too (NVLINK_GET_STATE
 * and the NVLINK_ERROR_DL_* fields, each scoped to its link); where the library refuses those fields, the
 * per-link getters (nvmlDeviceGetNvLinkState, nvmlDeviceGetNvLinkErrorCounter, CRC = flit + data).
 * A link the GPU does not have answers NOT_SUPPORTED or INVALID_ARGUMENT: its metrics are absent
 * and never asked again, so a GPU without NVLink costs one call, at its first sample. */
#include <string.h>
#include "nvml_priv.h"

static const metric_id total_id[NVL_NKINDS] = {M_NVLINK_ACTIVE, M_NVLINK_CRC_TOTAL, M_NVLINK_REPLAY_TOTAL,
                                               M_NVLINK_RECOVERY_TOTAL};
static const unsigned field_id[NVL_NKINDS] = {NVML_FI_DEV_NVLINK_GET_STATE, NVML_FI_DEV_NVLINK_ERROR_DL_CRC,
                                              NVML_FI_DEV_NVLINK_ERROR_DL_REPLAY, NVML_FI_DEV_NVLINK_ERROR_DL_RECOVERY};

/* A link or counter is read when it, or the total it adds to, is wanted and not known unsupported. */
static int need(const nv_rd *r, int link, nvlink_kind k)
{
    metric_id id = nvlink_id(link, k);
    if (r->g->lost || mset_has(&r->g->unsup, id))
        return 0;
    return mset_has(&r->want, id) || mset_has(&r->want, total_id[k]);
}

/* One value of one link, or its failure: a link the GPU does not have is unsupported, not an error. */
static void take(nv_rd *r, nv_sym sym, nvmlReturn_t rc, int link, nvlink_kind k, double v, nvl_sums *s)
{
    metric_id id = nvlink_id(link, k);
    if (rc == NVML_ERROR_INVALID_ARGUMENT)
        rc = NVML_ERROR_NOT_SUPPORTED;
    if (!nv_check1(r, sym, rc, id))
        return;
    if (k == NVL_STATE)
        v = v == NVML_FEATURE_ENABLED;
    nv_set(r, id, v);
    s->sum[k] += v;
    s->have[k] = 1;
}

static void read_by_getters(nv_rd *r, int counters_only, nvl_sums *s)
{
    const nvml_fns *f = &r->b->fn;
    nvD dev = r->g->dev;
    for (int l = 0; l < NVLINK_NLINKS; l++) {
        for (int k = counters_only ? NVL_CRC : NVL_STATE; k < NVL_NKINDS; k++)
            if (k == NVL_STATE ? !f->GetNvLinkState : !f->GetNvLinkErrorCounter)
                nv_unsupported(r, nvlink_id(l, (nvlink_kind)k)); /* no way to read it */
        if (!counters_only && f->GetNvLinkState && need(r, l, NVL_STATE)) {
            nvmlEnableState_t on = NVML_FEATURE_DISABLED;
            nvmlReturn_t rc = f->GetNvLinkState(dev, (unsigned)l, &on);
            take(r, NV_GetNvLinkState, rc, l, NVL_STATE, on, s);
        }
        static const nvmlNvLinkErrorCounter_t ctr[NVL_NKINDS][2] = {
            [NVL_CRC] = {NVML_NVLINK_ERROR_DL_CRC_FLIT, NVML_NVLINK_ERROR_DL_CRC_DATA},
            [NVL_REPLAY] = {NVML_NVLINK_ERROR_DL_REPLAY, NVML_NVLINK_ERROR_DL_REPLAY},
            [NVL_RECOVERY] = {NVML_NVLINK_ERROR_DL_RECOVERY, NVML_NVLINK_ERROR_DL_RECOVERY}};
        for (int k = NVL_CRC; k < NVL_NKINDS && f->GetNvLinkErrorCounter; k++) {
            if (!need(r, l, (nvlink_kind)k))
                continue;
            unsigned long long a = 0, b = 0;
            nvmlReturn_t rc = f->GetNvLinkErrorCounter(dev, (unsigned)l, ctr[k][0], &a);
            if (rc == NVML_SUCCESS && ctr[k][1] != ctr[k][0])
                rc = f->GetNvLinkErrorCounter(dev, (unsigned)l, ctr[k][1], &b);
            take(r, NV_GetNvLinkErrorCounter, rc, l, (nvlink_kind)k, (double)(a + b), s);
        }
    }
}

static int any_needed(const nv_rd *r)
{
    for (int l = 0; l < NVLINK_NLINKS; l++)
        for (int k = 0; k < NVL_NKINDS; k++)
            if (need(r, l, (nvlink_kind)k))
                return 1;
    return 0;
}

int nv_nvlink_fields(nv_rd *r, nvmlFieldValue_t *fv, int max)
{
    int n = 0;
    r->nvl_rows = 0;
    if (!r->b->fn.GetFieldValues || r->g->nvl_fields_off)
        return 0;
    for (int l = 0; l < NVLINK_NLINKS; l++)
        for (int k = 0; k < NVL_NKINDS && n < max; k++) {
            if (!need(r, l, (nvlink_kind)k) || (k != NVL_STATE && r->g->nvl_counter_getters))
                continue;
            memset(&fv[n], 0, sizeof fv[n]);
            fv[n].fieldId = field_id[k];
            fv[n].scopeId = (unsigned)l;
            r->nvl_link[n] = (unsigned char)l;
            r->nvl_kind[n++] = (unsigned char)k;
        }
    r->nvl_rows = n;
    return n;
}

void nv_nvlink_fields_take(nv_rd *r, nvmlReturn_t rc, const nvmlFieldValue_t *fv)
{
    int n = r->nvl_rows;
    if (nv_refused(rc)) {
        r->g->nvl_fields_off = 1; /* nv_nvlink_read asks the getters */
        return;
    }
    r->nvl_read = 1;
    int state_ok = 0, counters_refused = 0;
    for (int i = 0; rc == NVML_SUCCESS && i < n; i++) {
        double v = 0;
        nvmlReturn_t frc = fv[i].nvmlReturn;
        if (frc == NVML_SUCCESS && !nv_field_value(&fv[i], &v))
            frc = NVML_ERROR_UNKNOWN; /* a value type this build does not know */
        state_ok |= r->nvl_kind[i] == NVL_STATE && frc == NVML_SUCCESS;
        if (r->nvl_kind[i] != NVL_STATE && frc == NVML_ERROR_NOT_SUPPORTED && r->b->fn.GetNvLinkErrorCounter) {
            counters_refused = 1; /* a driver without these fields: the counters come from the getter */
            continue;
        }
        take(r, NV_GetFieldValues, frc, r->nvl_link[i], (nvlink_kind)r->nvl_kind[i], v, &r->nvl);
    }
    if (counters_refused && state_ok) {
        r->g->nvl_counter_getters = 1;
    } else if (counters_refused) {
        for (int i = 0; i < n; i++)
            if (r->nvl_kind[i] != NVL_STATE)
                nv_unsupported(r, nvlink_id(r->nvl_link[i], (nvlink_kind)r->nvl_kind[i]));
    }
    if (r->g->nvl_counter_getters) /* the rows asked the states only, or the driver has no counter fields */
        read_by_getters(r, 1, &r->nvl);
}

/* The links alone in one call, where the sample's batch did not ask them. */
static void read_by_fields(nv_rd *r)
{
    nvmlFieldValue_t fv[NVLINK_NLINKS * NVL_NKINDS];
    int n = nv_nvlink_fields(r, fv, NVLINK_NLINKS * NVL_NKINDS);
    if (n > 0) {
        nvmlReturn_t rc = r->b->fn.GetFieldValues(r->g->dev, n, fv);
        if (rc != NVML_SUCCESS && !nv_refused(rc))
            nv_check(r, NV_GetFieldValues, rc, NULL, 0);
        nv_nvlink_fields_take(r, rc, fv);
    } else if (r->g->nvl_counter_getters)
        read_by_getters(r, 1, &r->nvl);
}

void nv_nvlink_read(nv_rd *r)
{
    if (!r->nvl_read) { /* the sample's batch did not ask the links */
        if (!any_needed(r))
            return;
        if (r->b->fn.GetFieldValues && !r->g->nvl_fields_off)
            read_by_fields(r);
        else
            r->g->nvl_fields_off = 1;
        if (r->g->nvl_fields_off)
            read_by_getters(r, 0, &r->nvl);
    }
    const nvl_sums s = r->nvl;
    for (int k = 0; k < NVL_NKINDS; k++) {
        if (s.have[k])
            nv_set(r, total_id[k], s.sum[k]);
        int left = 0; /* links still asked for this: none means the total is unsupported too */
        for (int l = 0; l < NVLINK_NLINKS; l++)
            left |= !mset_has(&r->g->unsup, nvlink_id(l, (nvlink_kind)k));
        if (!left)
            nv_unsupported(r, total_id[k]);
    }
}
