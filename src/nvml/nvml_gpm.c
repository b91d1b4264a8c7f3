/* nvml_gpm.c - Hopper+ profiling metrics (GPM): rates between two GPM samples at least 100 ms apart.
 * Each GPU keeps its previous sample; a first read primes every GPM GPU at once, so a one-shot query
 * of N GPUs waits 100 ms once, not N times. */
#include <math.h>
#include <string.h>
#include "nvml_priv.h"
#include "util.h"

#define NV_GPM_MIN_US 100000u
/* A new pair of samples at most this often once rates exist: at a 1 s refresh the rates cover 2 s,
 * and a refresh in between repeats them (two NVML calls saved per GPU every other refresh). */
#define NV_GPM_PERIOD_US 1500000u

/* A GPM rate is a ratio of counters over ~a second, given as a double with ~16 digits, most of
 * them noise. It is kept to 0.001 of its unit (percent, MiB/s): the nearest double to a multiple
 * of 1/1000, which the ring and history store as a small integer change instead of a 64-bit XOR. */
static double gpm_milli(double v)
{
    if (!isfinite(v) || fabs(v) >= 1e12)
        return v;
    return round(v * 1000.0) / 1000.0;
}

static const struct {
    unsigned gpm_id;
    metric_id id;
} gpm_map[NV_GPM_IDS] = {
    {NVML_GPM_METRIC_GRAPHICS_UTIL, M_GPM_GR_ACTIVE},
    {NVML_GPM_METRIC_SM_UTIL, M_GPM_SM_ACTIVE},
    {NVML_GPM_METRIC_SM_OCCUPANCY, M_GPM_SM_OCCUPANCY},
    {NVML_GPM_METRIC_ANY_TENSOR_UTIL, M_GPM_TENSOR_ACTIVE},
    {NVML_GPM_METRIC_DRAM_BW_UTIL, M_GPM_DRAM_ACTIVE},
    {NVML_GPM_METRIC_PCIE_TX_PER_SEC, M_GPM_PCIE_TX},
    {NVML_GPM_METRIC_PCIE_RX_PER_SEC, M_GPM_PCIE_RX},
    {NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC, M_GPM_NVLINK_TX},
    {NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC, M_GPM_NVLINK_RX},
};

static int gpm_symbols(const backend *b)
{
    const nvml_fns *f = &b->fn;
    return f->GpmQueryDeviceSupport && f->GpmSampleAlloc && f->GpmSampleFree && f->GpmSampleGet && f->GpmMetricsGet;
}

static void mark_unsupported(nv_gpu *g)
{
    g->gpm_support = -1;
    for (int i = 0; i < NV_GPM_IDS; i++)
        mset_add(&g->unsup, gpm_map[i].id);
}

/* Whether the GPU does GPM, asked once; allocates its two sample buffers. */
static int supported(backend *b, nv_gpu *g)
{
    if (g->gpm_support)
        return g->gpm_support > 0;
    nvmlGpmSupport_t s = {.version = NVML_GPM_SUPPORT_VERSION};
    nvmlReturn_t rc = b->fn.GpmQueryDeviceSupport(g->dev, &s);
    if (rc == NVML_ERROR_GPU_IS_LOST) {
        g->lost = 1;
        nv_count_error(b, NV_GpmQueryDeviceSupport, rc);
        return 0;
    }
    if (rc != NVML_SUCCESS || !s.isSupportedDevice) {
        if (rc != NVML_SUCCESS && rc != NVML_ERROR_NOT_SUPPORTED)
            nv_count_error(b, NV_GpmQueryDeviceSupport, rc);
        mark_unsupported(g);
        return 0;
    }
    if ((rc = b->fn.GpmSampleAlloc(&g->gpm_prev)) != NVML_SUCCESS) {
        nv_count_error(b, NV_GpmSampleAlloc, rc);
        return 0; /* asked again next time */
    }
    if ((rc = b->fn.GpmSampleAlloc(&g->gpm_cur)) != NVML_SUCCESS) {
        nv_count_error(b, NV_GpmSampleAlloc, rc);
        b->fn.GpmSampleFree(g->gpm_prev);
        return 0;
    }
    g->gpm_alloc = 1;
    g->gpm_support = 1;
    return 1;
}

/* Takes the GPU's first ("previous") sample. */
static void prime(backend *b, nv_gpu *g)
{
    if (g->lost || g->gpm_prev_us || !supported(b, g))
        return;
    nvmlReturn_t rc = b->fn.GpmSampleGet(g->dev, g->gpm_prev);
    if (rc == NVML_SUCCESS) {
        g->gpm_prev_us = nv_clock_us(b);
    } else if (nv_refused(rc)) {
        mark_unsupported(g);
    } else {
        nv_count_error(b, NV_GpmSampleGet, rc);
        if (rc == NVML_ERROR_GPU_IS_LOST)
            g->lost = 1;
    }
}

/* Second sample, metrics between the two, then the new sample becomes the previous one. */
static void compute(nv_rd *r)
{
    backend *b = r->b;
    nv_gpu *g = r->g;
    nvmlReturn_t rc = b->fn.GpmSampleGet(g->dev, g->gpm_cur);
    if (nv_refused(rc))
        mark_unsupported(g);
    if (rc != NVML_SUCCESS) {
        nv_check(r, NV_GpmSampleGet, rc, NULL, 0);
        return;
    }
    uint64_t now = nv_clock_us(b);
    nvmlGpmMetricsGet_t *mg = &g->gpm_get;
    mg->version = NVML_GPM_METRICS_GET_VERSION;
    mg->sample1 = g->gpm_prev;
    mg->sample2 = g->gpm_cur;
    unsigned n = 0;
    unsigned char slot[NV_GPM_IDS];
    for (int i = 0; i < NV_GPM_IDS; i++) {
        if (mset_has(&g->unsup, gpm_map[i].id))
            continue;
        memset(&mg->metrics[n], 0, sizeof mg->metrics[n]);
        mg->metrics[n].metricId = gpm_map[i].gpm_id;
        slot[n++] = (unsigned char)i;
    }
    mg->numMetrics = n;
    rc = n ? b->fn.GpmMetricsGet(mg) : NVML_SUCCESS;
    if (nv_refused(rc))
        mark_unsupported(g);
    g->gpm_have = 0;
    if (nv_check(r, NV_GpmMetricsGet, rc, NULL, 0)) {
        for (unsigned k = 0; k < n; k++) {
            int i = slot[k];
            if (nv_check1(r, NV_GpmMetricsGet, mg->metrics[k].nvmlReturn, gpm_map[i].id)) {
                g->gpm_val[i] = gpm_milli(mg->metrics[k].value);
                g->gpm_have |= 1u << i;
            }
        }
    }
    nvmlGpmSample_t t = g->gpm_prev; /* swap: the sample just taken starts the next interval */
    g->gpm_prev = g->gpm_cur;
    g->gpm_cur = t;
    g->gpm_prev_us = now;
}

/* GPM's PCIe rates (MiB/s, averaged over the samples' interval) give the PCIe throughput (KB/s)
 * without GetPcieThroughput's two calls (whose window is 20 ms), when the caller wants both. */
static void pcie_from_gpm(nv_rd *r)
{
    static const metric_id from[2] = {M_GPM_PCIE_RX, M_GPM_PCIE_TX}, to[2] = {M_PCIE_RX, M_PCIE_TX};
    double v;
    for (int i = 0; i < 2; i++)
        if (nv_need(r, to[i]) && sample_get(r->out, from[i], &v))
            nv_set(r, to[i], round(v * 1048576.0 / 1000.0));
}

void nv_gpm_read(nv_rd *r)
{
    backend *b = r->b;
    nv_gpu *g = r->g;
    int wanted = 0;
    for (int i = 0; i < NV_GPM_IDS; i++)
        wanted |= nv_need(r, gpm_map[i].id);
    if (!wanted)
        return;
    if (!gpm_symbols(b)) {
        mark_unsupported(g);
        return;
    }
    if (!g->gpm_prev_us) {
        prime(b, g);
        /* and every other GPU that has none yet and is not being read right now (its lock is
         * only tried: a GPU whose call hangs holds its own, and this read never waits on it) */
        for (int i = 0; i < b->count; i++) {
            nv_gpu *o = &b->gpus[i];
            if (o == g || pthread_mutex_trylock(&o->lock) != 0)
                continue;
            prime(b, o);
            pthread_mutex_unlock(&o->lock);
        }
    }
    if (g->gpm_prev_us && !g->lost) {
        uint64_t age = nv_clock_us(b) - g->gpm_prev_us;
        if (age < NV_GPM_MIN_US && !g->gpm_have && !b->set_time_us) {
            gw_sleep_us(NV_GPM_MIN_US - age);
            age = NV_GPM_MIN_US;
        }
        if (age >= NV_GPM_MIN_US && (age >= NV_GPM_PERIOD_US || !g->gpm_have))
            compute(r);
        for (int i = 0; i < NV_GPM_IDS; i++) /* a read soon after the last repeats its rates */
            if (g->gpm_have & (1u << i))
                nv_set(r, gpm_map[i].id, g->gpm_val[i]);
        pcie_from_gpm(r);
    }
}

void nv_gpm_forget(nv_gpu *g)
{
    g->gpm_prev_us = 0;
    g->gpm_have = 0;
}

void nv_gpm_close(backend *b)
{
    for (int i = 0; i < b->count; i++) {
        nv_gpu *g = &b->gpus[i];
        if (g->gpm_alloc) {
            b->fn.GpmSampleFree(g->gpm_prev);
            b->fn.GpmSampleFree(g->gpm_cur);
        }
        g->gpm_alloc = 0;
        g->gpm_support = 0;
    }
}
