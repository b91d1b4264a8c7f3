/* rw_backfill.c - resending from the history file (see rw_backfill.h). */
#include "rw_backfill.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "history_read.h"

typedef struct proc_list {
    int64_t t_us;
    gpu_proc *p;
    int n;
} proc_list;

typedef struct reading {
    rw_converter *conv;
    const rw_walk_context *ctx;
    const rw_backfill_range *range;
    int64_t *newest;
    rw_entry **out;
    size_t *n, *cap;
    int gpu; /* the GPU being collected, -1 none */
    gpu_info info;
    int have_info;
    gpu_sample *samples;
    size_t nsamples, capsamples;
    proc_list *lists;
    size_t nlists, caplists;
    long converted;
    int oom;
} reading;

static void forget_gpu(reading *r)
{
    for (size_t i = 0; i < r->nlists; i++)
        free(r->lists[i].p);
    r->nlists = 0;
    r->nsamples = 0;
    r->have_info = 0;
}

/* The identity to label the GPU with: the live one when it is the same GPU. */
static const gpu_info *identity(const reading *r)
{
    const gpu_info *live = r->gpu < RW_BACKFILL_GPUS ? r->range->live[r->gpu] : NULL;
    if (live && (!r->have_info || !mset_has(&r->info.str_present, M_UUID) ||
                 strcmp(live->str[M_UUID], r->info.str[M_UUID]) == 0))
        return live;
    return r->have_info ? &r->info : NULL;
}

/* Converts the collected GPU: each sample with the first process list recorded at or after it and
 * before the next sample (the agent records a GPU's processes right after its sample). */
static void flush_gpu(reading *r)
{
    if (r->gpu < 0)
        return;
    const gpu_info *info = identity(r);
    size_t li = 0;
    for (size_t k = 0; k < r->nsamples; k++) {
        const gpu_sample *s = &r->samples[k];
        int64_t t = (int64_t)s->t_us;
        int64_t next = k + 1 < r->nsamples ? (int64_t)r->samples[k + 1].t_us : t + 2000000;
        while (li < r->nlists && r->lists[li].t_us < t)
            li++;
        const proc_list *pl = li < r->nlists && r->lists[li].t_us < next ? &r->lists[li] : NULL;
        if (t <= r->range->after_us[r->gpu] || t >= r->range->before_us[r->gpu] || t > r->range->to_us)
            continue;
        if (rw_convert(r->conv, r->ctx, r->gpu, info, s, pl ? pl->p : NULL, pl ? pl->n : 0, r->out, r->n, r->cap) != 0)
            r->oom = 1;
        if (t > r->newest[r->gpu])
            r->newest[r->gpu] = t;
        r->converted++;
    }
    forget_gpu(r);
}

static void on_sample(void *ctx, int gpu, const gpu_info *info, const gpu_sample *s)
{
    reading *r = ctx;
    if (gpu != r->gpu) {
        flush_gpu(r);
        r->gpu = gpu;
    }
    if (gpu < 0 || gpu >= RW_BACKFILL_GPUS)
        return;
    if (info && !r->have_info) {
        r->info = *info;
        r->have_info = 1;
    }
    if (r->nsamples == r->capsamples) {
        size_t nc = r->capsamples ? r->capsamples * 2 : 64;
        gpu_sample *grown = realloc(r->samples, nc * sizeof *grown);
        if (!grown) {
            r->oom = 1;
            return;
        }
        r->samples = grown;
        r->capsamples = nc;
    }
    r->samples[r->nsamples++] = *s;
}

static void on_processes(void *ctx, int gpu, uint64_t t_us, const gpu_proc *procs, int n)
{
    reading *r = ctx;
    if (gpu != r->gpu) { /* processes of a GPU that had no sample in the range */
        flush_gpu(r);
        r->gpu = gpu;
    }
    if (r->nlists == r->caplists) {
        size_t nc = r->caplists ? r->caplists * 2 : 64;
        proc_list *grown = realloc(r->lists, nc * sizeof *grown);
        if (!grown) {
            r->oom = 1;
            return;
        }
        r->lists = grown;
        r->caplists = nc;
    }
    proc_list *pl = &r->lists[r->nlists];
    pl->t_us = (int64_t)t_us;
    pl->n = n;
    pl->p = n ? malloc((size_t)n * sizeof *pl->p) : NULL;
    if (n && !pl->p) {
        r->oom = 1;
        return;
    }
    if (n)
        memcpy(pl->p, procs, (size_t)n * sizeof *pl->p);
    r->nlists++;
}

long rw_backfill_read(const char *db, rw_converter *conv, const rw_walk_context *ctx, const rw_backfill_range *range,
                      int64_t *newest_us, rw_entry **out, size_t *n, size_t *cap, char *err, size_t errn)
{
    reading r = {
        .conv = conv, .ctx = ctx, .range = range, .newest = newest_us, .out = out, .n = n, .cap = cap, .gpu = -1};
    history_reader hr = {.ctx = &r, .on_sample = on_sample, .on_processes = on_processes};
    /* a process list is recorded just after its sample: read a little past the range for the last one */
    long got = history_read_range(db, range->from_us, range->to_us + 2000000, NULL, &hr, err, errn);
    flush_gpu(&r);
    free(r.samples);
    free(r.lists);
    if (got < 0)
        return -1;
    if (r.oom) {
        snprintf(err, errn, "out of memory");
        return -1;
    }
    return r.converted;
}
