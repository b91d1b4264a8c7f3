/* diag_procs.c - the window's processes: each process list read becomes per-process tracks
 * (identity, memory, SM and CPU series, spans of consecutive lists) and the GPU's count of
 * holders: processes with a compute context (graphics-only ones, a desktop's display server and
 * shell, are tracked but hold no job). */
#include "diag_window_internal.h"
#include "util.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

void diag_proc_release(diag_proc *p)
{
    diag_series_free(&p->mem);
    diag_series_free(&p->sm);
    diag_series_free(&p->cpu);
    free(p->spans);
}

static diag_proc *proc_find(diag_window *w, int gpu, const gpu_proc *p)
{
    for (int i = w->n_procs - 1; i >= 0; i--) {
        diag_proc *q = &w->procs[i];
        if (q->gpu == gpu && q->pid == p->pid && strcmp(q->name, p->name) == 0)
            return q;
    }
    if (w->n_procs == w->cap_procs) {
        int cap = w->cap_procs ? w->cap_procs * 2 : 16;
        diag_proc *np = realloc(w->procs, (size_t)cap * sizeof *np);
        if (!np) {
            w->oom = 1;
            return NULL;
        }
        w->procs = np;
        w->cap_procs = cap;
    }
    diag_proc *q = &w->procs[w->n_procs++];
    memset(q, 0, sizeof *q);
    q->gpu = gpu;
    q->pid = p->pid;
    gw_strlcpy(q->name, p->name, sizeof q->name);
    return q;
}

/* A compute or MPS context, or a list that does not say (a source without process types). */
static int holds_job(const gpu_proc *p)
{
    return p->type == 0 || (p->type & (PROC_COMPUTE | PROC_MPS)) != 0;
}

/* prev_obs: the GPU's previous process-list time, 0 for its first list. */
static void proc_seen(diag_window *w, diag_proc *q, uint64_t prev_obs, uint64_t t)
{
    if (q->n_spans > 0 && q->spans[q->n_spans - 1].to_us == prev_obs) {
        q->spans[q->n_spans - 1].to_us = t;
        return;
    }
    if (q->n_spans > 0 && q->spans[q->n_spans - 1].to_us >= t)
        return; /* listed twice at one time */
    if (q->n_spans == q->cap_spans) {
        int cap = q->cap_spans ? q->cap_spans * 2 : 4;
        diag_span *ns = realloc(q->spans, (size_t)cap * sizeof *ns);
        if (!ns) {
            w->oom = 1;
            return;
        }
        q->spans = ns;
        q->cap_spans = cap;
    }
    q->spans[q->n_spans++] = (diag_span){t, t};
}

static void proc_update(diag_window *w, diag_proc *q, const gpu_proc *p, uint64_t prev_obs, uint64_t t)
{
    /* the identity fields are kept from the first read that had them */
    if (!q->cmdline[0] && p->cmdline[0])
        gw_strlcpy(q->cmdline, p->cmdline, sizeof q->cmdline);
    if (!q->user[0] && p->user[0])
        gw_strlcpy(q->user, p->user, sizeof q->user);
    if (!q->container[0] && p->container[0])
        gw_strlcpy(q->container, p->container, sizeof q->container);
    if (!q->start_time_s)
        q->start_time_s = p->start_time_s;
    q->compute |= holds_job(p);
    if (p->has_mem && isfinite(p->mem_mib))
        diag_window_push(w, &q->mem, t, (float)p->mem_mib, 0);
    if (p->has_sm && isfinite(p->sm_util))
        diag_window_push(w, &q->sm, t, (float)p->sm_util, 0);
    if (p->has_cpu && isfinite(p->cpu_percent))
        diag_window_push(w, &q->cpu, t, (float)p->cpu_percent, 0);
    proc_seen(w, q, prev_obs, t);
}

static void observe_gpu(diag_window *w, int gpu, uint64_t t, const gpu_proc *p, int n, int use_own_gpu)
{
    diag_gpu *g = diag_window_gpu(w, gpu);
    if (!g || (g->nproc.n > 0 && t <= g->last_obs_us))
        return;
    uint64_t prev = g->last_obs_us;
    int count = 0;
    for (int i = 0; i < n; i++) {
        if (use_own_gpu && p[i].gpu != gpu)
            continue;
        diag_proc *q = proc_find(w, gpu, &p[i]);
        if (q)
            proc_update(w, q, &p[i], prev, t);
        count += holds_job(&p[i]);
    }
    diag_window_push(w, &g->nproc, t, (float)count, 0);
    g->last_obs_us = t;
}

void diag_window_add_processes(diag_window *w, int gpu, uint64_t t_us, const gpu_proc *p, int n)
{
    if (gpu >= 0) {
        observe_gpu(w, gpu, t_us, p, n, 0);
        return;
    }
    for (int i = 0; i < n; i++)
        diag_window_gpu(w, p[i].gpu); /* a GPU first seen here */
    for (int g = 0; g < w->n_gpus; g++)
        if (w->gpus[g].known)
            observe_gpu(w, g, t_us, p, n, 1);
}

void diag_proc_trim_spans(diag_proc *q, uint64_t t)
{
    int k = 0;
    while (k < q->n_spans && q->spans[k].to_us < t)
        k++;
    if (k > 0) {
        memmove(q->spans, q->spans + k, (size_t)(q->n_spans - k) * sizeof *q->spans);
        q->n_spans -= k;
    }
    if (q->n_spans > 0 && q->spans[0].from_us < t)
        q->spans[0].from_us = t;
}
