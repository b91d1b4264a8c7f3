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
    int next[SIM_MAX_GPUS];                 /* per GPU: how many of its XIDs were delivered */
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
    if (!s)
        return gs_leave(NVML_ERROR_MEMORY);
    s->magic = SET_MAGIC;
    s->generation = gs.generation;
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

/* The earliest undelivered XID registered on set (the first listed among equal times), or NULL;
 * *gpu its GPU, due = its time has passed. One look per GPU: each GPU's XIDs are in time order. */
static const sim_event *next_event(const struct nvmlEventSet_st *set, double t, int *gpu, int *due)
{
    const sim_event *best = NULL;
    for (int g = 0; g < gs.sc->ngpus && g < SIM_MAX_GPUS; g++) {
        const sim_event *e;
        int n = scenario_gpu_events(gs.sc, g, &e);
        if (!(set->types[g] & XID_EVENT) || set->next[g] >= n)
            continue;
        e += set->next[g];
        if (!best || e->at < best->at || (e->at == best->at && e->seq < best->seq)) {
            best = e;
            *gpu = g;
        }
    }
    *due = best && best->at <= t;
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
        int due, gpu = 0;
        const sim_event *e = next_event(set, gs_now(), &gpu, &due);
        if (due) {
            set->next[gpu]++;
            data->device = &gs.devs[gpu];
            data->eventType = XID_EVENT;
            data->eventData = e->xid;
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
