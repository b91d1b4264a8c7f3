/* det_idle_holding.c - idle_holding: a process holds GPU memory while the GPU stays idle
 * (utilization < 5 %) for 20 minutes or more: the GPU is unusable for others and does nothing.
 * Readings just above 5 % (under 10 %) are taken as noise while they are rare; any real work
 * ends the idle stretch. Says who holds it: pid, user, container, memory. */
#include "diag_internal.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MIN_IDLE_SHARE 0.9

static void report(diag_ctx *c, const diag_gpu_view *v, const dstat_run *run, double total_idle_s)
{
    double idle_s = (double)(run->to_us - run->from_us) / 1e6;
    diag_finding *f = diag_emit(c, "idle_holding", DIAG_WARNING, v->gpu, run->from_us, run->to_us);
    if (!f)
        return;
    const diag_proc *p[DIAG_MAX_PIDS];
    int k = diag_procs_in(c, v->gpu, run->from_us, run->to_us, p, DIAG_MAX_PIDS);
    double held = 0;
    for (int i = 0; i < k; i++) {
        double m = diag_proc_mem(p[i]);
        held += isnan(m) ? 0 : m;
    }
    f->score = idle_s / 3600;
    diag_finding_num(f, "idle_s", idle_s, "s");
    diag_finding_num(f, "idle_total_s", total_idle_s, "s");
    diag_finding_num(f, "held_mib", held, "MiB");
    diag_finding_num(f, "processes", k, "");
    if (k > 0)
        diag_finding_num(f, "pid", p[0]->pid, "");
    char label[180] = "a process";
    if (k > 0)
        diag_proc_label(p[0], label, sizeof label);
    diag_finding_summary(f, "%s%s holds %.0f MiB on GPU %d, idle (utilization < %.0f %%) for %.0f min", label,
                         k > 1 ? " and others" : "", held, v->gpu, c->cfg->idle_holding.idle_util, idle_s / 60);
    if (k > 0 && p[0]->user[0])
        diag_finding_advice(f,
                            "Ask %s (pid %u%s%s) to release the GPU: end the process or notebook kernel, or free "
                            "its tensors (del, then torch.cuda.empty_cache())",
                            p[0]->user, p[0]->pid, p[0]->container[0] ? ", container " : "", p[0]->container);
    else
        diag_finding_advice(f, "Release the GPU: end the idle process or notebook kernel, or free its tensors (del, "
                               "then torch.cuda.empty_cache())");
    diag_finding_advice(f, "Reschedule: let the scheduler reclaim GPUs idle this long (an idle timeout for notebooks "
                           "and interactive jobs)");
    diag_chart_series(f, &v->g->s[DS_UTIL], v->gpu, "utilization.gpu", "%", run->from_us, run->to_us, 1);
}

/* Idle stretches while held: readings under noise_util in a row (a gap in the readings longer than
 * two steps ends one), idle (< idle_util) for at least MIN_IDLE_SHARE of them. The longest is kept
 * in *best; returns the idle time of all stretches of at least min_s. */
static double idle_runs(const diag_gpu_view *v, const diag_config *cfg, dstat_run *best)
{
    double total = 0;
    dstat_run cur = {0, 0, 0};
    int idle = 0;
    memset(best, 0, sizeof *best);
    for (int i = 0; i <= v->n; i++) {
        int quiet = i < v->n && v->held[i] == 1 && v->u[i] < cfg->idle_holding.noise_util;
        int joined = quiet && cur.n > 0 && v->t[i] - cur.to_us <= 2 * v->step_us;
        if (joined) {
            cur.to_us = v->t[i];
            cur.n++;
            idle += v->u[i] < cfg->idle_holding.idle_util;
            continue;
        }
        double d = (double)(cur.to_us - cur.from_us) / 1e6;
        if (cur.n > 0 && d >= cfg->idle_holding.min_idle_s && idle >= MIN_IDLE_SHARE * cur.n) {
            total += d;
            if (d > (double)(best->to_us - best->from_us) / 1e6)
                *best = cur;
        }
        cur = (dstat_run){0, 0, 0};
        idle = 0;
        if (quiet) {
            cur = (dstat_run){v->t[i], v->t[i], 1};
            idle = v->u[i] < cfg->idle_holding.idle_util;
        }
    }
    return total;
}

void det_idle_holding(diag_ctx *c)
{
    for (int i = 0; i < c->n_views; i++) {
        const diag_gpu_view *v = &c->views[i];
        if (!v->procs_known || v->n < 2 || (v->flags & VIEW_HANG))
            continue; /* the idle rank of a hung job is collective_hang's odd one out */
        dstat_run best;
        double total = idle_runs(v, c->cfg, &best);
        if (best.n > 0)
            report(c, v, &best, total);
    }
}
