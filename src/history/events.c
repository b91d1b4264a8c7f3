/* events.c - events derived from consecutive samples of a GPU: gpu_lost/gpu_back, new XIDs,
 * throttle_start/throttle_end per clock-event reason (the reasons come from the catalog's bit metrics). */
#include "hist_internal.h"
#include <stdio.h>
#include <string.h>

static const char *reason_name(const metric_def *d)
{
    const char *dot = strrchr(d->field, '.');
    return dot ? dot + 1 : d->field;
}

static void detect_xid(history *h, int gpu, const gpu_sample *prev, const gpu_sample *cur)
{
    double pc, cc, last = 0;
    int have_last = sample_get(cur, M_XID_LAST, &last);
    int newer = 0;
    if (sample_get(prev, M_XID_COUNT, &pc) && sample_get(cur, M_XID_COUNT, &cc))
        newer = cc > pc;
    else if (have_last && sample_get(prev, M_XID_LAST, &pc))
        newer = last != pc && last != 0;
    if (!newer)
        return;
    char detail[64];
    if (have_last)
        snprintf(detail, sizeof detail, "xid=%.0f", last);
    else
        snprintf(detail, sizeof detail, "xid=unknown");
    hist_queue_event(h, (int64_t)cur->t_us, gpu, "xid", detail);
}

static void detect_throttle(history *h, int gpu, const gpu_sample *prev, const gpu_sample *cur)
{
    if (!sample_has(prev, M_CER_ACTIVE) || !sample_has(cur, M_CER_ACTIVE))
        return;
    uint64_t was = (uint64_t)prev->v[M_CER_ACTIVE], now = (uint64_t)cur->v[M_CER_ACTIVE];
    if (was == now)
        return;
    for (int m = M_STR_END; m < M_COUNT; m++) {
        const metric_def *d = catalog_get((metric_id)m);
        if (!(d->flags & MF_BIT) || d->parent != M_CER_ACTIVE || m == M_CER_GPU_IDLE)
            continue;
        int a = (was & d->bit) != 0, b = (now & d->bit) != 0;
        if (a != b)
            hist_queue_event(h, (int64_t)cur->t_us, gpu, b ? "throttle_start" : "throttle_end", reason_name(d));
    }
}

void hist_detect_events(history *h, int gpu, const gpu_sample *prev, const gpu_sample *cur)
{
    int lost = cur->status == GPU_LOST;
    if (!prev) {
        if (lost)
            hist_queue_event(h, (int64_t)cur->t_us, gpu, "gpu_lost", "");
        return;
    }
    int was_lost = prev->status == GPU_LOST;
    if (lost && !was_lost)
        hist_queue_event(h, (int64_t)cur->t_us, gpu, "gpu_lost", "");
    if (!lost && was_lost)
        hist_queue_event(h, (int64_t)cur->t_us, gpu, "gpu_back", "");
    if (cur->status != GPU_OK)
        return;
    detect_xid(h, gpu, prev, cur); /* prev: the last good sample, also across a loss (ingest.c) */
    if (prev->status == GPU_OK)
        detect_throttle(h, gpu, prev, cur);
}
