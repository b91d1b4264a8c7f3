/* pipeline_state.c - what the pipeline keeps of its GPUs (the ring of recent samples, each GPU's
 * identity and latest processes) and the sample_source through which plugins read it. */
#include "pipeline_internal.h"
#include <stdlib.h>
#include <string.h>

static int src_count(void *ctx)
{
    pipeline *p = ctx;
    pthread_mutex_lock(&p->mu);
    int n = p->ngpus;
    pthread_mutex_unlock(&p->mu);
    return n;
}

static int src_info(void *ctx, int gpu, gpu_info *out)
{
    pipeline *p = ctx;
    pthread_mutex_lock(&p->mu);
    int ok = gpu >= 0 && gpu < p->ngpus && p->have_info[gpu];
    if (ok)
        *out = p->info[gpu];
    pthread_mutex_unlock(&p->mu);
    return ok;
}

static void src_each(void *ctx, int gpu, uint64_t since_us, void (*fn)(const gpu_sample *, void *), void *arg)
{
    ring *r = pipeline_ring(ctx);
    if (r)
        ring_each(r, gpu, since_us, fn, arg);
}

static int src_latest(void *ctx, int gpu, int64_t now_us, gpu_sample *out)
{
    (void)now_us;
    ring *r = pipeline_ring(ctx);
    return r ? ring_latest(r, gpu, out) : 0;
}

static int src_procs(void *ctx, int gpu, int64_t now_us, gpu_proc *out, int max)
{
    pipeline *p = ctx;
    (void)now_us;
    pthread_mutex_lock(&p->mu);
    int n = gpu >= 0 && gpu < p->ngpus ? p->nprocs[gpu] : 0;
    if (n > max)
        n = max;
    if (n > 0)
        memcpy(out, p->procs[gpu], (size_t)n * sizeof *out);
    pthread_mutex_unlock(&p->mu);
    return n;
}

static int src_capacity(void *ctx)
{
    ring *r = pipeline_ring(ctx);
    return r ? ring_capacity(r) : 0;
}

void pipeline_state_init(pipeline *p)
{
    pthread_mutex_init(&p->mu, NULL);
    p->view.source = (sample_source){p, src_count, src_info, src_each, src_latest, src_procs, src_capacity};
}

int pipeline_open(pipeline *p, int ngpus, int ring_capacity)
{
    size_t n = ngpus > 0 ? (size_t)ngpus : 1;
    ring *r = ring_new(ngpus, ring_capacity);
    gpu_info *info = calloc(n, sizeof *info);
    int *have = calloc(n, sizeof *have);
    gpu_proc **procs = calloc(n, sizeof *procs);
    int *nprocs = calloc(n, sizeof *nprocs);
    event_deriver *derivers = calloc(n, sizeof *derivers);
    if (!r || !info || !have || !procs || !nprocs || !derivers) {
        ring_free(r);
        free(info), free(have), free(procs), free(nprocs), free(derivers);
        return -1;
    }
    pthread_mutex_lock(&p->mu);
    p->ring = r;
    p->info = info;
    p->have_info = have;
    p->procs = procs;
    p->nprocs = nprocs;
    p->derivers = derivers;
    p->ngpus = ngpus;
    pthread_mutex_unlock(&p->mu);
    return 0;
}

void pipeline_state_free(pipeline *p)
{
    ring_free(p->ring);
    for (int i = 0; p->procs && i < p->ngpus; i++)
        free(p->procs[i]);
    free(p->procs);
    free(p->nprocs);
    free(p->info);
    free(p->have_info);
    free(p->derivers);
    pthread_mutex_destroy(&p->mu);
}

int pipeline_keep_sample(pipeline *p, int gpu, const gpu_info *info, const gpu_sample *s)
{
    if (gpu < 0 || gpu >= p->ngpus) /* ngpus is the pipeline thread's own after open */
        return -1;
    ring_push(p->ring, gpu, s);
    if (info) {
        pthread_mutex_lock(&p->mu);
        p->info[gpu] = *info;
        p->have_info[gpu] = 1;
        pthread_mutex_unlock(&p->mu);
    }
    return 0;
}

void pipeline_keep_processes(pipeline *p, int gpu, const gpu_proc *procs, int n)
{
    if (gpu < 0 || gpu >= p->ngpus)
        return;
    n = n > 0 ? n : 0;
    gpu_proc *copy = n ? malloc((size_t)n * sizeof *copy) : NULL;
    if (n && !copy)
        n = 0;
    if (n)
        memcpy(copy, procs, (size_t)n * sizeof *copy);
    pthread_mutex_lock(&p->mu);
    free(p->procs[gpu]);
    p->procs[gpu] = copy;
    p->nprocs[gpu] = n;
    pthread_mutex_unlock(&p->mu);
}

const sample_source *pipeline_source(pipeline *p)
{
    return &p->view.source;
}

ring *pipeline_ring(pipeline *p)
{
    pthread_mutex_lock(&p->mu);
    ring *r = p->ring;
    pthread_mutex_unlock(&p->mu);
    return r;
}

int pipeline_processes_all(pipeline *p, gpu_proc **out)
{
    *out = NULL;
    pthread_mutex_lock(&p->mu);
    int total = 0;
    for (int i = 0; i < p->ngpus; i++)
        total += p->nprocs[i];
    gpu_proc *all = total ? malloc((size_t)total * sizeof *all) : NULL;
    int n = 0;
    for (int i = 0; all && i < p->ngpus; i++) {
        if (p->nprocs[i])
            memcpy(all + n, p->procs[i], (size_t)p->nprocs[i] * sizeof *all);
        n += p->nprocs[i];
    }
    pthread_mutex_unlock(&p->mu);
    if (total && !all)
        return -1;
    *out = all;
    return n;
}
