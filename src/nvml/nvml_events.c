/* nvml_events.c - XID critical errors: one NVML event set for all GPUs, polled (timeout 0) when read. */
#include "nvml_priv.h"

#define NV_EVENTS_PER_POLL 256 /* a storm of XIDs is drained over several reads */

void nv_events_register(backend *b, nv_gpu *g)
{
    nvmlReturn_t rc = b->fn.RegisterEvents(g->dev, nvmlEventTypeXidCriticalError, b->events);
    g->xid_registered = rc == NVML_SUCCESS;
    if (rc == NVML_ERROR_NOT_SUPPORTED) {
        mset_add(&g->unsup, M_XID_LAST);
        mset_add(&g->unsup, M_XID_COUNT);
    } else if (rc != NVML_SUCCESS) {
        nv_count_error(b, NV_RegisterEvents, rc);
    }
}

void nv_events_open(backend *b)
{
    const nvml_fns *f = &b->fn;
    if (!f->EventSetCreate || !f->RegisterEvents || !f->EventSetWait || !f->EventSetFree) {
        for (int i = 0; i < b->count; i++) {
            mset_add(&b->gpus[i].unsup, M_XID_LAST);
            mset_add(&b->gpus[i].unsup, M_XID_COUNT);
        }
        return;
    }
    nvmlReturn_t rc = f->EventSetCreate(&b->events);
    if (rc != NVML_SUCCESS) {
        nv_count_error(b, NV_EventSetCreate, rc);
        b->events = NULL;
        return;
    }
    for (int i = 0; i < b->count; i++)
        if (b->gpus[i].dev)
            nv_events_register(b, &b->gpus[i]);
}

/* Drains the event set into the GPUs' XID state (events for other GPUs are kept for them). */
static void poll_events(backend *b)
{
    for (int n = 0; n < NV_EVENTS_PER_POLL; n++) {
        nvmlEventData_t ev = {0};
        nvmlReturn_t rc = b->fn.EventSetWait(b->events, &ev, 0);
        if (rc == NVML_ERROR_TIMEOUT)
            return;
        if (rc != NVML_SUCCESS) {
            nv_count_error(b, NV_EventSetWait, rc);
            return;
        }
        if (!(ev.eventType & nvmlEventTypeXidCriticalError))
            continue;
        for (int i = 0; i < b->count; i++) {
            nv_gpu *g = &b->gpus[i];
            if (g->dev == ev.device) {
                g->xid_last = (unsigned)ev.eventData;
                g->xid_count++;
                break;
            }
        }
    }
}

void nv_events_read(nv_rd *r)
{
    backend *b = r->b;
    if (!b->events || !(nv_need(r, M_XID_LAST) || nv_need(r, M_XID_COUNT)))
        return;
    if (r->g->xid_registered) {
        poll_events(b);
        nv_set(r, M_XID_LAST, r->g->xid_last);
        nv_set(r, M_XID_COUNT, (double)r->g->xid_count);
    }
}

void nv_events_close(backend *b)
{
    if (b->events)
        b->fn.EventSetFree(b->events);
    b->events = NULL;
}
