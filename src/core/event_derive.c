/* event_derive.c - the one derivation of events from a GPU's consecutive samples (see event.h):
 * the pipeline's, the diagnosis window's and gpuwatch run's history all see the same XIDs, losses,
 * throttle reasons and ECC errors. */
#include "event.h"
#include <limits.h>
#include <math.h>

/* A metric's value, NAN when the sample has none (or not a finite one). */
static double value_of(const gpu_sample *s, metric_id id)
{
    double v;
    return sample_get(s, id, &v) && isfinite(v) ? v : NAN;
}

/* How much a counter grew from before to now: 0 when either is unknown or it did not grow (a
 * counter that went down was reset: a driver reload). At most INT_MAX. */
static int growth(double before, double now)
{
    if (isnan(before) || isnan(now) || now <= before)
        return 0;
    double by = now - before + 0.5;
    return by >= (double)INT_MAX ? INT_MAX : by < 1 ? 1 : (int)by;
}

static void emit_simple(int gpu, const gpu_sample *s, event_kind kind, void (*emit)(const gw_event *, void *),
                        void *arg)
{
    gw_event ev = {.kind = kind, .t_us = s->t_us, .gpu = gpu};
    emit(&ev, arg);
}

static void derive_xid(const event_deriver *d, int gpu, const gpu_sample *s, void (*emit)(const gw_event *, void *),
                       void *arg)
{
    double count = value_of(s, M_XID_COUNT), last = value_of(s, M_XID_LAST);
    int n = 0;
    if (!isnan(count) && !isnan(d->xid_count))
        n = growth(d->xid_count, count);
    else if (!isnan(last) && !isnan(d->xid_last) && last != 0 && last != d->xid_last)
        n = 1;
    if (n == 0)
        return;
    int code = !isnan(last) && last > 0 && last <= INT_MAX ? (int)last : 0;
    gw_event ev = {.kind = EV_XID, .t_us = s->t_us, .gpu = gpu, .xid = {code, n}};
    emit(&ev, arg);
}

static void derive_ecc(const event_deriver *d, int gpu, const gpu_sample *s, void (*emit)(const gw_event *, void *),
                       void *arg)
{
    double vol = value_of(s, M_ECC_DBE_VOL);
    int n = !isnan(vol) ? growth(d->dbe_volatile, vol) : growth(d->dbe_aggregate, value_of(s, M_ECC_DBE_AGG));
    if (n == 0)
        return;
    gw_event ev = {.kind = EV_ECC_DBE, .t_us = s->t_us, .gpu = gpu, .ecc = {n}};
    emit(&ev, arg);
}

static void derive_throttle(const event_deriver *d, int gpu, const gpu_sample *s,
                            void (*emit)(const gw_event *, void *), void *arg)
{
    double now = value_of(s, M_CER_ACTIVE);
    if (!d->last_ok || isnan(now) || isnan(d->reasons) || now == d->reasons)
        return;
    uint64_t was = (uint64_t)d->reasons, is = (uint64_t)now;
    for (int m = M_STR_END; m < M_COUNT; m++) {
        const metric_def *def = catalog_get((metric_id)m);
        if (!(def->flags & MF_BIT) || def->parent != M_CER_ACTIVE || m == M_CER_GPU_IDLE)
            continue;
        int a = (was & def->bit) != 0, b = (is & def->bit) != 0;
        if (a == b)
            continue;
        gw_event ev = {
            .kind = b ? EV_THROTTLE_START : EV_THROTTLE_END, .t_us = s->t_us, .gpu = gpu, .throttle = {(metric_id)m}};
        emit(&ev, arg);
    }
}

void event_derive(event_deriver *d, int gpu, const gpu_sample *s, void (*emit)(const gw_event *ev, void *arg),
                  void *arg)
{
    int lost = s->status == GPU_LOST;
    if (lost && (!d->seen || !d->lost))
        emit_simple(gpu, s, EV_GPU_LOST, emit, arg);
    if (!lost && d->seen && d->lost)
        emit_simple(gpu, s, EV_GPU_BACK, emit, arg);
    d->seen = 1;
    d->lost = lost;
    if (s->status != GPU_OK) {
        d->last_ok = 0;
        return;
    }
    if (d->has_good) {
        derive_xid(d, gpu, s, emit, arg);
        derive_ecc(d, gpu, s, emit, arg);
        derive_throttle(d, gpu, s, emit, arg);
    }
    d->has_good = 1;
    d->last_ok = 1;
    d->xid_count = value_of(s, M_XID_COUNT);
    d->xid_last = value_of(s, M_XID_LAST);
    d->dbe_volatile = value_of(s, M_ECC_DBE_VOL);
    d->dbe_aggregate = value_of(s, M_ECC_DBE_AGG);
    d->reasons = value_of(s, M_CER_ACTIVE);
}
