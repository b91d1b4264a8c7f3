/* det_app_fault.c - app_fault: XIDs that NVIDIA's XID catalog puts on the application (13 graphics
 * engine exception, 31 GPU memory page fault, 43, 45, 68, 69, 137), in bursts, with the processes
 * that were on the GPU: restart or fix the application; the GPU needs no service. Those inside a
 * hardware burst are the hardware's doing (hw_health lists them), an XID 45 (the teardown of a job)
 * near another XID on any GPU that XID's. When the same GPU faults under
 * different jobs, the catalog's XID 13/31 workflows suspect the GPU: run its diagnostics. */
#include "diag_internal.h"
#include "diag_xid.h"
#include <stdio.h>
#include <string.h>

#define MAX_JOBS 8

typedef struct {
    diag_bursts app;
    const diag_proc *procs[DIAG_MAX_PIDS]; /* the processes on the GPU when the XIDs came */
    int n_procs;
    char jobs[MAX_JOBS][256];
    int n_jobs;
    int ignore_only; /* every XID is one the catalog says needs no action alone (43, 45, 137) */
} faults;

static void add_proc(faults *fa, const diag_proc *p)
{
    for (int i = 0; i < fa->n_procs; i++)
        if (fa->procs[i] == p)
            return;
    if (fa->n_procs < DIAG_MAX_PIDS)
        fa->procs[fa->n_procs++] = p;
    char key[256];
    diag_job_key(p, key, sizeof key);
    for (int i = 0; i < fa->n_jobs; i++)
        if (strcmp(fa->jobs[i], key) == 0)
            return;
    if (fa->n_jobs < MAX_JOBS)
        snprintf(fa->jobs[fa->n_jobs++], sizeof fa->jobs[0], "%s", key);
}

/* The application XIDs not explained by a hardware burst, and who was running then. */
static int gather(diag_ctx *c, int gpu, faults *fa)
{
    uint64_t gap = (uint64_t)(c->cfg->hw_health.burst_gap_s * 1e6);
    diag_bursts hw;
    memset(fa, 0, sizeof *fa);
    diag_xid_bursts(c, gpu, 1u << XID_HARDWARE | 1u << XID_UNKNOWN, gap, NULL, &hw);
    if (diag_xid_bursts(c, gpu, 1u << XID_APP | DIAG_XID_SOLO_45, gap, &hw, &fa->app) == 0)
        return 0;
    fa->ignore_only = 1;
    for (int i = 0; i < fa->app.all.n; i++)
        fa->ignore_only &= diag_xid_lookup(fa->app.all.code[i])->action == XA_IGNORE;
    /* an XID is read up to a reading after the fault: the process may be gone by then */
    uint64_t step = c->views[gpu].step_us ? c->views[gpu].step_us : 1000000;
    for (int i = 0; i < fa->app.n; i++) {
        const diag_burst *b = &fa->app.b[i];
        const diag_proc *p[DIAG_MAX_PIDS];
        int k = diag_procs_in(c, gpu, b->from > 3 * step ? b->from - 3 * step : 0, b->to, p, DIAG_MAX_PIDS);
        for (int j = 0; j < k; j++)
            if (p[j]->compute)
                add_proc(fa, p[j]);
    }
    return fa->app.all.total;
}

static void report(diag_ctx *c, int gpu, faults *fa)
{
    diag_severity sev = c->cfg->app_fault.warning >= 0.5 && !fa->ignore_only ? DIAG_WARNING : DIAG_INFO;
    diag_finding *f = diag_emit(c, "app_fault", sev, gpu, fa->app.from, fa->app.to);
    if (!f)
        return;
    if (fa->n_procs) {
        /* the processes that faulted, not every one seen since the first fault */
        f->n_pids = 0;
        for (int i = 0; i < fa->n_procs; i++)
            diag_finding_pid(f, fa->procs[i]->pid);
    }
    f->score = fa->app.all.total;
    char list[sizeof(((diag_evidence *)0)->str)], xids[sizeof f->summary];
    diag_xid_codes(&fa->app.all, list, sizeof list);
    diag_xid_meanings(&fa->app.all, xids, sizeof xids);
    diag_finding_str(f, "xids", "%s", list);
    diag_finding_num(f, "xid", fa->app.all.code[0], "");
    diag_finding_num(f, "bursts", fa->app.n, "");
    diag_finding_num(f, "processes", fa->n_procs, "");
    diag_finding_num(f, "jobs", fa->n_jobs, "");
    diag_finding_str(f, "fault", "application");
    char who[160] = "";
    if (fa->n_procs) {
        char label[140];
        diag_proc_label(fa->procs[0], label, sizeof label);
        snprintf(who, sizeof who, " in %s%s", label, fa->n_procs > 1 ? " and others" : "");
    }
    diag_finding_summary(f, "GPU %d application fault%s: %s, %d time(s) in %d burst(s): restart or fix the application",
                         gpu, who, xids, fa->app.all.total, fa->app.n);
    int kernel_fault = 0;
    for (int i = 0; i < fa->app.all.n; i++)
        kernel_fault |= fa->app.all.code[i] == 13 || fa->app.all.code[i] == 31;
    diag_finding_advice(f, "Restart or fix the application: run it under compute-sanitizer (memcheck) or with "
                           "CUDA_LAUNCH_BLOCKING=1 to find the kernel that faults");
    if (kernel_fault && fa->n_jobs >= 2)
        diag_finding_advice(f,
                            "The same GPU faulted under %d different jobs: NVIDIA's XID 13/31 workflows then suspect "
                            "the GPU: drain it and run `dcgmi diag -r 3` (field diagnostics if that passes)",
                            fa->n_jobs);
    else
        diag_finding_advice(f, "The GPU needs no service for these: act only if hardware XIDs follow or other jobs "
                               "fault on this GPU too");
}

void det_app_fault(diag_ctx *c)
{
    for (int g = 0; g < c->n_views; g++) {
        faults fa;
        if (c->views[g].g->known && gather(c, g, &fa) > 0)
            report(c, g, &fa);
    }
}
