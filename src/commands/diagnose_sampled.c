/* diagnose_sampled.c - the window of `gpuwatch diagnose --live` and `--replay`: every GPU and its
 * processes read through the sampler (the real NVML path), now or over a gpusim scenario's time. */
#include "diagnose_sources.h"
#include "session.h"
#include "ticker.h"
#include "util.h"
#include <stdio.h>
#include <math.h>
#include <stdlib.h>

#define MAX_PROCS 512

/* One round over every GPU, stamped t_us. */
static void read_round(sampler *s, diag_window *w, uint64_t t_us, gpu_sample *smp, gpu_proc *procs)
{
    for (int g = 0; g < s->count; g++) {
        sampler_read(s, g, NULL, smp);
        smp->t_us = t_us;
        diag_window_add_sample(w, g, s->gpus[g].have_info ? &s->gpus[g].info : NULL, smp);
        int n = sampler_read_processes(s, g, procs, MAX_PROCS);
        if (n >= 0)
            diag_window_add_processes(w, g, t_us, procs, n);
    }
}

int diagnose_from_sampler(diag_window *w, double duration_s, double interval_s, int replay)
{
    sampler s;
    int rc = session_open(&s, "diagnose", 1);
    if (rc != 0)
        return rc;
    if (replay && sampler_set_time(&s, 0) != 0) {
        fprintf(stderr, "gpuwatch diagnose: --replay steps a simulation's clock: run it on gpusim "
                        "(gpuwatch --sim SCENARIO diagnose --replay 30m)\n");
        sampler_close(&s);
        return GW_EXIT_USAGE;
    }
    gpu_sample *smp = malloc(sizeof *smp);
    gpu_proc *procs = malloc(MAX_PROCS * sizeof *procs);
    if (!smp || !procs) {
        fprintf(stderr, "gpuwatch diagnose: out of memory\n");
        rc = 1;
        goto out;
    }
    long steps = (long)(duration_s / interval_s + 1e-9);
    if (replay) {
        /* Scenario time 0 is duration_s before now, so the findings read as a recent window. */
        uint64_t t0 = gw_now_us() - (uint64_t)(duration_s * 1e6);
        for (long k = 0; k <= steps; k++) {
            double t = (double)k * interval_s;
            if (sampler_set_time(&s, t) != 0) {
                fprintf(stderr, "gpuwatch diagnose: the simulation refused time %.3f s\n", t);
                rc = 1;
                goto out;
            }
            read_round(&s, w, t0 + (uint64_t)llround(t * 1e6), smp, procs);
        }
        goto out;
    }
    ticker_install_signals();
    fprintf(stderr, "gpuwatch diagnose: sampling %d GPU%s every %g s for %g s (Ctrl-C diagnoses what is read so far)\n",
            s.count, s.count == 1 ? "" : "s", interval_s, duration_s);
    ticker tk;
    ticker_start(&tk, interval_s);
    read_round(&s, w, gw_now_us(), smp, procs);
    for (long k = 1; k <= steps && ticker_wait(&tk) == 0; k++)
        read_round(&s, w, gw_now_us(), smp, procs);
out:
    free(smp);
    free(procs);
    sampler_close(&s);
    return rc;
}
