/* diag_series.c - the compact (time, value) series of the diagnosis window: append, trim, look-up,
 * and the table of signals (which metric each is read from, its name and unit). */
#include "diag_window.h"
#include <stdlib.h>
#include <string.h>

static const struct {
    metric_id metric;
    const char *unit;
} signal_table[DS_COUNT] = {
    [DS_UTIL] = {M_UTIL_GPU, "%"},
    [DS_MEM_UTIL] = {M_UTIL_MEMORY, "%"},
    [DS_MEM_USED] = {M_MEM_USED, "MiB"},
    [DS_POWER] = {M_POWER_DRAW, "W"},
    [DS_TEMP] = {M_TEMP_GPU, "C"},
    [DS_TEMP_MEM] = {M_TEMP_MEMORY, "C"},
    [DS_CLOCK_SM] = {M_CLOCK_SM, "MHz"},
    [DS_SM_ACTIVE] = {M_GPM_SM_ACTIVE, "%"},
    [DS_PCIE_RX] = {M_PCIE_RX, "KB/s"},
    [DS_PCIE_TX] = {M_PCIE_TX, "KB/s"},
    [DS_POWER_LIMIT] = {M_POWER_ENFORCED_LIMIT, "W"},
    [DS_CER] = {M_CER_ACTIVE, ""},
    [DS_PCIE_GEN] = {M_PCIE_GEN_CUR, ""},
    [DS_PCIE_WIDTH] = {M_PCIE_WIDTH_CUR, ""},
    [DS_PCIE_REPLAY] = {M_PCIE_REPLAY, ""},
    [DS_CLOCK_APP] = {M_CLOCK_APP_GR, "MHz"},
    [DS_PSTATE] = {M_PSTATE, ""},
    [DS_REMAP_COR] = {M_REMAP_COR, ""},
    [DS_REMAP_UNC] = {M_REMAP_UNC, ""},
    [DS_REMAP_PEND] = {M_REMAP_PENDING, ""},
    [DS_REMAP_FAIL] = {M_REMAP_FAILURE, ""},
    [DS_REMAP_NONE] = {M_REMAP_HIST_NONE, ""},
    [DS_RETIRED_SBE] = {M_RETIRED_SBE, ""},
    [DS_RETIRED_DBE] = {M_RETIRED_DBE, ""},
    [DS_RETIRED_PEND] = {M_RETIRED_PENDING, ""},
};

metric_id diag_signal_metric(diag_signal s)
{
    return signal_table[s].metric;
}

const char *diag_signal_name(diag_signal s)
{
    return catalog_get(signal_table[s].metric)->field;
}

const char *diag_signal_unit(diag_signal s)
{
    return signal_table[s].unit;
}

void diag_window_metrics(metric_set *want)
{
    static const metric_id events[] = {M_XID_COUNT,   M_XID_LAST,    M_ECC_DBE_VOL,
                                       M_ECC_DBE_AGG, M_GPM_PCIE_RX, M_GPM_PCIE_TX};
    for (int i = 0; i < DS_COUNT; i++)
        mset_add(want, signal_table[i].metric);
    for (size_t i = 0; i < sizeof events / sizeof events[0]; i++)
        mset_add(want, events[i]);
    mset_add(want, M_NVLINK_ACTIVE);
    for (int l = 0; l < NVLINK_NLINKS; l++)
        for (int k = 0; k < NVL_NKINDS; k++)
            mset_add(want, nvlink_id(l, (nvlink_kind)k));
}

int diag_series_push(diag_series *s, uint64_t t, float v)
{
    if (s->n == s->cap) {
        int cap = s->cap ? s->cap * 2 : 64;
        uint64_t *nt = realloc(s->t, (size_t)cap * sizeof *nt);
        if (!nt)
            return -1;
        s->t = nt;
        float *nv = realloc(s->v, (size_t)cap * sizeof *nv);
        if (!nv)
            return -1;
        s->v = nv;
        s->cap = cap;
    }
    s->t[s->n] = t;
    s->v[s->n] = v;
    s->n++;
    return 0;
}

void diag_series_trim(diag_series *s, uint64_t t_us, int keep_last_before)
{
    int k = 0;
    while (k < s->n && s->t[k] < t_us)
        k++;
    if (k == 0)
        return;
    if (keep_last_before && (k == s->n || s->t[k] > t_us)) {
        /* a step series keeps the value in force at t_us */
        k--;
        s->t[k] = t_us;
    }
    memmove(s->t, s->t + k, (size_t)(s->n - k) * sizeof *s->t);
    memmove(s->v, s->v + k, (size_t)(s->n - k) * sizeof *s->v);
    s->n -= k;
}

void diag_series_free(diag_series *s)
{
    free(s->t);
    free(s->v);
    memset(s, 0, sizeof *s);
}

int diag_series_at(const diag_series *s, uint64_t t, int *hint)
{
    if (s->n == 0 || s->t[0] > t)
        return -1;
    int i = hint && *hint >= 0 && *hint < s->n && s->t[*hint] <= t ? *hint : 0;
    if (i == 0 && s->n > 16 && s->t[s->n / 2] <= t) {
        /* far from the hint: binary search */
        int lo = 0, hi = s->n - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) / 2;
            if (s->t[mid] <= t)
                lo = mid;
            else
                hi = mid - 1;
        }
        i = lo;
    }
    while (i + 1 < s->n && s->t[i + 1] <= t)
        i++;
    if (hint)
        *hint = i;
    return i;
}
