/* synth_source.c - the step-by-step sample source (see synth_source.h). */
#include "synth_source.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        abort();
    return q;
}

void synth_init(synth *y, int gpus, int64_t start_us, int64_t step_us)
{
    memset(y, 0, sizeof *y);
    y->gpus = gpus;
    y->start_us = start_us;
    y->step_us = step_us;
    y->s = calloc((size_t)gpus + 1, sizeof *y->s);
    y->exists = calloc((size_t)gpus + 1, sizeof *y->exists);
    y->info = calloc((size_t)gpus + 1, sizeof *y->info);
    y->has_info = calloc((size_t)gpus + 1, 1);
    if (!y->s || !y->exists || !y->info || !y->has_info)
        abort();
}

void synth_free(synth *y)
{
    for (int g = 0; g < y->gpus; g++) {
        free(y->s[g]);
        free(y->exists[g]);
    }
    for (int i = 0; i < y->nprocs; i++) {
        free(y->procs[i].mem);
        free(y->procs[i].sm);
    }
    free(y->procs);
    free(y->s);
    free(y->exists);
    free(y->info);
    free(y->has_info);
    memset(y, 0, sizeof *y);
}

static void ensure_steps(synth *y, int step)
{
    if (step < y->steps)
        return;
    int steps = y->steps ? y->steps : 16;
    while (steps <= step)
        steps *= 2;
    for (int g = 0; g < y->gpus; g++) {
        y->s[g] = xrealloc(y->s[g], (size_t)steps * sizeof **y->s);
        y->exists[g] = xrealloc(y->exists[g], (size_t)steps);
        memset(y->exists[g] + y->steps, 0, (size_t)(steps - y->steps));
    }
    for (int i = 0; i < y->nprocs; i++) {
        y->procs[i].mem = xrealloc(y->procs[i].mem, (size_t)steps * sizeof(double));
        y->procs[i].sm = xrealloc(y->procs[i].sm, (size_t)steps * sizeof(double));
        for (int k = y->steps; k < steps; k++)
            y->procs[i].mem[k] = y->procs[i].sm[k] = NAN;
    }
    y->steps = steps;
}

static gpu_sample *step_sample(synth *y, int gpu, int step)
{
    ensure_steps(y, step);
    gpu_sample *s = &y->s[gpu][step];
    if (!y->exists[gpu][step]) {
        memset(s, 0, sizeof *s);
        s->t_us = (uint64_t)(y->start_us + step * y->step_us);
        y->exists[gpu][step] = 1;
    }
    return s;
}

void synth_set(synth *y, int gpu, int step, metric_id id, double v)
{
    sample_set(step_sample(y, gpu, step), id, v);
}
void synth_status(synth *y, int gpu, int step, gpu_status st)
{
    step_sample(y, gpu, step)->status = st;
}

void synth_info(synth *y, int gpu, const char *name, const char *uuid)
{
    gpu_info *i = &y->info[gpu];
    i->index = gpu;
    if (name) {
        snprintf(i->str[M_NAME], GW_STR_LEN, "%s", name);
        mset_add(&i->str_present, M_NAME);
    }
    if (uuid) {
        snprintf(i->str[M_UUID], GW_STR_LEN, "%s", uuid);
        mset_add(&i->str_present, M_UUID);
    }
    y->has_info[gpu] = 1;
}

synth_proc *synth_proc_get(synth *y, int gpu, unsigned pid, const char *name, const char *user)
{
    for (int i = 0; i < y->nprocs; i++)
        if (y->procs[i].gpu == gpu && y->procs[i].p.pid == pid)
            return &y->procs[i];
    y->procs = xrealloc(y->procs, (size_t)(y->nprocs + 1) * sizeof *y->procs);
    synth_proc *p = &y->procs[y->nprocs++];
    memset(p, 0, sizeof *p);
    p->gpu = gpu;
    p->p.gpu = gpu;
    p->p.pid = pid;
    p->p.type = PROC_COMPUTE;
    snprintf(p->p.name, sizeof p->p.name, "%s", name ? name : "");
    snprintf(p->p.user, sizeof p->p.user, "%s", user ? user : "");
    p->mem = xrealloc(NULL, (size_t)(y->steps ? y->steps : 1) * sizeof(double));
    p->sm = xrealloc(NULL, (size_t)(y->steps ? y->steps : 1) * sizeof(double));
    for (int k = 0; k < (y->steps ? y->steps : 1); k++)
        p->mem[k] = p->sm[k] = NAN;
    return p;
}

void synth_proc_set(synth *y, synth_proc *p, int step, int what, double v)
{
    ensure_steps(y, step);
    (what ? p->sm : p->mem)[step] = v;
}

static int s_count(void *ctx)
{
    return ((synth *)ctx)->gpus;
}

static int s_info(void *ctx, int gpu, gpu_info *out)
{
    synth *y = ctx;
    if (!y->has_info[gpu])
        return 0;
    *out = y->info[gpu];
    return 1;
}

static void s_each(void *ctx, int gpu, uint64_t since_us, void (*fn)(const gpu_sample *, void *), void *arg)
{
    synth *y = ctx;
    for (int k = 0; k < y->steps; k++)
        if (y->exists[gpu][k] && y->s[gpu][k].t_us >= since_us)
            fn(&y->s[gpu][k], arg);
}

static int s_latest(void *ctx, int gpu, int64_t now_us, gpu_sample *out)
{
    synth *y = ctx;
    for (int k = y->steps - 1; k >= 0; k--)
        if (y->exists[gpu][k] && (int64_t)y->s[gpu][k].t_us <= now_us) {
            *out = y->s[gpu][k];
            return 1;
        }
    return 0;
}

/* The processes with a value at the step of now_us. */
static int s_procs(void *ctx, int gpu, int64_t now_us, gpu_proc *out, int max)
{
    synth *y = ctx;
    if (now_us < y->start_us)
        return 0;
    int64_t k = (now_us - y->start_us) / y->step_us, n = 0;
    for (int i = 0; i < y->nprocs && n < max; i++) {
        synth_proc *p = &y->procs[i];
        if (p->gpu != gpu || k >= y->steps || (isnan(p->mem[k]) && isnan(p->sm[k])))
            continue;
        out[n] = p->p;
        out[n].has_mem = !isnan(p->mem[k]);
        out[n].mem_mib = out[n].has_mem ? p->mem[k] : 0;
        out[n].has_sm = !isnan(p->sm[k]);
        out[n].sm_util = out[n].has_sm ? p->sm[k] : 0;
        n++;
    }
    return (int)n;
}

void synth_source(synth *y, sample_source *src)
{
    src->ctx = y;
    src->gpu_count = s_count;
    src->gpu_info = s_info;
    src->each = s_each;
    src->latest = s_latest;
    src->procs = s_procs;
}
