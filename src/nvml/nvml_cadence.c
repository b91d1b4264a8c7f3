/* nvml_cadence.c - the MF_SLOW metrics of a GPU read often (top, the agent): settings an
 * administrator changes (modes, applications clocks) and what follows the performance state (the
 * memory clock, the PCIe link's generation and width) are asked again when the pstate changes, and
 * at least every NV_SLOW_US; in between a read gives the last values. A one-shot read has no cache
 * and asks NVML. */
#include <string.h>
#include "nvml_priv.h"

void nv_slow_forget(nv_gpu *g)
{
    memset(&g->slow_have, 0, sizeof g->slow_have);
    g->slow_pstate = -1;
}

void nv_slow_take(nv_rd *r)
{
    nv_gpu *g = r->g;
    uint64_t now = nv_clock_us(r->b);
    double ps;
    memset(&r->slow_taken, 0, sizeof r->slow_taken);
    if (sample_get(r->out, M_PSTATE, &ps) && ps != g->slow_pstate) {
        nv_slow_forget(g); /* a new performance state: new clocks, maybe a new link speed */
        g->slow_pstate = ps;
    }
    for (int id = M_STR_END; id < M_COUNT; id++) {
        if (!(catalog_get((metric_id)id)->flags & MF_SLOW) || !mset_has(&r->want, (metric_id)id) ||
            !mset_has(&g->slow_have, (metric_id)id))
            continue;
        if (now < g->slow_t[id] || now - g->slow_t[id] >= NV_SLOW_US) /* a replay went back, or too old */
            continue;
        nv_set(r, (metric_id)id, g->slow_v[id]);
        mset_add(&r->slow_taken, (metric_id)id);
    }
}

void nv_slow_keep(nv_rd *r)
{
    nv_gpu *g = r->g;
    uint64_t now = nv_clock_us(r->b);
    for (int id = M_STR_END; id < M_COUNT; id++) {
        if (!(catalog_get((metric_id)id)->flags & MF_SLOW) || mset_has(&r->slow_taken, (metric_id)id) ||
            !sample_has(r->out, (metric_id)id))
            continue;
        g->slow_v[id] = r->out->v[id];
        g->slow_t[id] = now;
        mset_add(&g->slow_have, (metric_id)id);
    }
}
