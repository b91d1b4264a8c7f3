/* api_events.c - event sets: the scenario's XIDs are delivered once per set (in time order)
 * when their time has passed; EventSetWait otherwise waits up to its timeout. */
#include "nvml_exports.h"
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SET_MAGIC 0x65767473u /* "evts" */
#define XID_EVENT nvmlEventTypeXidCriticalError
#define PSTATE_EVENT 0x4ULL
#define CLOCK_EVENT 0x10ULL
#define WAIT_SLICE_MS 20

struct nvmlEventSet_st {
    unsigned magic;
    unsigned generation;                    /* gs.generation when it was made */
    unsigned long long types[SIM_MAX_GPUS]; /* registered event types per GPU */
    unsigned char *delivered;               /* per scenario event */
};

static int set_ok(const struct nvmlEventSet_st *s)
{
    return s && s->magic == SET_MAGIC && gs.sc && s->generation == gs.generation;
}

nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t *set)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter(&c, __func__);
    if (rc == NVML_SUCCESS && !set)
        rc = NVML_ERROR_INVALID_ARGUMENT;
    if (rc != NVML_SUCCESS)
        return gs_leave(rc);
    struct nvmlEventSet_st *s = calloc(1, sizeof *s);
    unsigned char *d = calloc((size_t)gs.sc->nevents + 1, 1);
    if (!s || !d) {
        free(s);
        free(d);
        return gs_leave(NVML_ERROR_MEMORY);
    }
    s->magic = SET_MAGIC;
    s->generation = gs.generation;
    s->delivered = d;
    *set = s;
    return gs_leave(NVML_SUCCESS);
}

nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t set)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter(&c, __func__);
    /* a set made before a shutdown and re-init can still be freed */
    if (rc == NVML_SUCCESS && (!set || set->magic != SET_MAGIC))
        rc = NVML_ERROR_INVALID_ARGUMENT;
    if (rc == NVML_SUCCESS) {
        set->magic = 0;
        free(set->delivered);
        free(set);
    }
    return gs_leave(rc);
}

static unsigned long long supported_types(int gpu)
{
    unsigned long long t = XID_EVENT | PSTATE_EVENT | CLOCK_EVENT;
    if (!sim_unsupported(gs.sc, gpu, M_ECC_MODE))
        t |= nvmlEventTypeSingleBitEccError | nvmlEventTypeDoubleBitEccError;
    return t;
}

nvmlReturn_t nvmlDeviceGetSupportedEventTypes(nvmlDevice_t device, unsigned long long *types)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter_dev(&c, __func__, device);
    if (rc == NVML_SUCCESS && !types)
        rc = NVML_ERROR_INVALID_ARGUMENT;
    if (rc == NVML_SUCCESS)
        *types = supported_types(c.gpu);
    return gs_leave(rc);
}

/* Registers the supported part of types; NOT_SUPPORTED when none of them is. */
nvmlReturn_t nvmlDeviceRegisterEvents(nvmlDevice_t device, unsigned long long types, nvmlEventSet_t set)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter_dev(&c, __func__, device);
    if (rc == NVML_SUCCESS && !set_ok(set))
        rc = NVML_ERROR_INVALID_ARGUMENT;
    if (rc != NVML_SUCCESS)
        return gs_leave(rc);
    unsigned long long ok = types & supported_types(c.gpu);
    if (!ok)
        return gs_leave(NVML_ERROR_NOT_SUPPORTED);
    set->types[c.gpu] |= ok;
    return gs_leave(NVML_SUCCESS);
}

/* Index of the earliest undelivered XID registered on set; due = its time has passed. */
static int next_event(const struct nvmlEventSet_st *set, double t, int *due)
{
    int best = -1;
    for (int i = 0; i < gs.sc->nevents; i++) {
        const sim_event *e = &gs.sc->events[i];
        if (set->delivered[i] || !(set->types[e->gpu] & XID_EVENT))
            continue;
        if (best < 0 || e->at < gs.sc->events[best].at)
            best = i;
    }
    *due = best >= 0 && gs.sc->events[best].at <= t;
    return best;
}

static void sleep_ms(unsigned ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

/* v2 = 0 writes only the 24-byte nvmlEventData_t of the old nvmlEventSetWait. */
static nvmlReturn_t wait_event(const char *fn, nvmlEventSet_t set, nvmlEventData_t *data, unsigned timeoutms, int v2)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter(&c, fn);
    if (rc == NVML_SUCCESS && (!set_ok(set) || !data))
        rc = NVML_ERROR_INVALID_ARGUMENT;
    for (unsigned waited = 0; rc == NVML_SUCCESS; waited += WAIT_SLICE_MS) {
        int due, i = next_event(set, gs_now(), &due);
        if (due) {
            set->delivered[i] = 1;
            data->device = &gs.devs[gs.sc->events[i].gpu];
            data->eventType = XID_EVENT;
            data->eventData = gs.sc->events[i].xid;
            if (v2)
                data->gpuInstanceId = data->computeInstanceId = 0xFFFFFFFFu;
            break;
        }
        if (waited >= timeoutms) {
            rc = NVML_ERROR_TIMEOUT;
            break;
        }
        pthread_mutex_unlock(&gs.mu);
        sleep_ms(timeoutms - waited < WAIT_SLICE_MS ? timeoutms - waited : WAIT_SLICE_MS);
        pthread_mutex_lock(&gs.mu);
        if (!set_ok(set))
            rc = NVML_ERROR_UNINITIALIZED; /* shut down meanwhile */
    }
    return gs_leave(rc);
}

nvmlReturn_t nvmlEventSetWait(nvmlEventSet_t s, nvmlEventData_t *d, unsigned int t)
{
    return wait_event(__func__, s, d, t, 0);
}
nvmlReturn_t nvmlEventSetWait_v2(nvmlEventSet_t s, nvmlEventData_t *d, unsigned int t)
{
    return wait_event(__func__, s, d, t, 1);
}
