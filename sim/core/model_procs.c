/* model_procs.c - the processes of a simulated GPU at time t (their curves, the activity they
 * add up to, what NVML reports for them) and the GPU-lost windows. */
#include "model.h"
#include "model_window.h"
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

const sim_gen *sim_proc_gen(const sim_proc *p, sim_proc_field f)
{
    switch (f) {
    case PF_MEMORY: return p->memory_mib;
    case PF_SM: return p->sm;
    case PF_MEM: return p->mem;
    case PF_ENC: return p->enc;
    case PF_DEC: return p->dec;
    case PF_PCIE_RX: return p->pcie_rx;
    case PF_PCIE_TX: return p->pcie_tx;
    }
    return NULL;
}

double sim_proc_value(const scenario *sc, const sim_gpu *g, int proc, sim_proc_field f, double t)
{
    const sim_proc *p = &g->spec->procs[proc];
    if (t >= p->hang_from && (f == PF_SM || f == PF_MEM))
        return f == PF_SM ? 100 : 0; /* hung: one kernel that never ends, no memory traffic */
    const sim_gen *gen = sim_proc_gen(p, f);
    if (!gen)
        return -1;
    /* noise keyed by gpu, process and field */
    double v = gen_eval(gen, t, noise_key(sc->seed, (uint32_t)g->index, 0x10000u + (uint32_t)proc * 8u + (uint32_t)f));
    return v > 0 ? v : 0; /* negative or NaN */
}

double sim_proc_hang_sm(const sim_gpu *g, double t)
{
    double sm = -1;
    for (int i = 0; i < g->spec->nprocs; i++) {
        const sim_proc *p = &g->spec->procs[i];
        if (t >= p->start && t < p->end && t >= p->hang_from && (sm < 0 || p->hang_sm < sm))
            sm = p->hang_sm;
    }
    return sm;
}

double sim_proc_activity(const scenario *sc, const sim_gpu *g, double t)
{
    double sum = 0;
    for (int i = 0; i < g->spec->nprocs; i++) {
        const sim_proc *p = &g->spec->procs[i];
        if ((p->sm || t >= p->hang_from) && t >= p->start && t < p->end)
            sum += fmin(sim_proc_value(sc, g, i, PF_SM, t), 100);
    }
    return sum;
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
            s->gi = p->gi;
            s->ci = p->ci;
            v = sim_proc_value(sc, g, i, PF_MEMORY, t);
            s->mem_mib = v < 0 ? 0 : round(fmin(v, 1e9)); /* whole MiB, at most 1 PiB */
            /* sm and mem as NVML reports them: averaged over the GPU's utilization period */
            s->has_sm = p->sm != NULL || t >= p->hang_from;
            s->sm = s->has_sm ? pct(win_proc(sc, g, i, PF_SM, t)) : 0;
            s->has_mem = p->mem != NULL;
            s->mem = s->has_mem ? pct(win_proc(sc, g, i, PF_MEM, t)) : 0;
            s->has_enc = (v = sim_proc_value(sc, g, i, PF_ENC, t)) >= 0;
            s->enc = s->has_enc ? pct(v) : 0;
            s->has_dec = (v = sim_proc_value(sc, g, i, PF_DEC, t)) >= 0;
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
