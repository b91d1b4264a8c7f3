/* sampler.c - reads GPUs through the registered backends into samples (see sampler.h). */
#include "sampler.h"
#include "procinfo.h"
#include "util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Opens the registered backends into s->backends; returns how many GPUs they have. */
static backend_status open_backends(sampler *s, char *err, size_t errlen)
{
    const backend_ops *const *ops;
    int n = backend_registered(&ops);
    backend_status first = BK_ERR_NO_LIBRARY;
    if (n == 0)
        gw_strlcpy(err, "no GPU backend is built in", errlen);
    for (int i = 0; i < n; i++) {
        char why[256] = "";
        backend *b = NULL;
        backend_status st = ops[i]->open(&b, why, sizeof why);
        if (st != BK_OK) {
            if (s->nbackends == 0 && i == 0) {
                first = st;
                gw_strlcpy(err, why, errlen);
            }
            continue;
        }
        sampler_backend *sb = &s->backends[s->nbackends++];
        sb->ops = ops[i];
        sb->b = b;
        int count = ops[i]->gpu_count(b);
        s->count += count > 0 ? count : 0;
    }
    if (s->nbackends == 0)
        return first;
    err[0] = 0;
    return BK_OK;
}

static backend_status open_sampler(sampler *s, int read_info, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    backend_status st = open_backends(s, err, errlen);
    if (st != BK_OK)
        return st;
    s->backends[0].ops->versions(s->backends[0].b, &s->versions);
    s->gpus = calloc((size_t)(s->count ? s->count : 1), sizeof *s->gpus);
    if (!s->gpus) {
        gw_strlcpy(err, "out of memory", errlen);
        sampler_close(s);
        return BK_ERR_OTHER;
    }
    int i = 0;
    for (int k = 0; k < s->nbackends; k++) {
        sampler_backend *sb = &s->backends[k];
        int count = sb->ops->gpu_count(sb->b);
        for (int local = 0; local < count; local++, i++) {
            gw_gpu *g = &s->gpus[i];
            g->backend = k;
            g->local = local;
            g->info.index = i;
            if (!read_info)
                continue;
            gpu_status gs = sb->ops->read_info(sb->b, local, &g->info, &g->statics);
            g->info.index = i;
            g->have_info = gs == GPU_OK;
            g->lost = gs == GPU_LOST;
        }
    }
    return BK_OK;
}

backend_status sampler_open(sampler *s, char *err, size_t errlen)
{
    return open_sampler(s, 1, err, errlen);
}

backend_status sampler_open_deferred(sampler *s, char *err, size_t errlen)
{
    return open_sampler(s, 0, err, errlen);
}

void sampler_close(sampler *s)
{
    for (int k = 0; k < s->nbackends; k++)
        s->backends[k].ops->close(s->backends[k].b);
    free(s->gpus);
    memset(s, 0, sizeof *s);
}

/* Reads a GPU's identity and static values again (at start after a failure, or after a loss). */
static gpu_status reread_info(sampler *s, gw_gpu *g, int gpu)
{
    sampler_backend *sb = &s->backends[g->backend];
    gpu_status gs = sb->ops->read_info(sb->b, g->local, &g->info, &g->statics);
    g->info.index = gpu;
    return gs;
}

gpu_status sampler_read(sampler *s, int gpu, const metric_set *want, gpu_sample *out)
{
    metric_set all;
    if (!want) {
        mset_all(&all);
        want = &all;
    }
    gw_gpu *g = &s->gpus[gpu];
    sampler_backend *sb = &s->backends[g->backend];
    memset(&out->present, 0, sizeof out->present);
    out->t_us = gw_now_us();
    if (!g->have_info) {
        /* Identity never read (lost at start): try again, so a GPU that comes back is picked up. */
        gpu_status gs = reread_info(s, g, gpu);
        g->have_info = gs == GPU_OK;
        if (!g->have_info) {
            g->lost = gs == GPU_LOST;
            out->status = gs;
            return gs;
        }
    }
    gpu_status st = sb->ops->read_sample(sb->b, g->local, want, out);
    out->t_us = gw_now_us();
    out->status = st;
    if (st == GPU_LOST) {
        g->lost = 1;
        memset(&out->present, 0, sizeof out->present);
        return st;
    }
    if (g->lost) {
        /* Back after a loss: its limits or identity may have changed. */
        reread_info(s, g, gpu);
        g->lost = 0;
    }
    for (int id = M_STR_END; id < M_COUNT; id++)
        if ((catalog_get((metric_id)id)->flags & MF_STATIC) && sample_has(&g->statics, (metric_id)id))
            sample_set(out, (metric_id)id, g->statics.v[id]);
    return st;
}

int sampler_read_backend_processes(sampler *s, int gpu, gpu_proc *out, int max)
{
    gw_gpu *g = &s->gpus[gpu];
    sampler_backend *sb = &s->backends[g->backend];
    int n = sb->ops->read_processes(sb->b, g->local, out, max);
    for (int i = 0; i < n; i++)
        out[i].gpu = gpu;
    return n;
}

int sampler_read_processes(sampler *s, int gpu, gpu_proc *out, int max)
{
    int n = sampler_read_backend_processes(s, gpu, out, max);
    for (int i = 0; i < n; i++)
        procinfo_fill(&out[i]);
    return n;
}

int sampler_read_mig(sampler *s, int gpu, gpu_mig *out, int max)
{
    gw_gpu *g = &s->gpus[gpu];
    sampler_backend *sb = &s->backends[g->backend];
    if (!sb->ops->read_mig)
        return 0;
    int n = sb->ops->read_mig(sb->b, g->local, out, max);
    return n > max ? max : n;
}

int sampler_error_counts(sampler *s, backend_error_count *out, int max)
{
    int n = 0;
    for (int k = 0; k < s->nbackends && n < max; k++) {
        sampler_backend *sb = &s->backends[k];
        if (!sb->ops->error_counts)
            continue;
        int got = sb->ops->error_counts(sb->b, out + n, max - n);
        n += got > 0 ? got : 0;
    }
    return n;
}

int sampler_set_time(sampler *s, double t_s)
{
    for (int k = 0; k < s->nbackends; k++) {
        sampler_backend *sb = &s->backends[k];
        if (!sb->ops->set_time || sb->ops->set_time(sb->b, t_s) != 0)
            return -1;
    }
    return s->nbackends ? 0 : -1;
}

int sampler_read_topology(sampler *s, int gpu, gpu_topology *out)
{
    if (gpu < 0 || gpu >= s->count)
        return -1;
    gw_gpu *g = &s->gpus[gpu];
    sampler_backend *sb = &s->backends[g->backend];
    gpu_topology local;
    if (!sb->ops->read_topology || sb->ops->read_topology(sb->b, g->local, &local) != 0)
        return -1;
    *out = local;
    memset(out->path, TOPO_PATH_UNKNOWN, sizeof out->path);
    memset(out->nvlink, 0, sizeof out->nvlink);
    for (int i = 0; i < s->count && i < GW_TOPO_MAX_GPUS; i++) {
        const gw_gpu *p = &s->gpus[i];
        if (p->backend != g->backend || p->local >= GW_TOPO_MAX_GPUS)
            continue;
        out->path[i] = local.path[p->local];
        out->nvlink[i] = local.nvlink[p->local];
    }
    if (out->numa_node < 0 && g->have_info && sample_has(&g->statics, M_NUMA_NODE))
        out->numa_node = (int)g->statics.v[M_NUMA_NODE];
    return 0;
}

int sampler_read_list(sampler *s, int gpu, gpu_list_kind kind, double arg, gpu_list_item *out, int max)
{
    if (gpu < 0 || gpu >= s->count || max < 0)
        return -1;
    gw_gpu *g = &s->gpus[gpu];
    sampler_backend *sb = &s->backends[g->backend];
    return sb->ops->read_list ? sb->ops->read_list(sb->b, g->local, kind, arg, out, max) : -1;
}

double sampler_sim_time(sampler *s)
{
    for (int k = 0; k < s->nbackends; k++) {
        sampler_backend *sb = &s->backends[k];
        if (sb->ops->get_time)
            return sb->ops->get_time(sb->b);
    }
    return -1;
}

void sampler_backend_names(const sampler *s, char *out, size_t n)
{
    size_t len = 0;
    out[0] = 0;
    for (int k = 0; k < s->nbackends && len + 1 < n; k++)
        len += (size_t)snprintf(out + len, n - len, "%s%s", k ? "+" : "", s->backends[k].ops->name);
}
