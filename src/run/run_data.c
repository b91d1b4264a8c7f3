/* run_data.c - collecting a job's readings (run_data.h). */
#include "run_data.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"

int run_data_init(run_data *d)
{
    memset(d, 0, sizeof *d);
    d->win = diag_window_new();
    return d->win ? 0 : -1;
}

void run_data_free(run_data *d)
{
    for (int i = 0; i < d->ngpus; i++)
        free(d->gpus[i].pts);
    free(d->procs);
    free(d->host);
    free(d->notes);
    diag_window_free(d->win);
    memset(d, 0, sizeof *d);
}

run_gpu *run_data_gpu(run_data *d, int index, const gpu_info *info)
{
    for (int i = 0; i < d->ngpus; i++)
        if (d->gpus[i].index == index)
            return &d->gpus[i];
    if (d->ngpus == RUN_MAX_GPUS)
        return NULL;
    run_gpu *g = &d->gpus[d->ngpus++];
    memset(g, 0, sizeof *g);
    g->index = index;
    if (info) {
        gw_strlcpy(g->uuid, info->str[M_UUID], sizeof g->uuid);
        gw_strlcpy(g->name, info->str[M_NAME], sizeof g->name);
        gw_strlcpy(g->bus_id, info->str[M_PCI_BUS_ID], sizeof g->bus_id);
    }
    return g;
}

static float fval(const gpu_sample *s, metric_id id)
{
    double v;
    return sample_get(s, id, &v) ? (float)v : NAN;
}

static double dval(const gpu_sample *s, metric_id id)
{
    double v;
    return sample_get(s, id, &v) ? v : NAN;
}

void run_data_add_sample(run_data *d, run_gpu *g, const gpu_info *info, const gpu_sample *s, double sim_t)
{
    if (g->n == g->cap) {
        size_t cap = g->cap ? g->cap * 2 : 256;
        run_point *p = realloc(g->pts, cap * sizeof *p);
        if (!p) {
            d->oom = 1;
            return;
        }
        g->pts = p;
        g->cap = cap;
    }
    run_point *p = &g->pts[g->n++];
    memset(p, 0, sizeof *p);
    p->t_us = (int64_t)s->t_us;
    p->sim_t = sim_t;
    p->lost = s->status == GPU_LOST;
    p->energy_mj = dval(s, M_ENERGY);
    p->viol_power_us = dval(s, M_VIOL_POWER);
    p->viol_thermal_us = dval(s, M_VIOL_THERMAL);
    p->xid_count = dval(s, M_XID_COUNT);
    double xl = dval(s, M_XID_LAST);
    p->xid_last = isnan(xl) ? 0 : (unsigned short)xl;
    p->util = fval(s, M_UTIL_GPU);
    p->sm_active = fval(s, M_GPM_SM_ACTIVE);
    p->mem_used = fval(s, M_MEM_USED);
    p->mem_total = fval(s, M_MEM_TOTAL);
    p->power = fval(s, M_POWER_DRAW);
    p->power_limit = fval(s, M_POWER_ENFORCED_LIMIT);
    if (isnan(p->power_limit))
        p->power_limit = fval(s, M_POWER_LIMIT);
    p->temp = fval(s, M_TEMP_GPU);
    p->temp_mem = fval(s, M_TEMP_MEMORY);
    p->clock_sm = fval(s, M_CLOCK_SM);
    double cer = dval(s, M_CER_ACTIVE);
    if (!isnan(cer)) {
        p->throttle = (uint32_t)((uint64_t)cer & 0xffffffffu);
        p->has_throttle = 1;
    }
    diag_window_add_sample(d->win, g->index, info, s);
}

static run_proc *find_proc(run_data *d, int gpu, unsigned pid)
{
    for (size_t i = 0; i < d->nprocs; i++)
        if (d->procs[i].gpu == gpu && d->procs[i].pid == pid)
            return &d->procs[i];
    if (d->nprocs == d->procs_cap) {
        size_t cap = d->procs_cap ? d->procs_cap * 2 : 16;
        run_proc *p = realloc(d->procs, cap * sizeof *p);
        if (!p) {
            d->oom = 1;
            return NULL;
        }
        d->procs = p;
        d->procs_cap = cap;
    }
    run_proc *p = &d->procs[d->nprocs++];
    memset(p, 0, sizeof *p);
    p->gpu = gpu;
    p->pid = pid;
    p->peak_mem_mib = p->peak_sm = NAN;
    return p;
}

void run_data_add_procs(run_data *d, int gpu, int64_t t_us, const gpu_proc *procs, int n, const int *in_job)
{
    diag_window_add_processes(d->win, gpu, (uint64_t)t_us, procs, n);
    for (int i = 0; i < n; i++) {
        run_proc *p = find_proc(d, gpu, procs[i].pid);
        if (!p)
            return;
        if (!p->first_us)
            p->first_us = t_us;
        p->last_us = t_us;
        p->in_job = in_job ? in_job[i] : 0;
        gw_strlcpy(p->name, procs[i].name, sizeof p->name);
        gw_strlcpy(p->user, procs[i].user, sizeof p->user);
        if (procs[i].has_mem && !(p->peak_mem_mib >= procs[i].mem_mib))
            p->peak_mem_mib = procs[i].mem_mib;
        if (procs[i].has_sm && !(p->peak_sm >= procs[i].sm_util))
            p->peak_sm = procs[i].sm_util;
    }
}

void run_data_add_host(run_data *d, const run_host_point *h)
{
    if (d->nhost == d->host_cap) {
        size_t cap = d->host_cap ? d->host_cap * 2 : 256;
        run_host_point *p = realloc(d->host, cap * sizeof *p);
        if (!p) {
            d->oom = 1;
            return;
        }
        d->host = p;
        d->host_cap = cap;
    }
    d->host[d->nhost++] = *h;
}

#define RUN_MAX_NOTES 4096

void run_data_add_output(run_data *d, int64_t t_us, const char *line)
{
    diag_job_note n;
    if (!diag_job_line(line, &n) || d->nnotes == RUN_MAX_NOTES)
        return;
    if (d->nnotes == d->notes_cap) {
        size_t cap = d->notes_cap ? d->notes_cap * 2 : 16;
        diag_job_note *p = realloc(d->notes, cap * sizeof *p);
        if (!p) {
            d->oom = 1;
            return;
        }
        d->notes = p;
        d->notes_cap = cap;
    }
    n.t_us = (uint64_t)t_us;
    d->notes[d->nnotes++] = n;
}

void run_data_add_notes(run_data *d)
{
    for (size_t i = 0; i < d->nnotes && d->ngpus > 0; i++) {
        const diag_job_note *n = &d->notes[i];
        int k = n->gpu >= 0 && n->gpu < d->ngpus ? n->gpu : 0;
        diag_window_add_note(d->win, d->gpus[k].index, n->t_us, n);
    }
}
