/* nvml_backend.c - the NVML backend's life cycle (open, close, versions) and its backend_ops table. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nvml_priv.h"
#include "nvml_backend.h"
#include "util.h"

static const char *errstr(backend *b, nvmlReturn_t rc)
{
    const char *s = b->fn.ErrorString ? b->fn.ErrorString(rc) : NULL;
    return s ? s : nv_return_name(rc);
}

/* One clear sentence for a failed nvmlInit / nvmlDeviceGetCount. */
static backend_status init_failure(backend *b, const char *call, nvmlReturn_t rc, char *err, size_t errlen)
{
    switch (rc) {
    case NVML_ERROR_DRIVER_NOT_LOADED:
        snprintf(err, errlen, "NVIDIA driver is not loaded (%s: %s): is the nvidia kernel module loaded?", call,
                 errstr(b, rc));
        return BK_ERR_NO_DRIVER;
    case NVML_ERROR_NO_PERMISSION:
        snprintf(err, errlen, "no permission to use the NVIDIA driver (%s: %s): check access to /dev/nvidia*", call,
                 errstr(b, rc));
        return BK_ERR_PERMISSION;
    case NVML_ERROR_LIB_RM_VERSION_MISMATCH:
        snprintf(err, errlen,
                 "NVML library and NVIDIA kernel driver versions differ (%s: %s): reload the driver or reboot", call,
                 errstr(b, rc));
        return BK_ERR_OTHER;
    default: snprintf(err, errlen, "NVML could not start (%s: %s)", call, errstr(b, rc)); return BK_ERR_OTHER;
    }
}

static void read_versions(backend *b)
{
    backend_versions *v = &b->versions;
    gw_strlcpy(v->backend, "nvml", sizeof v->backend);
    if (b->fn.SystemGetDriverVersion && b->fn.SystemGetDriverVersion(v->driver, sizeof v->driver) != NVML_SUCCESS)
        v->driver[0] = 0;
    if (b->fn.SystemGetNVMLVersion && b->fn.SystemGetNVMLVersion(v->library, sizeof v->library) != NVML_SUCCESS)
        v->library[0] = 0;
    int cuda = 0;
    if (b->fn.SystemGetCudaDriverVersion && b->fn.SystemGetCudaDriverVersion(&cuda) == NVML_SUCCESS && cuda > 0)
        snprintf(v->cuda, sizeof v->cuda, "%d.%d", cuda / 1000, (cuda % 1000) / 10);
}

static void classify_metrics(backend *b)
{
    for (int id = M_STR_END; id < M_COUNT; id++) {
        unsigned flags = catalog_get((metric_id)id)->flags;
        if (!(flags & (MF_STATIC | MF_BIT)))
            mset_add(&b->dynamic, (metric_id)id);
        if ((flags & MF_BIT) && b->n_bit_ids < (int)(sizeof b->bit_ids / sizeof b->bit_ids[0]))
            b->bit_ids[b->n_bit_ids++] = (metric_id)id;
    }
}

static void nv_close(backend *b)
{
    if (!b)
        return;
    nv_gpm_close(b);
    nv_events_close(b);
    if (b->inited)
        b->fn.Shutdown();
    for (int i = 0; i < b->count; i++) {
        free(b->gpus[i].pbuf);
        free(b->gpus[i].ubuf);
        pthread_mutex_destroy(&b->gpus[i].lock);
    }
    free(b->gpus);
    nv_unload(b);
    pthread_mutex_destroy(&b->lock);
    pthread_mutex_destroy(&b->err_lock);
    pthread_mutex_destroy(&b->poll_lock);
    pthread_mutex_destroy(&b->xid_lock);
    pthread_mutex_destroy(&b->names_lock);
    free(b);
}

static backend_status nv_open(backend **out, char *err, size_t errlen)
{
    *out = NULL;
    backend *b = calloc(1, sizeof *b);
    if (!b) {
        gw_strlcpy(err, "out of memory", errlen);
        return BK_ERR_OTHER;
    }
    pthread_mutex_init(&b->lock, NULL);
    pthread_mutex_init(&b->err_lock, NULL);
    pthread_mutex_init(&b->poll_lock, NULL);
    pthread_mutex_init(&b->xid_lock, NULL);
    pthread_mutex_init(&b->names_lock, NULL);
    backend_status st = nv_load(b, err, errlen);
    if (st != BK_OK) {
        nv_close(b);
        return st;
    }
    nvmlReturn_t rc = b->fn.Init();
    if (rc != NVML_SUCCESS) {
        st = init_failure(b, b->sym_name[NV_Init], rc, err, errlen);
        nv_close(b);
        return st;
    }
    b->inited = 1;
    unsigned n = 0;
    rc = b->fn.GetCount(&n);
    if (rc != NVML_SUCCESS) {
        st = init_failure(b, b->sym_name[NV_GetCount], rc, err, errlen);
        nv_close(b);
        return st;
    }
    b->gpus = calloc(n ? n : 1, sizeof *b->gpus);
    if (!b->gpus) {
        gw_strlcpy(err, "out of memory", errlen);
        nv_close(b);
        return BK_ERR_OTHER;
    }
    for (unsigned i = 0; i < n; i++)
        pthread_mutex_init(&b->gpus[i].lock, NULL);
    b->count = (int)n;
    for (int i = 0; i < b->count; i++) {
        nv_gpu *g = &b->gpus[i];
        g->index = i;
        g->lost = 1; /* until it has a handle */
        nv_probe(b, g);
    }
    read_versions(b);
    classify_metrics(b);
    nv_events_open(b);
    *out = b;
    return BK_OK;
}

gpu_status nv_probe(backend *b, nv_gpu *g)
{
    if (!g->lost)
        return GPU_OK;
    nvmlDevice_t dev = NULL;
    nvmlReturn_t rc = b->fn.GetHandleByIndex((unsigned)g->index, &dev);
    if (rc == NVML_SUCCESS && !dev)
        rc = NVML_ERROR_UNKNOWN;
    if (rc != NVML_SUCCESS) {
        nv_count_error(b, NV_GetHandleByIndex, rc);
        return rc == NVML_ERROR_GPU_IS_LOST ? GPU_LOST : GPU_ERROR;
    }
    int changed = dev != g->dev;
    pthread_mutex_lock(&b->xid_lock); /* other GPUs' reads route events by handle */
    if (changed && g->dev)
        g->dev_prev = g->dev;
    g->dev = dev;
    pthread_mutex_unlock(&b->xid_lock);
    g->lost = 0;
    if (changed && b->events)
        nv_events_register(b, g);
    nv_gpm_forget(g); /* a sample from before the loss would mix two device lives */
    nv_slow_forget(g);
    return GPU_OK;
}

static int nv_gpu_count(backend *b)
{
    return b->count;
}

/* A read that met UNINITIALIZED / DRIVER_NOT_LOADED failed as a whole: nothing it read is kept. */
static gpu_status driver_check(nv_gpu *g, gpu_status st, gpu_sample *out)
{
    if (!g->driver_gone || st != GPU_OK)
        return st;
    if (out)
        memset(&out->present, 0, sizeof out->present);
    return GPU_ERROR;
}

static gpu_status nv_read_info_op(backend *b, int gpu, gpu_info *info, gpu_sample *statics)
{
    if (gpu < 0 || gpu >= b->count)
        return GPU_ERROR;
    nv_gpu *g = &b->gpus[gpu];
    pthread_mutex_lock(&g->lock);
    g->driver_gone = 0;
    gpu_status st = driver_check(g, nv_read_info(b, gpu, info, statics), statics);
    pthread_mutex_unlock(&g->lock);
    return st;
}

static gpu_status nv_read_sample_op(backend *b, int gpu, const metric_set *want, gpu_sample *out)
{
    if (gpu < 0 || gpu >= b->count)
        return GPU_ERROR;
    metric_set all;
    if (!want) {
        mset_all(&all);
        want = &all;
    }
    nv_gpu *g = &b->gpus[gpu];
    pthread_mutex_lock(&g->lock);
    g->driver_gone = 0;
    gpu_status st = driver_check(g, nv_read_sample(b, gpu, want, out), out);
    pthread_mutex_unlock(&g->lock);
    return st;
}

static int nv_read_processes_op(backend *b, int gpu, gpu_proc *out, int max)
{
    if (gpu < 0 || gpu >= b->count || max < 0)
        return -1;
    nv_gpu *g = &b->gpus[gpu];
    pthread_mutex_lock(&g->lock);
    g->driver_gone = 0;
    int n = nv_read_processes(b, gpu, out, max);
    if (g->driver_gone)
        n = -1;
    pthread_mutex_unlock(&g->lock);
    return n;
}

static void nv_versions(backend *b, backend_versions *out)
{
    *out = b->versions;
}

static int nv_set_time(backend *b, double t_s)
{
    if (!b->fn.GpusimSetTime)
        return -1;
    pthread_mutex_lock(&b->lock);
    nvmlReturn_t rc = b->fn.GpusimSetTime(t_s);
    if (rc == NVML_SUCCESS)
        b->set_time_us = (uint64_t)llround(t_s * 1e6) + 1;
    pthread_mutex_unlock(&b->lock);
    return rc == NVML_SUCCESS ? 0 : -1;
}

uint64_t nv_clock_us(const backend *b)
{
    return b->set_time_us ? b->set_time_us : gw_mono_us();
}

const backend_ops nvml_backend_ops = {
    .name = "nvml",
    .open = nv_open,
    .close = nv_close,
    .gpu_count = nv_gpu_count,
    .read_info = nv_read_info_op,
    .read_sample = nv_read_sample_op,
    .read_processes = nv_read_processes_op,
    .versions = nv_versions,
    .set_time = nv_set_time,
    .error_counts = nv_error_counts,
    .read_topology = nv_read_topology,
    .get_time = nv_get_time,
    .read_list = nv_read_list,
    .read_mig = nv_read_mig_op,
};
