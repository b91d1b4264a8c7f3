/* lib_state.c - global state, the simulated clock, handle checks and fault injection. */
#include "lib_state.h"
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define DEV_MAGIC 0x67707573u /* "gpus" */
#define MIG_MAGIC 0x6d696764u /* "migd" */

gs_state gs = {.mu = PTHREAD_MUTEX_INITIALIZER};

static double mono_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Whole milliseconds of scenario time: calls within one millisecond share the model's cached
 * snapshot, and every answer is the exact value at a time `gpusim render` can also print. */
double gs_now(void)
{
    if (gs.manual)
        return gs.manual_t;
    return floor(((mono_seconds() - gs.mono_at_init) * gs.speed + gs.t0) * 1000.0) / 1000.0;
}

unsigned long long gs_stamp_us(double t)
{
    return (unsigned long long)llround(gs.wall_base_us + t * 1e6);
}

int gs_dev_index(nvmlDevice_t dev)
{
    uintptr_t p = (uintptr_t)dev, base = (uintptr_t)&gs.devs[0];
    if (!gs.sc || p < base || p >= (uintptr_t)&gs.devs[gs.sc->ngpus])
        return -1;
    if ((p - base) % sizeof gs.devs[0])
        return -1;
    const struct nvmlDevice_st *d = dev;
    return d->magic == DEV_MAGIC ? d->index : -1;
}

int gs_is_mig_handle(nvmlDevice_t dev)
{
    uintptr_t p = (uintptr_t)dev, base = (uintptr_t)&gs.migs[0][0];
    return p >= base && p < (uintptr_t)(gs.migs + SIM_MAX_GPUS);
}

int gs_mig_index(nvmlDevice_t dev, int *mig)
{
    uintptr_t p = (uintptr_t)dev, base = (uintptr_t)&gs.migs[0][0];
    if (!gs.sc || p < base || p >= (uintptr_t)(gs.migs + gs.sc->ngpus) || (p - base) % sizeof gs.migs[0][0])
        return -1;
    const struct nvmlDevice_st *d = dev;
    int gpu = d->index / SIM_MAX_MIG, k = d->index % SIM_MAX_MIG;
    if (d->magic != MIG_MAGIC || k >= gs.sc->gpus[gpu].spec->nmig)
        return -1;
    *mig = k;
    return gpu;
}

static int is_init(const char *fn)
{
    return strncmp(fn, "nvmlInit", 8) == 0;
}

/* "*" is every function but the init ones (whose faults are named). */
static int fault_applies(const sim_fault *f, const char *fn, int gpu, double t)
{
    if (strcmp(f->function, fn) != 0 && (strcmp(f->function, "*") != 0 || is_init(fn)))
        return 0;
    if (f->gpu >= 0 && f->gpu != gpu)
        return 0;
    return t >= f->from && t < f->to;
}

static void sleep_ms(unsigned ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

/* A hung call: blocks without the lock until scenario time reaches `until` (for good when it is
 * infinite), or the library is shut down. Called and returns with the lock held. */
static nvmlReturn_t hang_until(double until)
{
    unsigned generation = gs.generation;
    for (;;) {
        pthread_mutex_unlock(&gs.mu);
        sleep_ms(20);
        pthread_mutex_lock(&gs.mu);
        if (!gs.sc || gs.generation != generation)
            return NVML_ERROR_UNINITIALIZED;
        if (isfinite(until) && gs_now() >= until)
            return NVML_SUCCESS;
    }
}

/* Applies error, delay, hang, driver-gone and missing-symbol faults for fn. Called with the lock
 * held; may drop it while sleeping. */
nvmlReturn_t gs_apply_faults(const char *fn, int gpu, double t)
{
    unsigned delay_ms = 0;
    double hang = -1;
    nvmlReturn_t rc = NVML_SUCCESS;
    for (int i = 0; i < gs.sc->nfaults; i++) {
        sim_fault *f = &gs.sc->faults[i];
        if (f->kind == FAULT_MISSING && strcmp(f->function, fn) == 0)
            return NVML_ERROR_FUNCTION_NOT_FOUND;
        if (f->kind == FAULT_DRIVER_GONE && t >= f->from && t < f->to)
            return is_init(fn) ? NVML_ERROR_DRIVER_NOT_LOADED : NVML_ERROR_UNINITIALIZED;
        if (f->kind == FAULT_LOST || f->kind == FAULT_DRIVER_GONE || f->kind == FAULT_COUNT ||
            !fault_applies(f, fn, gpu, t))
            continue;
        if (f->kind == FAULT_DELAY) {
            delay_ms += f->delay_ms;
        } else if (f->kind == FAULT_HANG) {
            hang = f->to > hang ? f->to : hang;
        } else if (f->kind == FAULT_ERROR) {
            f->calls++;
            if ((f->every <= 1 || f->calls % f->every == 0) && rc == NVML_SUCCESS)
                rc = (nvmlReturn_t)f->error;
        }
    }
    if (hang >= 0 && hang_until(hang) != NVML_SUCCESS)
        return NVML_ERROR_UNINITIALIZED; /* shut down while it hung */
    if (delay_ms) {
        pthread_mutex_unlock(&gs.mu);
        sleep_ms(delay_ms);
        pthread_mutex_lock(&gs.mu);
        if (!gs.sc)
            return NVML_ERROR_UNINITIALIZED; /* shut down while we slept */
    }
    return rc;
}

int gs_count_fault(const gs_call *c, const char *fn, unsigned asked, unsigned *count, nvmlReturn_t *rc)
{
    for (int i = 0; i < gs.sc->nfaults; i++) {
        sim_fault *f = &gs.sc->faults[i];
        if (f->kind != FAULT_COUNT || !fault_applies(f, fn, c->gpu, c->t))
            continue;
        f->calls++;
        if (f->every > 1 && f->calls % f->every != 0)
            continue;
        switch (f->count_mode) {
        case COUNT_SAME: *count = asked; break;
        case COUNT_GROW: *count = asked > 0x7fffffffu ? 0xffffffffu : 2 * asked + 1; break;
        default: *count = f->count_value; break;
        }
        *rc = (nvmlReturn_t)f->error;
        return 1;
    }
    return 0;
}

nvmlReturn_t gs_enter(gs_call *c, const char *fn)
{
    pthread_mutex_lock(&gs.mu);
    gs_count_call(fn);
    c->gpu = -1;
    if (gs.refcount == 0 || !gs.sc)
        return NVML_ERROR_UNINITIALIZED;
    c->t = gs_now();
    nvmlReturn_t rc = gs_apply_faults(fn, -1, c->t);
    if (rc == NVML_SUCCESS)
        c->t = gs_now(); /* after any delay */
    return rc;
}

nvmlReturn_t gs_enter_dev(gs_call *c, const char *fn, nvmlDevice_t dev)
{
    pthread_mutex_lock(&gs.mu);
    gs_count_call(fn);
    c->gpu = -1;
    if (gs.refcount == 0 || !gs.sc)
        return NVML_ERROR_UNINITIALIZED;
    int idx = gs_dev_index(dev);
    if (idx < 0)
        return NVML_ERROR_INVALID_ARGUMENT;
    return gs_enter_gpu(c, fn, idx);
}

nvmlReturn_t gs_enter_gpu(gs_call *c, const char *fn, int idx)
{
    c->gpu = idx;
    c->t = gs_now();
    /* a GPU off the bus answers nothing else, injected errors included */
    if (sim_lost(gs.sc, idx, c->t))
        return NVML_ERROR_GPU_IS_LOST;
    nvmlReturn_t rc = gs_apply_faults(fn, idx, c->t);
    if (rc != NVML_SUCCESS)
        return rc;
    /* a delayed call answers for the time it returns at (the library may have been shut
     * down and started again meanwhile) */
    if (idx >= gs.sc->ngpus)
        return NVML_ERROR_INVALID_ARGUMENT;
    c->t = gs_now();
    return sim_lost(gs.sc, idx, c->t) ? NVML_ERROR_GPU_IS_LOST : NVML_SUCCESS;
}

nvmlReturn_t gs_leave(nvmlReturn_t rc)
{
    pthread_mutex_unlock(&gs.mu);
    return rc;
}

void gs_init_devices(void)
{
    struct timespec ts;
    for (int i = 0; i < SIM_MAX_GPUS; i++) {
        gs.devs[i] = (struct nvmlDevice_st){.magic = DEV_MAGIC, .index = i};
        for (int k = 0; k < SIM_MAX_MIG; k++)
            gs.migs[i][k] = (struct nvmlDevice_st){.magic = MIG_MAGIC, .index = i * SIM_MAX_MIG + k};
    }
    gs.mono_at_init = mono_seconds();
    gs.manual = 0;
    clock_gettime(CLOCK_REALTIME, &ts);
    gs.wall_base_us = (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3 - gs.t0 * 1e6;
    gs.generation++;
}

nvmlReturn_t gs_metric(const gs_call *c, metric_id m, double *out)
{
    return sim_value(gs.sc, c->gpu, m, c->t, out) == 0 ? NVML_SUCCESS : NVML_ERROR_NOT_SUPPORTED;
}

nvmlReturn_t gs_metric_u(const gs_call *c, metric_id m, double scale, unsigned int *out)
{
    double v;
    if (!out)
        return NVML_ERROR_INVALID_ARGUMENT;
    nvmlReturn_t rc = gs_metric(c, m, &v);
    if (rc == NVML_SUCCESS)
        *out = (unsigned int)llround(fmin(v * scale, 4294967295.0));
    return rc;
}

nvmlReturn_t gs_metric_ull(const gs_call *c, metric_id m, double scale, unsigned long long *out)
{
    double v;
    if (!out)
        return NVML_ERROR_INVALID_ARGUMENT;
    nvmlReturn_t rc = gs_metric(c, m, &v);
    if (rc == NVML_SUCCESS)
        *out = (unsigned long long)llround(v * scale);
    return rc;
}

void gs_fill_pci(nvmlPciInfo_t *pci, unsigned domain, unsigned bus, unsigned device, unsigned device_id,
                 unsigned subsys_id, int full)
{
    memset(pci, 0, offsetof(nvmlPciInfo_t, busId));
    pci->domain = domain;
    pci->bus = bus;
    pci->device = device;
    pci->pciDeviceId = device_id;
    pci->pciSubSystemId = subsys_id;
    if (full)
        snprintf(pci->busId, sizeof pci->busId, "%08X:%02X:%02X.0", domain, bus & 0xff, device & 0x1f);
    snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, "%04X:%02X:%02X.0", domain & 0xffff, bus & 0xff, device & 0x1f);
}

nvmlReturn_t gs_copy_string(const char *s, char *buf, unsigned int len)
{
    if (!buf)
        return NVML_ERROR_INVALID_ARGUMENT;
    size_t n = strlen(s);
    if (len < n + 1)
        return NVML_ERROR_INSUFFICIENT_SIZE;
    memcpy(buf, s, n + 1);
    return NVML_SUCCESS;
}
