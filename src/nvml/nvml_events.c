/* nvml_events.c - XID critical errors: one NVML event set for all GPUs, polled (timeout 0) when read.
 * One reader drains the set at a time: another finds it busy and goes on (a poll that hangs costs
 * the XID counts their freshness, never the other GPUs' samples). */
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

/* The event set is drained at most this often: the reads of one round share a drain. */
#define NV_EVENTS_EVERY_US 250000u

/* The GPU an event is about: its handle now, or the one it had before a loss (an XID that arrived
 * while it was lost is still its own). xid_lock held. */
static nv_gpu *gpu_of(backend *b, nvmlDevice_t dev)
{
    for (int i = 0; i < b->count; i++)
        if (b->gpus[i].dev == dev)
            return &b->gpus[i];
    for (int i = 0; i < b->count; i++)
        if (b->gpus[i].dev_prev == dev)
            return &b->gpus[i];
    return NULL;
}

/* Drains the event set into the GPUs' XID state (events for other GPUs are kept for them).
 * poll_lock held. */
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
        if (!(ev.eventType & nvmlEventTypeXidCriticalError) || !ev.device)
            continue;
        pthread_mutex_lock(&b->xid_lock);
        nv_gpu *g = gpu_of(b, ev.device);
        if (g) {
            g->xid_last = (unsigned)ev.eventData;
            g->xid_count++;
        }
        pthread_mutex_unlock(&b->xid_lock);
    }
}

void nv_events_read(nv_rd *r)
{
    backend *b = r->b;
    if (!b->events || !(nv_need(r, M_XID_LAST) || nv_need(r, M_XID_COUNT)))
        return;
    if (r->g->xid_registered) {
        if (pthread_mutex_trylock(&b->poll_lock) == 0) {
            /* one drain serves the reads of every GPU close to it (a round reads them all) */
            uint64_t now = nv_clock_us(b);
            if (!b->events_polled_us || now < b->events_polled_us || now - b->events_polled_us >= NV_EVENTS_EVERY_US) {
                poll_events(b);
                b->events_polled_us = now;
            }
            pthread_mutex_unlock(&b->poll_lock);
        }
        pthread_mutex_lock(&b->xid_lock);
        unsigned last = r->g->xid_last;
        uint64_t count = r->g->xid_count;
        pthread_mutex_unlock(&b->xid_lock);
        nv_set(r, M_XID_LAST, last);
        nv_set(r, M_XID_COUNT, (double)count);
    }
}

void nv_events_close(backend *b)
{
    if (b->events)
        b->fn.EventSetFree(b->events);
    b->events = NULL;
}
