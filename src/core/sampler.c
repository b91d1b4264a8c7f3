/* sampler.c - reads GPUs through the backend into samples (see sampler.h). */
#include "sampler.h"
#include "procinfo.h"
#include "util.h"
#include <stdlib.h>
#include <string.h>

backend_status sampler_open(sampler *s, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    s->ops = &nvml_backend_ops;
    backend_status st = s->ops->open(&s->b, err, errlen);
    if (st != BK_OK)
        return st;
    s->ops->versions(s->b, &s->versions);
    s->count = s->ops->gpu_count(s->b);
    if (s->count < 0)
        s->count = 0;
    s->gpus = calloc((size_t)(s->count ? s->count : 1), sizeof *s->gpus);
    if (!s->gpus) {
        gw_strlcpy(err, "out of memory", errlen);
        s->ops->close(s->b);
        return BK_ERR_OTHER;
    }
    for (int i = 0; i < s->count; i++) {
        gw_gpu *g = &s->gpus[i];
        g->info.index = i;
        gpu_status gs = s->ops->read_info(s->b, i, &g->info, &g->statics);
        g->have_info = gs == GPU_OK;
        g->lost = gs == GPU_LOST;
    }
    return BK_OK;
}

void sampler_close(sampler *s)
{
    if (s->b)
        s->ops->close(s->b);
    free(s->gpus);
    memset(s, 0, sizeof *s);
}

gpu_status sampler_read(sampler *s, int gpu, const metric_set *want, gpu_sample *out)
{
    metric_set all;
    if (!want) {
        mset_all(&all);
        want = &all;
    }
    gw_gpu *g = &s->gpus[gpu];
    memset(&out->present, 0, sizeof out->present);
    out->t_us = gw_now_us();
    if (!g->have_info) {
        /* Identity never read (lost at start): try again, so a GPU that comes back is picked up. */
        gpu_status gs = s->ops->read_info(s->b, gpu, &g->info, &g->statics);
        g->have_info = gs == GPU_OK;
        if (!g->have_info) {
            g->lost = gs == GPU_LOST;
            out->status = gs;
            return gs;
        }
    }
    gpu_status st = s->ops->read_sample(s->b, gpu, want, out);
    out->t_us = gw_now_us();
    out->status = st;
    if (st == GPU_LOST) {
        g->lost = 1;
        memset(&out->present, 0, sizeof out->present);
        return st;
    }
    if (g->lost) {
        /* Back after a loss: its limits or identity may have changed. */
        s->ops->read_info(s->b, gpu, &g->info, &g->statics);
        g->lost = 0;
    }
    for (int id = M_STR_END; id < M_COUNT; id++)
        if ((catalog_get((metric_id)id)->flags & MF_STATIC) && sample_has(&g->statics, (metric_id)id))
            sample_set(out, (metric_id)id, g->statics.v[id]);
    return st;
}

int sampler_read_processes(sampler *s, int gpu, gpu_proc *out, int max)
{
    int n = s->ops->read_processes(s->b, gpu, out, max);
    for (int i = 0; i < n; i++) {
        out[i].gpu = gpu;
        procinfo_fill(&out[i]);
    }
    return n;
}
