/* diag_events.c - the window's events: derived from a GPU's samples (event_derive: XIDs, lost and
 * back, uncorrectable ECC; row remapping is read as step signals), or handed over by a source that
 * keeps them apart (the pipeline, the history's events table), without counting one event twice. */
#include "diag_window_internal.h"
#include <stdlib.h>

#define EVENT_SAME_US 5000000ull /* an event repeated within 5 s is the same event */

void diag_window_event(diag_window *w, int gpu, uint64_t t, diag_event_kind kind, int code, int count)
{
    for (int i = w->n_events - 1; i >= 0; i--) {
        const diag_event *e = &w->events[i];
        uint64_t d = e->t_us > t ? e->t_us - t : t - e->t_us;
        if (e->gpu == gpu && e->kind == kind && e->code == code && d <= EVENT_SAME_US)
            return;
    }
    if (w->n_events == w->cap_events) {
        int cap = w->cap_events ? w->cap_events * 2 : 16;
        diag_event *ne = realloc(w->events, (size_t)cap * sizeof *ne);
        if (!ne) {
            w->oom = 1;
            return;
        }
        w->events = ne;
        w->cap_events = cap;
    }
    /* kept in time order */
    int k = w->n_events;
    while (k > 0 && w->events[k - 1].t_us > t) {
        w->events[k] = w->events[k - 1];
        k--;
    }
    w->events[k] = (diag_event){.t_us = t, .gpu = gpu, .kind = kind, .code = code, .count = count < 1 ? 1 : count};
    w->n_events++;
}

void diag_window_add_event(diag_window *w, int gpu, uint64_t t_us, diag_event_kind kind, int code, int count)
{
    if (diag_window_gpu(w, gpu))
        diag_window_event(w, gpu, t_us, kind, code, count);
}

void diag_window_note_event(diag_window *w, const gw_event *ev)
{
    switch (ev->kind) {
    case EV_XID: diag_window_add_event(w, ev->gpu, ev->t_us, DIAG_EV_XID, ev->xid.code, ev->xid.count); break;
    case EV_GPU_LOST: diag_window_add_event(w, ev->gpu, ev->t_us, DIAG_EV_GPU_LOST, 0, 1); break;
    case EV_GPU_BACK: diag_window_add_event(w, ev->gpu, ev->t_us, DIAG_EV_GPU_BACK, 0, 1); break;
    case EV_ECC_DBE: diag_window_add_event(w, ev->gpu, ev->t_us, DIAG_EV_ECC_DBE, 0, ev->ecc.count); break;
    default: break;
    }
}

static void derived(const gw_event *ev, void *arg)
{
    diag_window_note_event(arg, ev);
}

void diag_window_derive_events(diag_window *w, diag_gpu *g, int gpu, const gpu_sample *s)
{
    event_derive(&g->events, gpu, s, derived, w);
}

void diag_window_given_events(diag_window *w)
{
    w->events_given = 1;
}
