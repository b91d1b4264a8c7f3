/* diag_events.c - the window's events: from counters and status of consecutive samples (XIDs,
 * uncorrectable ECC; lost and back; row remapping is read as step signals) or added by a source that keeps them apart,
 * without counting one event twice. */
#include "diag_window_internal.h"
#include <math.h>
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

/* A counter that grew since the previous sample (a reset, e.g. a driver reload, is not growth). */
static int grew(const gpu_sample *s, metric_id id, double *prev, int has_prev, int *by)
{
    double v;
    if (!sample_get(s, id, &v) || !isfinite(v))
        return 0;
    int up = has_prev && !isnan(*prev) && v > *prev;
    if (up)
        *by = (int)(v - *prev + 0.5);
    *prev = v;
    return up;
}

void diag_window_read_events(diag_window *w, diag_gpu *g, int gpu, const gpu_sample *s)
{
    uint64_t t = s->t_us;
    int has_prev = g->has_prev;
    int n = 0;
    double last = 0;
    int have_last = sample_get(s, M_XID_LAST, &last);
    if (grew(s, M_XID_COUNT, &g->prev_xid_count, has_prev, &n))
        diag_window_event(w, gpu, t, DIAG_EV_XID, have_last ? (int)last : 0, n);
    else if (!sample_has(s, M_XID_COUNT) && have_last && has_prev && last != 0 && last != g->prev_xid_last)
        diag_window_event(w, gpu, t, DIAG_EV_XID, (int)last, 1);
    if (have_last)
        g->prev_xid_last = last;
    metric_id dbe = sample_has(s, M_ECC_DBE_VOL) ? M_ECC_DBE_VOL : M_ECC_DBE_AGG;
    if (grew(s, dbe, &g->prev_dbe, has_prev, &n))
        diag_window_event(w, gpu, t, DIAG_EV_ECC_DBE, 0, n);
}

void diag_window_first_prev(diag_gpu *g)
{
    g->prev_xid_count = NAN;
    g->prev_dbe = NAN;
    g->prev_xid_last = 0;
}
