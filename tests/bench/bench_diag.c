/* bench_diag.c - the diagnosis benchmarks' programs (scripts/bench_diagnosis.sh):
 *   bench_diag history SCENARIO SECONDS FILE   samples a gpusim scenario over SECONDS of scenario
 *       time at 1 Hz through the real NVML path and records it with its process lists into a new
 *       history FILE, ending now; prints "FROM TO" (Unix seconds) for gpuwatch diagnose --db.
 *   bench_diag agent SCENARIO [MINUTES]   the agent's extra CPU for the diagnosis: fills a 30-minute
 *       window from the scenario, then does per simulated minute what the plugin does (60 s of
 *       samples and process lists into the window, trim, diag_run, the JSON) and prints the CPU time
 *       of that work per minute and as a share of one core.
 * GPUSIM_LIB names gpusim's libnvidia-ml.so.1. Timings are CPU time of this process. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "diag.h"
#include "history.h"
#include "nvml_backend.h"
#include "sampler.h"
#include "util.h"

#define MAX_PROCS 64
#define WINDOW_S 1800

static double cpu_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* One second of every GPU: its sample and process list. */
typedef struct second {
    gpu_sample *s;
    gpu_proc *p;
    int *np;
} second;

static int open_sim(sampler *s, const char *scenario)
{
    const char *lib = getenv("GPUSIM_LIB");
    if (!lib) {
        fprintf(stderr, "bench_diag: set GPUSIM_LIB to gpusim's libnvidia-ml.so.1\n");
        return -1;
    }
    backend_register(&nvml_backend_ops);
    setenv("GPUWATCH_NVML_LIB", lib, 1);
    setenv("GPUSIM_SCENARIO", scenario, 1);
    char err[256] = "";
    if (sampler_open(s, err, sizeof err) != BK_OK || sampler_set_time(s, 0) != 0) {
        fprintf(stderr, "bench_diag: %s: %s\n", scenario, err[0] ? err : "not a gpusim backend");
        return -1;
    }
    return 0;
}

/* Reads scenario second t of every GPU, stamped t_us. */
static int read_second(sampler *s, double t, uint64_t t_us, second *out)
{
    if (sampler_set_time(s, t) != 0)
        return -1;
    for (int g = 0; g < s->count; g++) {
        sampler_read(s, g, NULL, &out->s[g]);
        out->s[g].t_us = t_us;
        out->np[g] = sampler_read_processes(s, g, out->p + (size_t)g * MAX_PROCS, MAX_PROCS);
    }
    return 0;
}

static int second_alloc(second *x, int n)
{
    x->s = calloc((size_t)n, sizeof *x->s);
    x->p = calloc((size_t)n * MAX_PROCS, sizeof *x->p);
    x->np = calloc((size_t)n, sizeof *x->np);
    return x->s && x->p && x->np ? 0 : -1;
}

static void second_free(second *x)
{
    free(x->s);
    free(x->p);
    free(x->np);
}

/* An event of a GPU's samples into the history, as the agent's pipeline records it. */
static void record_event(const gw_event *ev, void *h)
{
    history_record_event(h, ev);
}

static int bench_history(const char *scenario, int seconds, const char *path)
{
    sampler s;
    if (open_sim(&s, scenario) != 0)
        return 1;
    history_config cfg;
    history_config_defaults(&cfg);
    cfg.path = path;
    cfg.no_thread = 1;
    char err[256];
    history *h = history_open(&cfg, err, sizeof err);
    second x;
    int rc = 1;
    if (!h || second_alloc(&x, s.count) != 0) {
        fprintf(stderr, "bench_diag: %s\n", h ? "out of memory" : err);
        goto out;
    }
    uint64_t t0 = gw_now_us() / 1000000 * 1000000 - (uint64_t)seconds * 1000000;
    event_deriver events[64] = {0};
    for (int k = 0; k <= seconds; k++) {
        uint64_t t_us = t0 + (uint64_t)k * 1000000;
        if (read_second(&s, k, t_us, &x) != 0) {
            fprintf(stderr, "bench_diag: the simulation refused time %d s\n", k);
            goto out;
        }
        for (int g = 0; g < s.count; g++) {
            history_record_sample(h, g, s.gpus[g].have_info ? &s.gpus[g].info : NULL, &x.s[g]);
            if (g < 64)
                event_derive(&events[g], g, &x.s[g], record_event, h);
            if (x.np[g] >= 0)
                history_record_processes(h, g, t_us, x.p + (size_t)g * MAX_PROCS, x.np[g]);
        }
        history_round_end(h);
        if (k % 10 == 9)
            history_flush(h);
    }
    printf("%.0f %.0f\n", (double)t0 / 1e6, (double)t0 / 1e6 + seconds);
    rc = 0;
out:
    if (h)
        history_close(h);
    second_free(&x);
    sampler_close(&s);
    return rc;
}

/* Adds one second to the window, as the plugin's on_sample and on_processes do. */
static void add_second(diag_window *w, const sampler *s, const second *x)
{
    for (int g = 0; g < s->count; g++) {
        diag_window_add_sample(w, g, s->gpus[g].have_info ? &s->gpus[g].info : NULL, &x->s[g]);
        if (x->np[g] >= 0)
            diag_window_add_processes(w, g, x->s[g].t_us, x->p + (size_t)g * MAX_PROCS, x->np[g]);
    }
}

static int bench_agent(const char *scenario, int minutes)
{
    sampler s;
    if (open_sim(&s, scenario) != 0)
        return 1;
    diag_window *w = diag_window_new();
    second *buf = calloc(60, sizeof *buf);
    int rc = 1, ok = w && buf;
    for (int i = 0; ok && i < 60; i++)
        ok = second_alloc(&buf[i], s.count) == 0;
    if (!ok) {
        fprintf(stderr, "bench_diag: out of memory\n");
        goto out;
    }
    diag_config cfg;
    diag_config_defaults(&cfg);
    uint64_t t0 = 1700000000ull * 1000000;
    for (int k = 0; k < WINDOW_S; k++) { /* the window the agent holds after its first 30 minutes */
        if (read_second(&s, k, t0 + (uint64_t)k * 1000000, &buf[0]) != 0)
            goto out;
        add_second(w, &s, &buf[0]);
    }
    double add_ms = 0, run_ms = 0, worst = 0;
    int findings = 0;
    diag_report prev, r;
    diag_report_init(&prev);
    diag_report_init(&r);
    for (int m = 0; m < minutes; m++) {
        for (int k = 0; k < 60; k++) { /* the minute's readings, read as the sampler would */
            int sec = WINDOW_S + m * 60 + k;
            if (read_second(&s, sec, t0 + (uint64_t)sec * 1000000, &buf[k]) != 0)
                goto out;
        }
        double a = cpu_ms();
        for (int k = 0; k < 60; k++)
            add_second(w, &s, &buf[k]);
        double b = cpu_ms();
        uint64_t now = t0 + (uint64_t)(WINDOW_S + m * 60 + 59) * 1000000;
        diag_window_trim(w, now - (uint64_t)WINDOW_S * 1000000);
        findings = diag_run_from(w, &cfg, &prev, &r);
        free(diag_report_json(&r, 0));
        diag_report tmp = prev; /* the plugin keeps the latest report for the next run */
        prev = r;
        r = tmp;
        double c = cpu_ms();
        add_ms += b - a;
        run_ms += c - b;
        worst = c - b > worst ? c - b : worst;
    }
    double per_min = (add_ms + run_ms) / minutes;
    printf("agent: %d GPUs, %d-minute window, a run each minute, %d minutes: %d finding(s)\n", s.count, WINDOW_S / 60,
           minutes, findings);
    printf("  adding 60 s of samples and process lists   %8.3f ms CPU per minute\n", add_ms / minutes);
    printf("  trim + diag_run_from + JSON                   %8.3f ms CPU per run (worst %.3f ms)\n", run_ms / minutes,
           worst);
    printf("  extra CPU of the agent                     %8.4f %% of one core\n", per_min / 60000.0 * 100);
    printf("  the window held (diag_window_bytes)        %8.0f kB\n", (double)diag_window_bytes(w) / 1024.0);
    rc = 0;
    diag_report_free(&prev);
    diag_report_free(&r);
out:
    for (int i = 0; buf && i < 60; i++)
        second_free(&buf[i]);
    free(buf);
    diag_window_free(w);
    sampler_close(&s);
    return rc;
}

int main(int argc, char **argv)
{
    gw_log_set_level(GW_LOG_ERROR);
    if (argc == 5 && strcmp(argv[1], "history") == 0)
        return bench_history(argv[2], atoi(argv[3]) > 0 ? atoi(argv[3]) : 3600, argv[4]);
    if ((argc == 3 || argc == 4) && strcmp(argv[1], "agent") == 0)
        return bench_agent(argv[2], argc == 4 && atoi(argv[3]) > 0 ? atoi(argv[3]) : 10);
    fprintf(stderr, "usage: bench_diag history SCENARIO SECONDS FILE | bench_diag agent SCENARIO [MINUTES]\n");
    return 2;
}
