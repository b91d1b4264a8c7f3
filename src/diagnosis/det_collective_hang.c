/* det_collective_hang.c - collective_hang: a job's GPUs sit in a collective that never completes.
 * An NCCL kernel waiting for a peer keeps "a kernel running" (utilization pinned at ~100 %) while
 * it spins on a few SMs touching no memory, so the power stays near idle and flat, and SM activity
 * (GPM) is a few percent: for minutes (half of NCCL's default 10-minute timeout) no real job looks
 * like that. The GPUs of the job that do not (idle in host code, still computing, lost, or whose
 * process is gone) are named: the odd one out is where the hang starts. */
#include "diag_internal.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_MEMBERS DIAG_MAX_FINDING_GPUS

typedef struct {
    int hung;
    uint64_t from, to; /* the longest hung stretch */
    double util, power, limit, sm;
} gpu_hang;

typedef struct {
    int gpu;
    const diag_proc *proc;
} member;

/* The longest stretch of readings that look hung (gaps of up to three readings joined). */
static void find_hang(diag_ctx *c, diag_gpu_view *v, gpu_hang *h)
{
    const diag_config *cfg = c->cfg;
    const diag_gpu *g = v->g;
    memset(h, 0, sizeof *h);
    if (v->n == 0 || g->s[DS_POWER].n == 0)
        return;
    double idle = diag_idle_power(v, c->cfg->launch_bound.idle_power_frac);
    int gpm = g->s[DS_SM_ACTIVE].n > 0, hints[5] = {0};
    uint64_t run_from = 0, run_to = 0, best = 0;
    for (int i = 0; i < v->n; i++) {
        uint64_t t = v->t[i];
        int hung = 0;
        if (v->held[i] != 0 && v->u[i] >= cfg->collective_hang.util) {
            double p = diag_at(&g->s[DS_POWER], t, v->step_us, &hints[0]);
            double lim = diag_power_limit_at(v, t, &hints[1]);
            double mu = diag_at(&g->s[DS_MEM_UTIL], t, v->step_us, &hints[2]);
            double sm = gpm ? diag_at(&g->s[DS_SM_ACTIVE], t, v->step_us, &hints[3]) : NAN;
            hung = !isnan(p) && !isnan(lim) && !isnan(idle) && lim > idle &&
                   (p - idle) / (lim - idle) < cfg->collective_hang.power_frac && !(mu >= 10) &&
                   (!gpm || sm < cfg->collective_hang.sm_active);
        }
        if (!hung)
            continue;
        if (!run_from || t - run_to > 3 * v->step_us)
            run_from = t;
        run_to = t;
        if (run_to - run_from + v->step_us > best) {
            best = run_to - run_from + v->step_us;
            h->from = run_from;
            h->to = run_to;
        }
    }
    h->hung = best > 0 && (double)best / 1e6 >= cfg->collective_hang.min_duration_s;
    if (!h->hung)
        return;
    int hint = 0;
    h->util = diag_series_mean(&g->s[DS_UTIL], h->from, h->to);
    h->power = diag_series_mean(&g->s[DS_POWER], h->from, h->to);
    h->limit = diag_power_limit_at(v, h->to, &hint);
    h->sm = gpm ? diag_series_mean(&g->s[DS_SM_ACTIVE], h->from, h->to) : NAN;
}

/* The job's processes on other GPUs (one per GPU), from the hung process's job key. */
static int job_members(const diag_ctx *c, const diag_proc *p, member *out)
{
    char key[512], k2[512];
    diag_job_key(p, key, sizeof key);
    int n = 0;
    for (int i = 0; i < c->w->n_procs && n < MAX_MEMBERS; i++) {
        const diag_proc *q = &c->w->procs[i];
        if (!q->compute || q->n_spans == 0 || q->gpu < 0 || q->gpu >= c->n_views)
            continue;
        diag_job_key(q, k2, sizeof k2);
        if (strcmp(key, k2) != 0)
            continue;
        int seen = 0;
        for (int k = 0; k < n; k++)
            seen |= out[k].gpu == q->gpu;
        if (!seen)
            out[n++] = (member){q->gpu, q};
    }
    return n;
}

/* What a GPU of the job that is not hung does meanwhile, in words. */
static void odd_state(diag_ctx *c, const member *m, uint64_t from, uint64_t to, char *out, size_t n)
{
    const diag_gpu *g = c->views[m->gpu].g;
    for (int i = 0; i < c->w->n_events; i++) {
        const diag_event *e = &c->w->events[i];
        if (e->gpu == m->gpu && e->kind == DIAG_EV_GPU_LOST && e->t_us <= to) {
            snprintf(out, n, "lost (the GPU stopped answering)");
            return;
        }
    }
    uint64_t gone = m->proc->spans[m->proc->n_spans - 1].to_us;
    if (gone < from + c->views[m->gpu].step_us) {
        snprintf(out, n, "its process %u exited before the others hung: they wait for it", m->proc->pid);
        return;
    }
    double u = diag_series_mean(&g->s[DS_UTIL], from, to);
    if (isnan(u))
        snprintf(out, n, "not read while the others hung");
    else if (u < 5)
        snprintf(out, n, "idle (%.0f %%): its rank never reached the collective (host code, data, a deadlock)", u);
    else
        snprintf(out, n, "busy at %.0f %% with real work: its rank is still computing (a straggler, or a loop)", u);
}

static void report(diag_ctx *c, const int *hung, int n_hung, const member *odd, int n_odd, const gpu_hang *hv,
                   const diag_proc *p)
{
    uint64_t from = hv[hung[0]].from, to = hv[hung[0]].to;
    for (int i = 1; i < n_hung; i++) {
        from = hv[hung[i]].from < from ? hv[hung[i]].from : from;
        to = hv[hung[i]].to > to ? hv[hung[i]].to : to;
    }
    diag_finding *f = diag_report_add(c->out, "collective_hang", DIAG_CRITICAL);
    if (!f)
        return;
    f->from_us = from;
    f->to_us = to;
    char list[128] = "", states[sizeof(((diag_evidence *)0)->str)] = "";
    size_t len = 0, slen = 0;
    double util = 0, power = 0, limit = 0, sm = 0;
    for (int k = 0; k < n_odd; k++) {
        diag_finding_gpu(f, odd[k].gpu);
        c->views[odd[k].gpu].flags |= VIEW_HANG;
        char st[200];
        odd_state(c, &odd[k], from, to, st, sizeof st);
        if (slen < sizeof states)
            slen += (size_t)snprintf(states + slen, sizeof states - slen, "%sGPU %d %s", k ? "; " : "", odd[k].gpu, st);
    }
    for (int i = 0; i < n_hung; i++) {
        const gpu_hang *h = &hv[hung[i]];
        diag_finding_gpu(f, hung[i]);
        c->views[hung[i]].flags |= VIEW_HANG;
        len += (size_t)snprintf(list + len, len < sizeof list ? sizeof list - len : 0, "%s%d", i ? "," : "", hung[i]);
        util += h->util / n_hung;
        power += h->power / n_hung;
        limit += h->limit / n_hung;
        sm += h->sm / n_hung;
    }
    diag_attribute(c, f, hung[0], from, to);
    f->score = (double)(to - from) / 1e6;
    diag_finding_str(f, "hung_gpus", "%s", list);
    if (n_odd) {
        diag_finding_num(f, "odd_gpu", odd[0].gpu, "");
        diag_finding_str(f, "odd_state", "%s", states);
    }
    diag_finding_num(f, "hang_s", (double)(to - from) / 1e6, "s");
    diag_finding_num(f, "median_util", util, "%");
    diag_finding_num(f, "power_w", power, "W");
    diag_finding_num(f, "power_limit_w", limit, "W");
    if (!isnan(sm))
        diag_finding_num(f, "sm_active", sm, "%");
    char who[160] = "";
    if (p)
        diag_proc_label(p, who, sizeof who);
    diag_finding_summary(f,
                         "%s%s looks hung in a collective: GPU%s %s at %.0f %% utilization drawing %.0f W of %.0f W "
                         "for %.0f min%s%s",
                         p ? "The job of " : "GPUs", who, n_hung > 1 ? "s" : "", list, util, power, limit,
                         (double)(to - from) / 60e6, n_odd ? "; the odd one out: " : "", n_odd ? states : "");
    diag_finding_advice(f, "Dump every rank's stack (py-spy dump --pid PID) or NCCL's flight recorder "
                           "(TORCH_NCCL_TRACE_BUFFER_SIZE, TORCH_NCCL_DUMP_ON_TIMEOUT=1) to see which collective each "
                           "rank waits in");
    if (n_odd)
        diag_finding_advice(f, "Start with the odd GPU's rank (GPU %d): the others wait for it", odd[0].gpu);
    diag_finding_advice(f, "NCCL's watchdog aborts the job after its timeout (10 min by default): restart from the "
                           "last checkpoint; if the same rank hangs again, check its GPU, NVLink and network "
                           "(hw_health, nvlink_errors)");
    diag_chart_series(f, &c->views[hung[0]].g->s[DS_POWER], hung[0], "power.draw", "W", c->from_us, c->to_us, 0);
}

void det_collective_hang(diag_ctx *c)
{
    gpu_hang *hv = calloc((size_t)(c->n_views ? c->n_views : 1), sizeof *hv);
    if (!hv)
        return;
    for (int i = 0; i < c->n_views; i++)
        find_hang(c, &c->views[i], &hv[i]);
    for (int i = 0; i < c->n_views; i++) {
        if (!hv[i].hung || (c->views[i].flags & VIEW_HANG))
            continue;
        const diag_proc *p[1];
        int np = diag_procs_in(c, i, hv[i].from, hv[i].to, p, 1);
        int hung[MAX_MEMBERS], n_hung = 0;
        member m[MAX_MEMBERS], odd[MAX_MEMBERS];
        int n = np ? job_members(c, p[0], m) : 0, n_odd = 0;
        if (n == 0) { /* no process lists: the GPUs hung at the same time are the job */
            for (int k = 0; k < c->n_views && n_hung < MAX_MEMBERS; k++)
                if (hv[k].hung && hv[k].from <= hv[i].to && hv[k].to >= hv[i].from && !(c->views[k].flags & VIEW_HANG))
                    hung[n_hung++] = k;
        } else {
            for (int k = 0; k < n; k++) {
                const gpu_hang *h = &hv[m[k].gpu];
                if (h->hung && h->from <= hv[i].to && h->to >= hv[i].from)
                    hung[n_hung++] = m[k].gpu;
                else
                    odd[n_odd++] = m[k];
            }
        }
        if (n_hung == 0) /* its own process was not a compute one: the GPU alone */
            hung[n_hung++] = i;
        report(c, hung, n_hung, odd, n_odd, hv, np ? p[0] : NULL);
    }
    free(hv);
}
