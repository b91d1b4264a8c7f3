/* nvml_procs.c - processes on a GPU: compute, graphics and MPS lists (two-call protocol), merged per pid,
 * with per-process utilization and NVML's process name (and, on gpusim, the scenario's user and container). */
#include <stdlib.h>
#include <string.h>
#include "nvml_priv.h"
#include "util.h"

#define NV_LIST_TRIES 4  /* the list may grow between the two calls: ask again, a few times */
#define NV_LIST_SLACK 8  /* room for processes starting between the calls */
#define NV_LIST_FIRST 32 /* entries of a GPU's process and utilization buffers from the start */
#define NV_MPS_SERVER "nvidia-cuda-mps-server"

typedef nvmlReturn_t (*nv_list_fn)(nvmlDevice_t, unsigned int *, void *);

/* Makes room for `need` entries of `size` bytes in a scratch buffer of *cap bytes, never beyond
 * NV_MAX_LIST entries. Returns the buffer (possibly moved), or NULL (old one kept) when out of
 * memory. */
static void *grow(void *buf, size_t *cap, size_t need, size_t size)
{
    if (need > NV_MAX_LIST)
        need = NV_MAX_LIST;
    if (need * size <= *cap)
        return buf;
    size_t n = *cap ? *cap : 256;
    while (n < need * size)
        n *= 2;
    if (n > (size_t)NV_MAX_LIST * size)
        n = (size_t)NV_MAX_LIST * size;
    void *p = realloc(buf, n);
    if (p)
        *cap = n;
    return p;
}

/* How many entries to offer after INSUFFICIENT_SIZE: the count asked for (and room for processes
 * starting meanwhile) when it is more than was offered; otherwise the driver's count is of no use
 * and twice the offer is tried. 0 when the cap is reached: give up. */
static size_t next_offer(unsigned asked, size_t offered)
{
    size_t want = asked > offered ? (size_t)asked + NV_LIST_SLACK : offered * 2 + NV_LIST_SLACK;
    if (want > NV_MAX_LIST)
        want = NV_MAX_LIST;
    return want > offered ? want : 0;
}

static gpu_proc *find_pid(gpu_proc *out, int n, unsigned pid)
{
    for (int i = 0; i < n; i++)
        if (out[i].pid == pid)
            return &out[i];
    return NULL;
}

/* Adds one list's processes to out[*n..max). Returns -1 when the GPU is lost. */
static int read_list(backend *b, nv_gpu *g, nv_sym sym, nv_list_fn fn, unsigned type, gpu_proc *out, int *n, int max)
{
    if (!fn || (g->proc_unsup & type))
        return 0;
    size_t stride = b->sym_variant[sym] == 2 ? sizeof(nvmlProcessInfo_v1_t) : sizeof(nvmlProcessInfo_t);
    /* the buffer is kept from one read to the next: one call while the list fits in it */
    unsigned char *first = grow(g->pbuf, &g->pbuf_cap, NV_LIST_FIRST, stride);
    if (first)
        g->pbuf = first;
    size_t offered = g->pbuf ? g->pbuf_cap / stride : 0;
    unsigned count = (unsigned)offered;
    nvmlReturn_t rc = fn(g->dev, &count, offered ? g->pbuf : NULL);
    /* The list may grow between the calls: ask again, a few times, with a bounded buffer. */
    for (int t = 0; rc == NVML_ERROR_INSUFFICIENT_SIZE && t < NV_LIST_TRIES; t++) {
        size_t want = next_offer(count, offered);
        unsigned char *p = want ? grow(g->pbuf, &g->pbuf_cap, want, stride) : NULL;
        if (!p)
            break;
        g->pbuf = p;
        offered = g->pbuf_cap / stride;
        count = (unsigned)offered;
        rc = fn(g->dev, &count, g->pbuf);
    }
    if (rc != NVML_SUCCESS) {
        if (rc == NVML_ERROR_NOT_SUPPORTED)
            g->proc_unsup |= type;
        else
            nv_count_error(b, sym, rc);
        if (rc == NVML_ERROR_GPU_IS_LOST) {
            g->lost = 1;
            return -1;
        }
        return 0;
    }
    if (count > offered) { /* SUCCESS with more records than the buffer holds: which ones are real? */
        nv_count_error(b, sym, NVML_ERROR_INSUFFICIENT_SIZE);
        return 0;
    }
    for (unsigned i = 0; i < count; i++) {
        /* pid @0 and usedGpuMemory @8 in both the 16-byte v1 and the 24-byte v2/v3 layouts */
        unsigned pid;
        unsigned long long mem;
        memcpy(&pid, g->pbuf + i * stride, sizeof pid);
        memcpy(&mem, g->pbuf + i * stride + 8, sizeof mem);
        gpu_proc *p = find_pid(out, *n, pid);
        if (!p) {
            if (*n >= max)
                continue;
            p = &out[(*n)++];
            memset(p, 0, sizeof *p);
            p->gpu = g->index;
            p->pid = pid;
        }
        p->type |= type;
        if (mem != NVML_VALUE_NOT_AVAILABLE_ULL) {
            double mib = mem / 1048576.0;
            if (!p->has_mem || mib > p->mem_mib) /* C+G: the same memory appears in both lists */
                p->mem_mib = mib;
            p->has_mem = 1;
        }
    }
    return 0;
}

static void set_util(double v, double *dst, int *has)
{
    if (v <= 100) { /* NVML sometimes reports nonsense above 100 */
        *dst = v;
        *has = 1;
    }
}

/* Per-process utilization samples newer than the last ones seen on this GPU. */
static void read_utilization(backend *b, nv_gpu *g, gpu_proc *out, int n)
{
    const nvml_fns *f = &b->fn;
    if (!f->GetProcessUtilization || n == 0 || (g->proc_unsup & NV_PROC_UTIL_UNSUP))
        return;
    size_t cap0 = g->ubuf_cap * sizeof *g->ubuf;
    nvmlProcessUtilizationSample_t *first = grow(g->ubuf, &cap0, NV_LIST_FIRST, sizeof *g->ubuf);
    if (first) {
        g->ubuf = first;
        g->ubuf_cap = (unsigned)(cap0 / sizeof *g->ubuf);
    }
    size_t offered = g->ubuf ? g->ubuf_cap : 0;
    unsigned count = (unsigned)offered;
    nvmlReturn_t rc = f->GetProcessUtilization(g->dev, offered ? g->ubuf : NULL, &count, g->putil_last_ts);
    for (int t = 0; rc == NVML_ERROR_INSUFFICIENT_SIZE && t < NV_LIST_TRIES; t++) {
        size_t want = next_offer(count, offered), cap = g->ubuf_cap * sizeof *g->ubuf;
        nvmlProcessUtilizationSample_t *p = want ? grow(g->ubuf, &cap, want, sizeof *g->ubuf) : NULL;
        if (!p)
            break;
        g->ubuf = p;
        g->ubuf_cap = (unsigned)(cap / sizeof *g->ubuf);
        offered = g->ubuf_cap;
        count = g->ubuf_cap;
        rc = f->GetProcessUtilization(g->dev, g->ubuf, &count, g->putil_last_ts);
    }
    if (rc == NVML_ERROR_NOT_FOUND) /* no samples since the last time */
        return;
    if (rc == NVML_SUCCESS && count > g->ubuf_cap)
        count = g->ubuf_cap;
    if (rc != NVML_SUCCESS) {
        if (rc == NVML_ERROR_NOT_SUPPORTED) /* e.g. MIG mode */
            g->proc_unsup |= NV_PROC_UTIL_UNSUP;
        else
            nv_count_error(b, NV_GetProcessUtilization, rc);
        if (rc == NVML_ERROR_GPU_IS_LOST)
            g->lost = 1;
        return;
    }
    unsigned long long newest = g->putil_last_ts;
    for (unsigned i = 0; i < count; i++)
        if (g->ubuf[i].timeStamp > newest)
            newest = g->ubuf[i].timeStamp;
    for (int k = 0; k < n; k++) {
        /* A pid may have several samples in NVML's buffer: the newest one counts. */
        const nvmlProcessUtilizationSample_t *best = NULL;
        for (unsigned i = 0; i < count; i++)
            if (g->ubuf[i].pid == out[k].pid && (!best || g->ubuf[i].timeStamp > best->timeStamp))
                best = &g->ubuf[i];
        if (!best)
            continue;
        set_util(best->smUtil, &out[k].sm_util, &out[k].has_sm);
        set_util(best->memUtil, &out[k].mem_util, &out[k].has_memutil);
        set_util(best->encUtil, &out[k].enc_util, &out[k].has_enc);
        set_util(best->decUtil, &out[k].dec_util, &out[k].has_dec);
    }
    g->putil_last_ts = newest;
}

/* Whether one of the processes is the MPS server: MPS clients exist only beside it. */
static int mps_server(const gpu_proc *out, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(out[i].name, NV_MPS_SERVER) == 0)
            return 1;
    return 0;
}

int nv_read_processes(backend *b, int gpu, gpu_proc *out, int max)
{
    nv_gpu *g = &b->gpus[gpu];
    if (nv_probe(b, g) != GPU_OK)
        return -1;
    const nvml_fns *f = &b->fn;
    int n = 0;
    if (read_list(b, g, NV_GetComputeProcs, f->GetComputeProcs, PROC_COMPUTE, out, &n, max) < 0 ||
        read_list(b, g, NV_GetGraphicsProcs, f->GetGraphicsProcs, PROC_GRAPHICS, out, &n, max) < 0)
        return -1;
    nv_names_fill(b, out, n);
    /* the MPS list only beside an MPS server (the compute list shows it): one call fewer a read */
    int before = n;
    if (mps_server(out, n) && read_list(b, g, NV_GetMPSProcs, f->GetMPSProcs, PROC_MPS, out, &n, max) < 0)
        return -1;
    if (n > before)
        nv_names_fill(b, out + before, n - before);
    read_utilization(b, g, out, n);
    return g->lost ? -1 : n;
}
