/* bench_alerts_eval.c - CPU the alert evaluator costs the agent at 1 Hz: a ring of 8 GPUs filled with
 * 15 minutes of samples read from gpusim (through the NVML backend, as the agent reads them), the
 * default rules, then SECONDS more seconds: each pushes one sample per GPU and calls the engine as
 * the agent's evaluator thread does after every sampling round (it evaluates the groups that are due).
 * Only the engine's calls are timed (thread CPU). Run by scripts/bench_agent.sh; prints
 * "us_per_second evaluations kept_bytes" (the engine's decoded recent values, engine_window.c).
 * Under callgrind, --toggle-collect=alert_engine_eval counts instructions. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "alerts.h"
#include "engine.h"
#include "nvml_backend.h"
#include "ring.h"
#include "sampler.h"
#include "util.h"

#define RING_SECONDS 900         /* the agent's default ring_duration at 1 s */
#define T0_US 1764673200000000ll /* 2025-12-02T11:00:00Z */
#define MAX_GPUS 64
#define MAX_PROCS 64

typedef struct bench_src {
    ring *r;
    sampler *s;
    gpu_proc procs[MAX_GPUS][MAX_PROCS];
    int nprocs[MAX_GPUS];
} bench_src;

static int b_count(void *ctx)
{
    return ring_gpus(((bench_src *)ctx)->r);
}

static int b_info(void *ctx, int gpu, gpu_info *out)
{
    bench_src *b = ctx;
    if (!b->s->gpus[gpu].have_info)
        return 0;
    *out = b->s->gpus[gpu].info;
    return 1;
}

static void b_each(void *ctx, int gpu, uint64_t since_us, void (*fn)(const gpu_sample *, void *), void *arg)
{
    ring_each(((bench_src *)ctx)->r, gpu, since_us, fn, arg);
}

static int b_latest(void *ctx, int gpu, int64_t now_us, gpu_sample *out)
{
    (void)now_us;
    return ring_latest(((bench_src *)ctx)->r, gpu, out);
}

static int b_procs(void *ctx, int gpu, int64_t now_us, gpu_proc *out, int max)
{
    bench_src *b = ctx;
    (void)now_us;
    int n = b->nprocs[gpu] < max ? b->nprocs[gpu] : max;
    for (int i = 0; i < n; i++)
        out[i] = b->procs[gpu][i];
    return n;
}

static uint64_t cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* One sampling round at scenario second `second`: every GPU read and pushed with an exact 1 Hz time. */
static void round_at(bench_src *b, int second, gpu_sample *smp)
{
    for (int g = 0; g < b->s->count; g++) {
        sampler_read(b->s, g, NULL, smp);
        smp->t_us = (uint64_t)(T0_US + (int64_t)second * 1000000);
        ring_push(b->r, g, smp);
    }
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: bench_alerts_eval SCENARIO RULES [SECONDS] (GPUSIM_LIB: gpusim's libnvidia-ml.so.1)\n");
        return 2;
    }
    const char *lib = getenv("GPUSIM_LIB");
    if (!lib) {
        fprintf(stderr, "bench_alerts_eval: set GPUSIM_LIB\n");
        return 2;
    }
    int seconds = argc > 3 ? atoi(argv[3]) : 300;
    setenv("GPUWATCH_NVML_LIB", lib, 1);
    setenv("GPUSIM_SCENARIO", argv[1], 1);
    setenv("GPUSIM_SPEED", "1000", 1); /* about a scenario second per sampling round: values move */
    gw_log_set_level(GW_LOG_ERROR);
    static bench_src b;
    static sampler s;
    char err[256];
    backend_register(&nvml_backend_ops); /* as the program's assembly does (src/main.c) */
    if (sampler_open(&s, err, sizeof err) != BK_OK || s.count < 1 || s.count > MAX_GPUS) {
        fprintf(stderr, "bench_alerts_eval: %s\n", err);
        return 1;
    }
    b.s = &s;
    b.r = ring_new(s.count, RING_SECONDS);
    for (int g = 0; g < s.count; g++) {
        b.nprocs[g] = sampler_read_processes(&s, g, b.procs[g], MAX_PROCS);
        if (b.nprocs[g] < 0)
            b.nprocs[g] = 0;
    }
    gpu_sample *smp = malloc(sizeof *smp);
    alert_engine *e = alert_engine_new();
    if (!b.r || !smp || !e || alert_engine_load(e, argv[2], stderr) != 0) {
        fprintf(stderr, "bench_alerts_eval: cannot load %s\n", argv[2]);
        return 1;
    }
    alert_engine_set_external_label(e, "Hostname", "bench");
    sample_source src = {&b, b_count, b_info, b_each, b_latest, b_procs, NULL};
    alert_engine_set_source_capacity(e, RING_SECONDS);
    int second = 0;
    for (; second < RING_SECONDS; second++)
        round_at(&b, second, smp);
    alert_engine_eval(e, &src, T0_US + (int64_t)(second - 1) * 1000000, 0); /* every group once: states settle */
    uint64_t spent = 0;
    int evals = 0;
    for (int i = 0; i < seconds; i++, second++) {
        round_at(&b, second, smp);
        uint64_t c0 = cpu_ns();
        evals += alert_engine_eval(e, &src, T0_US + (int64_t)second * 1000000, 0);
        spent += cpu_ns() - c0;
    }
    printf("%.1f %d %zu\n", (double)spent / 1000.0 / seconds, evals, window_bytes(&e->win));
    alert_engine_free(e);
    ring_free(b.r);
    free(smp);
    sampler_close(&s);
    return 0;
}
