/* model_procs.c - the processes of a simulated GPU at time t and the GPU-lost windows. */
#include "model.h"
#include <math.h>
#include <unistd.h>

unsigned sim_proc_pid(const sim_proc *p, int copy)
{
    switch (p->pid_kind) {
    case PID_SELF: return (unsigned)getpid();
    case PID_PARENT: return (unsigned)getppid();
    case PID_NUMBER: break;
    }
    return p->pid + (unsigned)copy * p->pid_stride;
}

/* A process curve at t (noise keyed by gpu, process and field); -1 when not given. */
static double curve(const scenario *sc, const sim_gpu *g, const sim_gen *gen, int proc, int field, double t)
{
    if (!gen)
        return -1;
    double v =
        gen_eval(gen, t, noise_key(sc->seed, (uint32_t)g->index, 0x10000u + (uint32_t)proc * 8u + (uint32_t)field));
    return v > 0 ? v : 0; /* negative or NaN */
}

static double pct(double v)
{
    return v > 100 ? 100 : round(v);
}

int sim_processes(const scenario *sc, int gpu, double t, sim_proc_sample *out, int max)
{
    const sim_gpu *g = &sc->gpus[gpu];
    int n = 0;
    for (int i = 0; i < g->spec->nprocs; i++) {
        const sim_proc *p = &g->spec->procs[i];
        if (t < p->start || t >= p->end)
            continue;
        if (n < max) {
            sim_proc_sample *s = &out[n];
            double v;
            s->def = p;
            s->pid = sim_proc_pid(p, g->copy);
            s->type = p->type;
            v = curve(sc, g, p->memory_mib, i, 0, t);
            s->mem_mib = v < 0 ? 0 : round(fmin(v, 1e9)); /* whole MiB, at most 1 PiB */
            s->has_sm = (v = curve(sc, g, p->sm, i, 1, t)) >= 0;
            s->sm = s->has_sm ? pct(v) : 0;
            s->has_mem = (v = curve(sc, g, p->mem, i, 2, t)) >= 0;
            s->mem = s->has_mem ? pct(v) : 0;
            s->has_enc = (v = curve(sc, g, p->enc, i, 3, t)) >= 0;
            s->enc = s->has_enc ? pct(v) : 0;
            s->has_dec = (v = curve(sc, g, p->dec, i, 4, t)) >= 0;
            s->dec = s->has_dec ? pct(v) : 0;
        }
        n++;
    }
    return n;
}

int sim_lost(const scenario *sc, int gpu, double t)
{
    for (int i = 0; i < sc->nfaults; i++) {
        const sim_fault *f = &sc->faults[i];
        if (f->kind == FAULT_LOST && f->gpu == gpu && t >= f->from && t < f->to)
            return 1;
    }
    return 0;
}
