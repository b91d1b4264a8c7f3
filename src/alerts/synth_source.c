/* synth_source.c - the step-by-step sample source (see synth_source.h). */
#include "synth_source.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int synth_init(synth *y, int gpus, int64_t start_us, int64_t step_us)
{
    memset(y, 0, sizeof *y);
    y->s = calloc((size_t)gpus + 1, sizeof *y->s);
    y->exists = calloc((size_t)gpus + 1, sizeof *y->exists);
    y->info = calloc((size_t)gpus + 1, sizeof *y->info);
    y->has_info = calloc((size_t)gpus + 1, 1);
    if (!y->s || !y->exists || !y->info || !y->has_info) {
        synth_free(y);
        return -1;
    }
    y->gpus = gpus;
    y->start_us = start_us;
    y->step_us = step_us;
    return 0;
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

/* *p grown to n doubles. Returns 0, or -1 when out of memory (*p as it was). */
static int grow_doubles(double **p, int n)
{
    double *q = realloc(*p, (size_t)n * sizeof *q);
    if (!q)
        return -1;
    *p = q;
    return 0;
}

/* Room for step in every array. Returns 0, or -1 when out of memory (y->steps as it was: arrays already
 * grown only hold more room). */
static int ensure_steps(synth *y, int step)
{
    if (step < y->steps)
        return 0;
    int steps = y->steps ? y->steps : 16;
    while (steps <= step)
        steps *= 2;
    for (int g = 0; g < y->gpus; g++) {
        gpu_sample *s = realloc(y->s[g], (size_t)steps * sizeof *s);
        if (!s)
            return -1;
        y->s[g] = s;
        unsigned char *e = realloc(y->exists[g], (size_t)steps);
        if (!e)
            return -1;
        y->exists[g] = e;
        memset(e + y->steps, 0, (size_t)(steps - y->steps));
    }
    for (int i = 0; i < y->nprocs; i++) {
        if (grow_doubles(&y->procs[i].mem, steps) != 0 || grow_doubles(&y->procs[i].sm, steps) != 0)
            return -1;
        for (int k = y->steps; k < steps; k++)
            y->procs[i].mem[k] = y->procs[i].sm[k] = NAN;
    }
    y->steps = steps;
    return 0;
}

/* NULL when out of memory. */
static gpu_sample *step_sample(synth *y, int gpu, int step)
{
    if (ensure_steps(y, step) != 0)
        return NULL;
    gpu_sample *s = &y->s[gpu][step];
    if (!y->exists[gpu][step]) {
        memset(s, 0, sizeof *s);
        s->t_us = (uint64_t)(y->start_us + step * y->step_us);
        y->exists[gpu][step] = 1;
    }
    return s;
}

int synth_set(synth *y, int gpu, int step, metric_id id, double v)
{
    gpu_sample *s = step_sample(y, gpu, step);
    if (!s)
        return -1;
    sample_set(s, id, v);
    return 0;
}

int synth_status(synth *y, int gpu, int step, gpu_status st)
{
    gpu_sample *s = step_sample(y, gpu, step);
    if (!s)
        return -1;
    s->status = st;
    return 0;
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
    int steps = y->steps ? y->steps : 1;
    double *mem = malloc((size_t)steps * sizeof *mem), *sm = malloc((size_t)steps * sizeof *sm);
    synth_proc *procs = mem && sm ? realloc(y->procs, (size_t)(y->nprocs + 1) * sizeof *procs) : NULL;
    if (!procs) {
        free(mem);
        free(sm);
        return NULL;
    }
    y->procs = procs;
    synth_proc *p = &y->procs[y->nprocs++];
    memset(p, 0, sizeof *p);
    p->gpu = gpu;
    p->p.gpu = gpu;
    p->p.pid = pid;
    p->p.type = PROC_COMPUTE;
    snprintf(p->p.name, sizeof p->p.name, "%s", name ? name : "");
    snprintf(p->p.user, sizeof p->p.user, "%s", user ? user : "");
    p->mem = mem;
    p->sm = sm;
    for (int k = 0; k < steps; k++)
        p->mem[k] = p->sm[k] = NAN;
    return p;
}

int synth_proc_set(synth *y, synth_proc *p, int step, int what, double v)
{
    if (ensure_steps(y, step) != 0)
        return -1;
    (what ? p->sm : p->mem)[step] = v;
    return 0;
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
