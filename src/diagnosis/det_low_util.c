/* det_low_util.c - low_util: a process holds the GPU but keeps it steadily under-used: p95
 * utilization below 70 % (SageMaker Debugger's LowGPUUtilization), busy most of the time (a
 * bursty or idle GPU is something else) and no periodic swing down to idle (that is input_stall; a
 * swing that never reaches idle, such as a fast loop read through NVML's averaging, is not). The likely
 * cause is named from what the window shows: a saturated CPU core, peers on other GPUs, a small
 * memory footprint. */
#include "diag_internal.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int n;
    double held_s, idle_s;
    uint64_t from, to;
} held_stats;

static void collect(const diag_gpu_view *v, double idle_util, float *vals, held_stats *h)
{
    memset(h, 0, sizeof *h);
    for (int i = 0; i < v->n; i++) {
        if (v->held[i] != 1)
            continue;
        double dt = diag_view_dt(v, i);
        if (h->n == 0)
            h->from = v->t[i];
        h->to = v->t[i];
        vals[h->n++] = v->u[i];
        h->held_s += dt;
        if (v->u[i] < idle_util)
            h->idle_s += dt;
    }
}

/* GPUs (other than gpu) running processes of the same job as p; returns how many, listed in out. */
static int peers(const diag_ctx *c, const diag_proc *p, char *out, size_t n)
{
    char key[512], other[512];
    diag_job_key(p, key, sizeof key);
    int count = 0;
    size_t len = 0;
    out[0] = 0;
    for (int g = 0; g < c->n_views; g++) {
        if (g == p->gpu)
            continue;
        for (int i = 0; i < c->w->n_procs; i++) {
            const diag_proc *q = &c->w->procs[i];
            if (q->gpu != g)
                continue;
            diag_job_key(q, other, sizeof other);
            if (strcmp(key, other) != 0)
                continue;
            if (len < n)
                len += (size_t)snprintf(out + len, n - len, "%s%d", count ? "," : "", g);
            count++;
            break;
        }
    }
    return count;
}

static void causes(diag_ctx *c, diag_finding *f, const diag_gpu_view *v, const diag_proc *p)
{
    int named = 0;
    if (p && p->cpu.n >= 5) {
        float *cpu = malloc((size_t)p->cpu.n * sizeof *cpu);
        if (cpu) {
            memcpy(cpu, p->cpu.v, (size_t)p->cpu.n * sizeof *cpu);
            double med = dstat_percentile(cpu, p->cpu.n, 50);
            free(cpu);
            diag_finding_num(f, "process_cpu", med, "%");
            if (med >= 90) {
                diag_finding_str(f, "likely_cause", "CPU-bound");
                diag_finding_advice(f,
                                    "CPU-bound: pid %u keeps a CPU core busy (%.0f %%): move preprocessing to "
                                    "DataLoader workers or the GPU, and avoid Python work per step",
                                    p->pid, med);
                named = 1;
            }
        }
    }
    char list[128];
    if (p && peers(c, p, list, sizeof list) > 0) {
        diag_finding_str(f, "peer_gpus", "%s", list);
        if (!named)
            diag_finding_str(f, "likely_cause", "waiting on peers");
        diag_finding_advice(f,
                            "Waiting on peers: the same job runs on GPU(s) %s; check communication (NCCL "
                            "all-reduce over PCIe instead of NVLink, gradient bucket sizes) and the slowest rank",
                            list);
        named = 1;
    }
    double used = v->g->s[DS_MEM_USED].n ? v->g->s[DS_MEM_USED].v[v->g->s[DS_MEM_USED].n - 1] : NAN;
    if (!isnan(used) && !isnan(v->g->mem_total_mib) && v->g->mem_total_mib > 0) {
        double share = used / v->g->mem_total_mib;
        diag_finding_num(f, "memory_used_share", share, "");
        if (share < 0.5) {
            if (!named)
                diag_finding_str(f, "likely_cause", "small batch");
            diag_finding_advice(f,
                                "Small batch: only %.0f %% of the GPU's memory is in use; a larger batch (or "
                                "several models/streams per GPU) gives each kernel more work",
                                share * 100);
            named = 1;
        }
    }
    if (!named)
        diag_finding_str(f, "likely_cause", "not visible in these metrics");
    if (!named)
        diag_finding_advice(f, "Profile one step (torch.profiler or Nsight Systems) to see whether the GPU waits on "
                               "the CPU, on data or on other GPUs");
    diag_finding_advice(f, "If the job needs no more than this, a smaller GPU, a MIG slice or sharing the GPU frees "
                           "capacity for others");
}

static void report(diag_ctx *c, const diag_gpu_view *v, const held_stats *h, double p95, double p50)
{
    const diag_config *cfg = c->cfg;
    diag_severity sev = diag_level(c, "low_util", v->gpu, p95 - cfg->low_util.warning_p95,
                                   cfg->low_util.severity_margin, DIAG_WARNING, DIAG_INFO);
    diag_finding *f = diag_emit(c, "low_util", sev, v->gpu, h->from, h->to);
    if (!f)
        return;
    f->score = 1 - p95 / 100;
    diag_finding_num(f, "p95_util", p95, "%");
    diag_finding_num(f, "median_util", p50, "%");
    diag_finding_num(f, "idle_share", h->idle_s / h->held_s, "");
    diag_finding_num(f, "held_s", h->held_s, "s");
    const diag_proc *p[1];
    int have = diag_procs_in(c, v->gpu, h->from, h->to, p, 1) == 1;
    char label[160] = "a process";
    if (have)
        diag_proc_label(p[0], label, sizeof label);
    diag_finding_summary(f, "GPU %d is under-used by %s: utilization %.0f %% typical, %.0f %% at p95, for %.0f min",
                         v->gpu, label, p50, p95, h->held_s / 60);
    causes(c, f, v, have ? p[0] : NULL);
    diag_chart_series(f, &v->g->s[DS_UTIL], v->gpu, "utilization.gpu", "%", h->from, h->to, 1);
}

void det_low_util(diag_ctx *c)
{
    const diag_config *cfg = c->cfg;
    for (int i = 0; i < c->n_views; i++) {
        diag_gpu_view *v = &c->views[i];
        if (!v->procs_known || v->n == 0 ||
            (v->flags & (VIEW_STALL | VIEW_IMBALANCED | VIEW_LAUNCH | VIEW_PCIE | VIEW_HANG)))
            continue;
        const diag_cycles *cy = diag_view_cycles(c, v);
        if (cy->periodic && diag_cycles_reach_idle(cy, cfg))
            continue; /* a periodic swing down to idle is input_stall's, found or not */
        float *vals = malloc((size_t)v->n * sizeof *vals);
        if (!vals)
            continue;
        held_stats h;
        collect(v, cfg->low_util.idle_util, vals, &h);
        if (h.n >= 2 && h.held_s >= cfg->low_util.min_duration_s &&
            h.idle_s <= cfg->low_util.max_idle_share * h.held_s) {
            static const double ps[2] = {50, 95};
            double q[2];
            dstat_percentiles(vals, h.n, ps, q, 2);
            if (q[1] < cfg->low_util.p95_util)
                report(c, v, &h, q[1], q[0]);
        }
        free(vals);
    }
}
