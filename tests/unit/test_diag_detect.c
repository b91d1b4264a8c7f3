/* test_diag_detect.c - every detector on families of synthetic traces: random GPU models, GPU
 * counts, periods, duty cycles, levels, noise, reading intervals (0.5-2 s), NVML averaging
 * periods (1/6-1 s) and process churn. Each case must give the expected detector on the expected
 * GPUs and no other finding, with sensible evidence (e.g. the period within 15 %). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>
#include "test_diag_synth.h"

#define VARIANTS 10

typedef struct expect {
    const char *detector;
    int gpus[SYN_MAX_GPUS]; /* where it must fire */
    int n_gpus;
} expect;

static int failures;

/* The expected detector on each expected GPU and nothing else anywhere; a miss is printed and
 * counted (so a soak run shows every miss), and the test fails at its end. */
static int check(const char *family, int variant, const syn_spec *sp, const diag_report *r, const expect *e)
{
    int ok = 1;
    for (int k = 0; k < e->n_gpus; k++)
        ok &= syn_count(r, e->detector, e->gpus[k]) >= 1;
    for (int i = 0; i < r->n; i++)
        ok &= strcmp(r->f[i].detector, e->detector) == 0;
    if (!ok) {
        char what[96];
        snprintf(what, sizeof what, "%s #%d expects %s", family, variant, e->detector);
        syn_dump(what, sp, r);
        failures++;
    }
    return ok;
}

/* Takes a detector's findings out of the report (one that comes along with the expected one);
 * returns how many named the GPU (all GPUs: -1). */
static int take(diag_report *r, const char *detector, int gpu)
{
    int n = syn_count(r, detector, gpu);
    for (int i = r->n - 1; i >= 0; i--)
        if (strcmp(r->f[i].detector, detector) == 0)
            diag_report_remove(r, i);
    return n;
}

static void expect_all(expect *e, const char *det, int n)
{
    e->detector = det;
    e->n_gpus = n;
    for (int i = 0; i < n; i++)
        e->gpus[i] = i;
}

static double mem_of(const syn_spec *sp, int g, double share)
{
    return floor(SYN_MODELS[sp->gpu[g].model].mem_total * share);
}

/* ---- input_stall ---- */

/* Variant v % 3: 0 one process, 1 the job restarts mid-window (another pid, after a pause with
 * no process), 2 a source without process lists. */
static void stall_case(uint64_t *rng, syn_spec *sp, int gaps_route, int v, double *period)
{
    int n = syn_int(rng, 1, 4);
    syn_spec_init(sp, rng, n, syn_range(rng, 15, 30) * 60);
    double p = syn_range(rng, fmax(2.0, 3 * sp->dt_s), 60);
    double duty = syn_range(rng, 0.3, 0.75);
    double hi = gaps_route ? syn_range(rng, 35, 62) : syn_range(rng, 78, 100);
    double lo = syn_range(rng, 0, 4);
    if (gaps_route && (1 - duty) * p < 1)
        p = 1 / (1 - duty) + 1;
    if (gaps_route && duty * p < sp->avg_s)
        p = sp->avg_s / duty + 0.5; /* a busy phase NVML's averaging does not flatten below the level */
    *period = p;
    for (int i = 0; i < n; i++) {
        syn_gpu *g = &sp->gpu[i];
        g->noise = syn_range(rng, 0, 2.5);
        double restart = v % 3 == 1 ? sp->duration_s * syn_range(rng, 0.3, 0.7) : 1e9;
        double pause = syn_range(rng, 10, 60);
        syn_seg *s = syn_add_seg(g, 0, restart, PAT_SQUARE, hi, lo);
        s->period_s = p;
        s->duty = duty;
        s->jitter = syn_range(rng, 0, 0.05);
        double mem = mem_of(sp, i, syn_range(rng, 0.2, 0.7));
        syn_add_proc(g, 15100 + i, 0, restart, "carol", mem);
        if (restart < 1e9) {
            syn_seg *s2 = syn_add_seg(g, restart + pause, 1e9, PAT_SQUARE, hi, lo);
            *s2 = *s;
            s2->from_s = restart + pause;
            s2->to_s = 1e9;
            syn_add_proc(g, 15200 + i, restart + pause, 1e9, "carol", mem);
        }
    }
    sp->no_procs = v % 3 == 2;
}

static void test_input_stall(void **st)
{
    (void)st;
    failures = 0;
    uint64_t rng = 1;
    for (int route = 0; route < 2; route++)
        for (int v = 0; v < syn_variants(VARIANTS); v++) {
            syn_spec sp;
            double period;
            stall_case(&rng, &sp, route, v, &period);
            diag_report r;
            syn_diagnose(&sp, &r);
            expect e;
            expect_all(&e, "input_stall", sp.n_gpus);
            if (!check(route ? "input_stall gaps" : "input_stall fluctuation", v, &sp, &r, &e)) {
                diag_report_free(&r);
                continue;
            }
            for (int g = 0; g < sp.n_gpus; g++) {
                const diag_finding *f = syn_find(&r, "input_stall", g);
                double est = syn_ev(f, "period_s");
                if (fabs(est - period) > 0.15 * period) {
                    fprintf(stderr, "#%d: period %.2f s estimated %.2f s (dt %.2f)\n", v, period, est, sp.dt_s);
                    failures++;
                }
                assert_true(syn_ev(f, "duty_cycle") > 0.1 && syn_ev(f, "duty_cycle") < 0.95);
                if (v % 3 == 2)
                    assert_int_equal(f->n_pids, 0);
                else
                    assert_true(f->pids[0] == 15100u + g || f->pids[0] == 15200u + g);
            }
            diag_report_free(&r);
        }
    assert_int_equal(failures, 0);
}

/* A loader whose waits vary from step to step (a network file system's long tail): cycle lengths
 * vary by 12-25 %, which smears the autocorrelation; still a stall, and the period reported is the
 * mean cycle within 10 %. */
static void test_input_stall_irregular(void **st)
{
    (void)st;
    failures = 0;
    uint64_t rng = 12;
    for (int v = 0; v < syn_variants(VARIANTS); v++) {
        syn_spec sp;
        int n = syn_int(&rng, 1, 3);
        syn_spec_init(&sp, &rng, n, syn_range(&rng, 20, 40) * 60);
        double p = syn_range(&rng, fmax(4.0, 4 * sp.dt_s), 45), duty = syn_range(&rng, 0.35, 0.65);
        for (int i = 0; i < n; i++) {
            syn_gpu *g = &sp.gpu[i];
            g->noise = syn_range(&rng, 0, 2.5);
            syn_seg *s = syn_add_seg(g, 0, 1e9, PAT_SQUARE, syn_range(&rng, 80, 99), syn_range(&rng, 0, 3));
            s->period_s = p;
            s->duty = duty;
            s->jitter = syn_range(&rng, 0.12, 0.25);
            syn_add_proc(g, 15100 + (unsigned)i, 0, 1e9, "carol", mem_of(&sp, i, 0.4));
        }
        diag_report r;
        syn_diagnose(&sp, &r);
        expect e;
        expect_all(&e, "input_stall", n);
        if (check("input_stall irregular", v, &sp, &r, &e))
            for (int g = 0; g < n; g++) {
                double est = syn_ev(syn_find(&r, "input_stall", g), "period_s");
                if (fabs(est - p) > 0.1 * p) {
                    fprintf(stderr, "irregular #%d: period %.2f s estimated %.2f s (dt %.2f)\n", v, p, est, sp.dt_s);
                    failures++;
                }
            }
        diag_report_free(&r);
    }
    assert_int_equal(failures, 0);
}

/* ---- launch_bound ---- */

static void test_launch_bound(void **st)
{
    (void)st;
    failures = 0;
    uint64_t rng = 2;
    for (int gpm = 0; gpm < 2; gpm++)
        for (int v = 0; v < syn_variants(VARIANTS); v++) {
            syn_spec sp;
            int n = syn_int(&rng, 1, 3);
            syn_spec_init(&sp, &rng, n, syn_range(&rng, 10, 25) * 60);
            int model = gpm ? syn_int(&rng, 0, 1) : syn_int(&rng, 2, 4);
            double level = syn_range(&rng, 85, 99);
            for (int i = 0; i < n; i++) {
                syn_gpu *g = &sp.gpu[i];
                g->model = model;
                g->noise = syn_range(&rng, 0, 2);
                /* with GPM the test is sm_active < 50 %; the power proxy sees only the clearer cases */
                g->sm_ratio = gpm ? syn_range(&rng, 0.1, 0.45) : syn_range(&rng, 0.1, 0.22);
                g->mem_util_ratio = syn_range(&rng, 0.05, 0.45);
                syn_add_seg(g, 0, 1e9, PAT_STEADY, level, 0);
                syn_add_proc(g, 17700 + i, 0, 1e9, "dave", mem_of(&sp, i, 0.15));
            }
            diag_report r;
            syn_diagnose(&sp, &r);
            expect e;
            expect_all(&e, "launch_bound", n);
            if (!check(gpm ? "launch_bound gpm" : "launch_bound power", v, &sp, &r, &e)) {
                diag_report_free(&r);
                continue;
            }
            diag_report_free(&r);
        }
    assert_int_equal(failures, 0);
}

/* ---- low_util ---- */

static void test_low_util(void **st)
{
    (void)st;
    failures = 0;
    uint64_t rng = 3;
    for (int v = 0; v < 2 * syn_variants(VARIANTS); v++) {
        syn_spec sp;
        int n = syn_int(&rng, 1, 4);
        syn_spec_init(&sp, &rng, n, syn_range(&rng, 12, 30) * 60);
        double level = syn_range(&rng, 15, 60);
        for (int i = 0; i < n; i++) {
            syn_gpu *g = &sp.gpu[i];
            g->noise = syn_range(&rng, 1, 5);
            syn_add_seg(g, 0, 1e9, PAT_STEADY, level, 0);
            syn_proc *p = syn_add_proc(g, 30000 + i, 0, 1e9, "erin", mem_of(&sp, i, syn_range(&rng, 0.1, 0.8)));
            if (v % 3 == 0)
                p->cpu = 100; /* a saturated core: the likely cause */
        }
        diag_report r;
        syn_diagnose(&sp, &r);
        expect e;
        expect_all(&e, "low_util", n);
        if (!check("low_util", v, &sp, &r, &e)) {
            diag_report_free(&r);
            continue;
        }
        const diag_finding *f = syn_find(&r, "low_util", 0);
        assert_true(syn_ev(f, "p95_util") < 70);
        const diag_evidence *cause = diag_finding_get(f, "likely_cause");
        assert_non_null(cause);
        if (v % 3 == 0)
            assert_string_equal(cause->str, "CPU-bound");
        diag_report_free(&r);
    }
    assert_int_equal(failures, 0);
}

/* A CPU-bound loop: sub-second GPU bursts that NVML's averaging (0.6-1 s here, so that no reading
 * falls between two bursts) reads as a ripple well above idle, on whole-second readings a regular
 * pattern; under-used, not a stall. (With a shorter averaging some readings dip to idle: the loop
 * then reads as the stall it also is, the host preparing each batch.) */
static void test_low_util_ripple(void **st)
{
    (void)st;
    failures = 0;
    uint64_t rng = 13;
    for (int v = 0; v < syn_variants(VARIANTS); v++) {
        syn_spec sp;
        int n = syn_int(&rng, 1, 3);
        syn_spec_init(&sp, &rng, n, syn_range(&rng, 15, 30) * 60);
        sp.dt_s = 1;
        sp.dt_jitter = 0;
        sp.avg_s = syn_range(&rng, 0.6, 1); /* the averaging spans whole bursts: p95 stays under 70 % */
        double p = syn_range(&rng, 0.3, 0.8), duty = syn_range(&rng, 0.3, 0.45);
        for (int i = 0; i < n; i++) {
            syn_gpu *g = &sp.gpu[i];
            g->noise = syn_range(&rng, 0, 2);
            syn_seg *s = syn_add_seg(g, 0, 1e9, PAT_SQUARE, syn_range(&rng, 85, 99), 0);
            s->period_s = p;
            s->duty = duty;
            syn_add_proc(g, 31000 + (unsigned)i, 0, 1e9, "kim", mem_of(&sp, i, 0.3));
        }
        diag_report r;
        syn_diagnose(&sp, &r);
        expect e;
        expect_all(&e, "low_util", n);
        check("low_util ripple", v, &sp, &r, &e);
        diag_report_free(&r);
    }
    assert_int_equal(failures, 0);
}

/* ---- power_cap ---- */

static void test_power_cap(void **st)
{
    (void)st;
    failures = 0;
    uint64_t rng = 4;
    for (int lowered = 0; lowered < 2; lowered++)
        for (int v = 0; v < syn_variants(VARIANTS); v++) {
            syn_spec sp;
            int n = syn_int(&rng, 1, 4);
            syn_spec_init(&sp, &rng, n, syn_range(&rng, 8, 20) * 60);
            const syn_model *m = &SYN_MODELS[sp.gpu[0].model];
            double limit = lowered ? m->power_default * syn_range(&rng, 0.5, 0.8) : 0;
            for (int i = 0; i < n; i++) {
                syn_gpu *g = &sp.gpu[i];
                g->power_limit = limit;
                g->demand = lowered ? 1 : syn_range(&rng, 1.15, 1.35);
                g->mem_util_ratio = syn_range(&rng, 0.4, 0.6);
                g->noise = syn_range(&rng, 0, 1.5);
                syn_add_seg(g, 0, 1e9, PAT_STEADY, syn_range(&rng, 96, 100), 0);
                syn_add_proc(g, 19000 + i, 0, 1e9, "erin", mem_of(&sp, i, 0.8));
            }
            diag_report r;
            syn_diagnose(&sp, &r);
            expect e;
            expect_all(&e, "power_cap", n);
            if (!check(lowered ? "power_cap lowered" : "power_cap default", v, &sp, &r, &e)) {
                diag_report_free(&r);
                continue;
            }
            const diag_finding *f = syn_find(&r, "power_cap", 0);
            assert_true(syn_ev(f, "user_lowered") == lowered);
            assert_true(syn_ev(f, "clock_loss") > 0.02);
            diag_report_free(&r);
        }
    assert_int_equal(failures, 0);
}

/* ---- thermal ---- */

static void test_thermal(void **st)
{
    (void)st;
    failures = 0;
    uint64_t rng = 5;
    for (int kind = 0; kind < 3; kind++)
        for (int v = 0; v < syn_variants(VARIANTS); v++) {
            syn_spec sp;
            syn_spec_init(&sp, &rng, syn_int(&rng, 1, 3), syn_range(&rng, 10, 20) * 60);
            int hot = syn_int(&rng, 0, sp.n_gpus - 1);
            if (kind == 2)
                for (int i = 0; i < sp.n_gpus; i++)
                    sp.gpu[i].model = syn_int(&rng, 0, 2); /* HBM boards */
            for (int i = 0; i < sp.n_gpus; i++) {
                syn_gpu *g = &sp.gpu[i];
                const syn_model *m = &SYN_MODELS[g->model];
                syn_add_seg(g, 0, 1e9, PAT_STEADY, syn_range(&rng, 90, 99), 0);
                syn_add_proc(g, 18000 + i, 0, 1e9, "root", mem_of(&sp, i, 0.3));
                g->noise = 1;
                if (i != hot)
                    continue;
                if (kind == 0) { /* cooling failure: past the slowdown temperatures */
                    g->temp_from = 60;
                    g->temp_to = syn_range(&rng, m->t_gpu_max + 1, m->t_slowdown + 3);
                    g->temp_start_s = syn_range(&rng, 60, 240);
                    g->temp_ramp_s = syn_range(&rng, 60, 300);
                    g->no_temp = v % 4 == 3; /* only the reasons tell */
                } else if (kind == 1) {      /* hot but under the slowdown temperatures */
                    g->temp_from = g->temp_to = syn_range(&rng, 81.5, m->t_gpu_max - 0.5);
                } else { /* HBM only */
                    g->mem_temp = syn_range(&rng, 96, 104);
                }
            }
            diag_report r;
            syn_diagnose(&sp, &r);
            expect e = {.detector = "thermal", .gpus = {hot}, .n_gpus = 1};
            if (!check("thermal", kind * 100 + v, &sp, &r, &e)) {
                diag_report_free(&r);
                continue;
            }
            assert_int_equal(syn_count(&r, "thermal", -1), 1);
            diag_report_free(&r);
        }
    assert_int_equal(failures, 0);
}

/* ---- memory_leak ---- */

static void test_memory_leak(void **st)
{
    (void)st;
    failures = 0;
    uint64_t rng = 6;
    for (int kind = 0; kind < 3; kind++)
        for (int v = 0; v < syn_variants(VARIANTS); v++) {
            syn_spec sp;
            syn_spec_init(&sp, &rng, syn_int(&rng, 1, 3), syn_range(&rng, 12, 30) * 60);
            int leaky = syn_int(&rng, 0, sp.n_gpus - 1);
            for (int i = 0; i < sp.n_gpus; i++) {
                syn_gpu *g = &sp.gpu[i];
                double total = SYN_MODELS[g->model].mem_total;
                g->noise = 1.5;
                syn_add_seg(g, 0, 1e9, PAT_STEADY, syn_range(&rng, 88, 98), 0);
                syn_proc *p = syn_add_proc(g, 20000 + i, 0, 1e9, "frank", floor(total * 0.05));
                p->mem_noise = syn_range(&rng, 0, 20);
                if (i != leaky)
                    continue;
                if (kind == 0) { /* a steady ramp */
                    p->mem1 = total * syn_range(&rng, 0.5, 0.85);
                    p->ramp_s = sp.duration_s;
                } else if (kind == 1) { /* allocator steps that keep coming */
                    p->step_s = syn_range(&rng, 20, 90);
                    p->step_mib = floor(total * 0.7 / (sp.duration_s / p->step_s) * syn_range(&rng, 0.4, 1));
                } else { /* a process that starts later, beside a flat one */
                    p->mem0 = floor(total * 0.1);
                    syn_proc *q =
                        syn_add_proc(g, 20100 + i, syn_range(&rng, 60, 240), 1e9, "frank", floor(total * 0.02));
                    q->name = "leaky_server";
                    q->mem1 = total * syn_range(&rng, 0.4, 0.7);
                    q->ramp_start_s = q->from_s + 60;
                    q->ramp_s = sp.duration_s;
                }
            }
            sp.no_procs = kind < 2 && v % 4 == 3; /* judged on memory.used as a whole */
            diag_report r;
            syn_diagnose(&sp, &r);
            expect e = {.detector = "memory_leak", .gpus = {leaky}, .n_gpus = 1};
            if (!check("memory_leak", kind * 100 + v, &sp, &r, &e)) {
                diag_report_free(&r);
                continue;
            }
            const diag_finding *f = syn_find(&r, "memory_leak", leaky);
            if (sp.no_procs)
                assert_int_equal(f->n_pids, 0);
            else
                assert_int_equal(f->pids[0], kind == 2 ? 20100u + leaky : 20000u + leaky);
            assert_true(syn_ev(f, "slope_mib_per_min") > 0);
            assert_true(syn_ev(f, "time_to_full_s") > 0);
            diag_report_free(&r);
        }
    assert_int_equal(failures, 0);
}

/* ---- memory_full ---- */

static void test_memory_full(void **st)
{
    (void)st;
    failures = 0;
    uint64_t rng = 7;
    for (int v = 0; v < syn_variants(VARIANTS); v++) {
        syn_spec sp;
        syn_spec_init(&sp, &rng, syn_int(&rng, 1, 4), syn_range(&rng, 10, 25) * 60);
        int full = syn_int(&rng, 0, sp.n_gpus - 1);
        for (int i = 0; i < sp.n_gpus; i++) {
            syn_gpu *g = &sp.gpu[i];
            syn_add_seg(g, 0, 1e9, PAT_STEADY, syn_range(&rng, 90, 98), 0);
            g->noise = 1;
            double share = i == full ? syn_range(&rng, 0.96, 0.99) : syn_range(&rng, 0.3, 0.85);
            syn_proc *p = syn_add_proc(g, 21000 + i, 0, 1e9, "gina", mem_of(&sp, i, share));
            if (i == full && v % 2) { /* two processes fill it together */
                p->mem0 = mem_of(&sp, i, share - 0.3);
                syn_add_proc(g, 21100 + i, 0, 1e9, "gina", mem_of(&sp, i, 0.3));
            }
        }
        diag_report r;
        syn_diagnose(&sp, &r);
        expect e = {.detector = "memory_full", .gpus = {full}, .n_gpus = 1};
        if (!check("memory_full", v, &sp, &r, &e)) {
            diag_report_free(&r);
            continue;
        }
        diag_report_free(&r);
    }
    assert_int_equal(failures, 0);
}

/* ---- imbalance ---- */

static void test_imbalance(void **st)
{
    (void)st;
    failures = 0;
    uint64_t rng = 8;
    for (int v = 0; v < syn_variants(VARIANTS); v++) {
        syn_spec sp;
        int n = syn_int(&rng, 2, 8);
        syn_spec_init(&sp, &rng, n, syn_range(&rng, 10, 20) * 60);
        int slow[2] = {syn_int(&rng, 0, n - 1), -1};
        if (n >= 4 && v % 2)
            slow[1] = (slow[0] + 1 + syn_int(&rng, 0, n - 2)) % n;
        double base = syn_range(&rng, 92, 98);
        for (int i = 0; i < n; i++) {
            syn_gpu *g = &sp.gpu[i];
            int is_slow = i == slow[0] || i == slow[1];
            g->noise = is_slow ? syn_range(&rng, 2, 4) : syn_range(&rng, 0.5, 1.5);
            syn_add_seg(g, 0, 1e9, PAT_STEADY, is_slow ? base - syn_range(&rng, 25, 60) : base, 0);
            syn_proc *p = syn_add_proc(g, 22000 + i, 0, 1e9, "gina", mem_of(&sp, i, 0.6));
            p->cmd = i % 2 ? "python3 train.py --local_rank=1" : "python3 train.py --local_rank=0";
        }
        diag_report r;
        syn_diagnose(&sp, &r);
        assert_int_equal(r.n, 1);
        const diag_finding *f = syn_find(&r, "imbalance", -1);
        assert_non_null(f);
        /* with two GPUs both differ from their only peer */
        int want = n == 2 ? 2 : (slow[1] >= 0 ? 2 : 1);
        if (f->n_gpus != want)
            syn_dump("imbalance", &sp, &r);
        assert_int_equal(f->n_gpus, want);
        for (int k = 0; k < f->n_gpus && n > 2; k++)
            assert_true(f->gpus[k] == slow[0] || f->gpus[k] == slow[1]);
        diag_report_free(&r);
    }
    assert_int_equal(failures, 0);
}

/* ---- idle_holding ---- */

static void test_idle_holding(void **st)
{
    (void)st;
    failures = 0;
    uint64_t rng = 9;
    for (int v = 0; v < syn_variants(VARIANTS); v++) {
        syn_spec sp;
        syn_spec_init(&sp, &rng, syn_int(&rng, 1, 3), syn_range(&rng, 30, 50) * 60);
        sp.dt_s = syn_range(&rng, 1, 2);
        int idle = syn_int(&rng, 0, sp.n_gpus - 1);
        for (int i = 0; i < sp.n_gpus; i++) {
            syn_gpu *g = &sp.gpu[i];
            if (i == idle) {
                g->noise = syn_range(&rng, 0, 1.2);
                double mem = mem_of(&sp, i, syn_range(&rng, 0.02, 0.4));
                if (v % 2) { /* a workstation: the display server holds memory too, even more */
                    syn_proc *x = syn_add_proc(g, 1702, 0, 1e9, "root", mem + 100);
                    x->name = "Xorg";
                    x->type = PROC_GRAPHICS;
                }
                syn_proc *p = syn_add_proc(g, 23456, syn_range(&rng, 0, 120), 1e9, "henry", mem);
                p->name = "ipykernel_launcher";
                p->container = "jupyterhub-henry";
                continue;
            }
            g->noise = 1;
            syn_add_seg(g, 0, 1e9, PAT_STEADY, syn_range(&rng, 92, 98), 0);
            syn_add_proc(g, 24000 + i, 0, 1e9, "ivan", mem_of(&sp, i, 0.5));
        }
        diag_report r;
        syn_diagnose(&sp, &r);
        expect e = {.detector = "idle_holding", .gpus = {idle}, .n_gpus = 1};
        if (!check("idle_holding", v, &sp, &r, &e)) {
            diag_report_free(&r);
            continue;
        }
        const diag_finding *f = syn_find(&r, "idle_holding", idle);
        assert_int_equal(f->pids[0], 23456);
        assert_string_equal(diag_finding_get(f, "user")->str, "henry");
        assert_string_equal(diag_finding_get(f, "container")->str, "jupyterhub-henry");
        assert_true(syn_ev(f, "idle_s") >= 1200);
        diag_report_free(&r);
    }
    assert_int_equal(failures, 0);
}

/* ---- pcie_bound ---- */

static void test_pcie_bound(void **st)
{
    (void)st;
    failures = 0;
    uint64_t rng = 10;
    for (int v = 0; v < syn_variants(VARIANTS); v++) {
        syn_spec sp;
        syn_spec_init(&sp, &rng, syn_int(&rng, 1, 3), syn_range(&rng, 8, 20) * 60);
        int bound = syn_int(&rng, 0, sp.n_gpus - 1);
        for (int i = 0; i < sp.n_gpus; i++) {
            syn_gpu *g = &sp.gpu[i];
            const syn_model *m = &SYN_MODELS[g->model];
            g->noise = 2;
            syn_add_proc(g, 25000 + i, 0, 1e9, i == bound ? "judy" : "kate", mem_of(&sp, i, 0.4));
            if (i != bound) {
                syn_add_seg(g, 0, 1e9, PAT_STEADY, syn_range(&rng, 92, 98), 0);
                continue;
            }
            syn_add_seg(g, 0, 1e9, PAT_STEADY, syn_range(&rng, 20, 45), 0);
            double gen = v % 3 == 0 ? m->pcie_gen - 1 : m->pcie_gen; /* sometimes a degraded link */
            static const double lane_mbs[] = {0, 250, 500, 984.6, 1969.2, 3938.5};
            g->pcie_gen = gen;
            g->pcie_kbs = lane_mbs[(int)gen] * 1000 * m->pcie_width * syn_range(&rng, 0.45, 0.85);
        }
        diag_report r;
        syn_diagnose(&sp, &r);
        /* a degraded link under load is pcie_degraded's too */
        assert_int_equal(take(&r, "pcie_degraded", -1), v % 3 == 0);
        expect e = {.detector = "pcie_bound", .gpus = {bound}, .n_gpus = 1};
        if (!check("pcie_bound", v, &sp, &r, &e)) {
            diag_report_free(&r);
            continue;
        }
        const diag_finding *f = syn_find(&r, "pcie_bound", bound);
        assert_true(syn_ev(f, "link_share") >= 0.25);
        assert_int_equal(diag_finding_get(f, "link_degraded") != NULL, v % 3 == 0);
        diag_report_free(&r);
    }
    assert_int_equal(failures, 0);
}

/* ---- hw_health, app_fault, row_remap: what the GPU's events say ---- */

/* Kinds: 0 XID 48 with its ECC error, 1 XID 79 and the GPU lost, 2 a row remap pending after an
 * uncorrectable error (XID 63), 3 an application XID, 4 another hardware XID of the catalog. Each
 * goes to its own detector, with NVIDIA's immediate action for the hardware ones. */
static void test_hw_events(void **st)
{
    (void)st;
    failures = 0;
    uint64_t rng = 11;
    static const int app_xids[] = {13, 31, 43, 45, 68, 69};
    static const struct {
        int xid;
        const char *action;
        int critical;
    } hw_xids[] = {{46, "RESET_GPU", 1},   {62, "RESET_GPU", 1},         {74, "WORKFLOW_NVLINK_ERR", 1},
                   {95, "RESET_GPU", 1},   {109, "RESET_GPU", 1},        {119, "RESET_GPU", 1},
                   {140, "RESET_GPU", 1},  {154, "XID_154", 1},          {92, "IGNORE", 0},
                   {94, "RESTART_APP", 0}, {54, "CHECK_MECHANICALS", 0}, {32, "RESTART_APP", 0}};
    for (int kind = 0; kind < 5; kind++)
        for (int v = 0; v < syn_variants(VARIANTS) / 2; v++) {
            syn_spec sp;
            syn_spec_init(&sp, &rng, syn_int(&rng, 1, 4), syn_range(&rng, 5, 15) * 60);
            int bad = syn_int(&rng, 0, sp.n_gpus - 1);
            for (int i = 0; i < sp.n_gpus; i++) {
                syn_gpu *g = &sp.gpu[i];
                if (kind != 3)
                    g->model = syn_int(&rng, 0, 2); /* ECC and row remapping */
                g->noise = 1;
                syn_add_seg(g, 0, 1e9, PAT_STEADY, syn_range(&rng, 90, 98), 0);
                syn_add_proc(g, 26000 + i, 0, 1e9, "kim", mem_of(&sp, i, 0.5));
            }
            syn_gpu *g = &sp.gpu[bad];
            double at = syn_range(&rng, 30, sp.duration_s - 60);
            g->xid_at_s[0] = at;
            g->n_xid = 1;
            const char *det = "hw_health", *action = NULL;
            int hw = syn_int(&rng, 0, (int)(sizeof hw_xids / sizeof hw_xids[0]) - 1), critical = 1;
            if (kind == 0) {
                g->xid_code[0] = 48;
                g->dbe_at_s = at;
                action = "WORKFLOW_XID_48";
            } else if (kind == 1) {
                g->xid_code[0] = 79;
                g->lost_from_s = at;
                g->lost_to_s = at + syn_range(&rng, 10, 60);
                g->xid_at_s[0] = g->lost_to_s + 0.5; /* read when it answers again */
                action = "RESTART_BM";
            } else if (kind == 2) {
                g->xid_code[0] = 63;
                g->pending_at_s = at;
                det = "row_remap";
            } else if (kind == 3) {
                g->xid_code[0] = app_xids[syn_int(&rng, 0, 5)];
                det = "app_fault";
                critical = 0;
            } else {
                g->xid_code[0] = hw_xids[hw].xid;
                action = hw_xids[hw].action;
                critical = hw_xids[hw].critical;
            }
            diag_report r;
            syn_diagnose(&sp, &r);
            expect e = {.detector = det, .gpus = {bad}, .n_gpus = 1};
            if (!check(det, kind * 100 + v, &sp, &r, &e)) {
                diag_report_free(&r);
                continue;
            }
            const diag_finding *f = syn_find(&r, det, bad);
            assert_int_equal(r.n, 1);
            assert_int_equal(f->severity,
                             critical ? DIAG_CRITICAL
                                      : (g->xid_code[0] == 43 || g->xid_code[0] == 45 ? DIAG_INFO : DIAG_WARNING));
            if (kind != 2)
                assert_true(syn_ev(f, "xid") == g->xid_code[0]);
            if (action)
                assert_string_equal(diag_finding_get(f, "action")->str, action);
            if (action)
                assert_non_null(strstr(f->advice[0], action)); /* the action leads the advice */
            if (kind == 3)
                assert_string_equal(diag_finding_get(f, "fault")->str, "application");
            if (kind == 1)
                assert_true(syn_ev(f, "lost_s") >= 5);
            if (kind == 2)
                assert_true(syn_ev(f, "remap_pending") == 1);
            diag_report_free(&r);
        }
    assert_int_equal(failures, 0);
}

/* ---- the new hardware detectors ---- */

/* A job of n GPUs at steady training load, one process each (one container, ranks in the command). */
static void training_job(uint64_t *rng, syn_spec *sp, unsigned pid0, const char *user)
{
    for (int i = 0; i < sp->n_gpus; i++) {
        syn_gpu *g = &sp->gpu[i];
        g->noise = syn_range(rng, 0.5, 2);
        syn_add_seg(g, 0, 1e9, PAT_STEADY, syn_range(rng, 92, 98), 0);
        syn_proc *p = syn_add_proc(g, pid0 + (unsigned)i, 0, 1e9, user, mem_of(sp, i, 0.6));
        p->cmd = i % 2 ? "python3 train.py --local_rank=1" : "python3 train.py --local_rank=0";
        p->container = "slurm-job-4242";
    }
}

/* One link of one GPU: CRC errors fast (>= 100/s) or slow, replays, a recovery, or the link down;
 * the other links and GPUs carry old errors that do not move. DCGM's levels set the severity. */
static void test_nvlink_errors(void **st)
{
    (void)st;
    failures = 0;
    uint64_t rng = 31;
    for (int kind = 0; kind < 5; kind++)
        for (int v = 0; v < syn_variants(VARIANTS) / 2; v++) {
            syn_spec sp;
            syn_spec_init(&sp, &rng, syn_int(&rng, 1, 8), syn_range(&rng, 10, 30) * 60);
            int model = syn_int(&rng, 0, 2); /* boards with NVLink */
            for (int i = 0; i < sp.n_gpus; i++) {
                sp.gpu[i].model = model;
                sp.gpu[i].nvl_old_errors = v % 2 ? syn_int(&rng, 1, 500) : 0;
            }
            training_job(&rng, &sp, 40000, "lin");
            int bad = syn_int(&rng, 0, sp.n_gpus - 1), link = syn_int(&rng, 0, SYN_MODELS[model].nvlinks - 1);
            syn_gpu *g = &sp.gpu[bad];
            g->nvl_link = link;
            g->nvl_from_s = syn_range(&rng, 60, sp.duration_s / 2);
            if (kind == 0)
                g->nvl_crc_per_s = syn_range(&rng, 150, 2000);
            else if (kind == 1)
                g->nvl_crc_per_s = syn_range(&rng, 0.05, 20);
            else if (kind == 2)
                g->nvl_replay_per_min = syn_range(&rng, 1, 30);
            else if (kind == 3)
                g->nvl_recovery_at_s = g->nvl_from_s;
            else
                g->nvl_down_at_s = g->nvl_from_s;
            diag_report r;
            syn_diagnose(&sp, &r);
            expect e = {.detector = "nvlink_errors", .gpus = {bad}, .n_gpus = 1};
            if (!check("nvlink_errors", kind * 100 + v, &sp, &r, &e)) {
                diag_report_free(&r);
                continue;
            }
            const diag_finding *f = syn_find(&r, "nvlink_errors", bad);
            assert_int_equal(r.n, 1);
            assert_int_equal(f->severity, kind == 1 ? DIAG_WARNING : DIAG_CRITICAL);
            assert_true(syn_ev(f, "link") == link);
            assert_true(syn_ev(f, "links_down") == (kind == 4));
            diag_report_free(&r);
        }
    assert_int_equal(failures, 0);
}

/* A link below its maximum width or generation under load, or replaying past DCGM's limit; the
 * other GPUs' links train down to Gen1 whenever they idle (between jobs), which is no fault. */
static void test_pcie_degraded(void **st)
{
    (void)st;
    failures = 0;
    uint64_t rng = 32;
    for (int kind = 0; kind < 3; kind++)
        for (int v = 0; v < syn_variants(VARIANTS) / 2; v++) {
            syn_spec sp;
            syn_spec_init(&sp, &rng, syn_int(&rng, 1, 4), syn_range(&rng, 10, 30) * 60);
            int bad = syn_int(&rng, 0, sp.n_gpus - 1);
            double level = syn_range(&rng, 70, 98);
            for (int i = 0; i < sp.n_gpus; i++) {
                syn_gpu *g = &sp.gpu[i];
                g->noise = 1.5;
                g->pcie_idle_gen = 1;
                double pause = syn_range(&rng, 0.2, 0.4) * sp.duration_s;
                syn_add_seg(g, 0, pause, PAT_IDLE, 0, 0);
                syn_add_seg(g, pause, 1e9, PAT_STEADY, level, 0);
                syn_add_proc(g, 41000 + (unsigned)i, pause, 1e9, "ines", mem_of(&sp, i, 0.4));
            }
            syn_gpu *g = &sp.gpu[bad];
            const syn_model *m = &SYN_MODELS[g->model];
            if (kind == 0)
                g->pcie_width = m->pcie_width / (syn_int(&rng, 0, 1) ? 2 : 4);
            else if (kind == 1)
                g->pcie_gen = m->pcie_gen - syn_int(&rng, 1, 2);
            else
                g->replays_per_min = syn_range(&rng, 12, 200);
            diag_report r;
            syn_diagnose(&sp, &r);
            expect e = {.detector = "pcie_degraded", .gpus = {bad}, .n_gpus = 1};
            if (!check("pcie_degraded", kind * 100 + v, &sp, &r, &e)) {
                diag_report_free(&r);
                continue;
            }
            const diag_finding *f = syn_find(&r, "pcie_degraded", bad);
            assert_int_equal(r.n, 1);
            if (kind < 2)
                assert_non_null(diag_finding_get(f, "link"));
            else
                assert_true(syn_ev(f, "max_replays_per_min") > 8);
            diag_report_free(&r);
        }
    assert_int_equal(failures, 0);
}

/* A job's GPUs hung in a collective for 6-20 minutes; the odd one out exited, idles, keeps
 * computing, or there is none (the culprit is on another node). */
static void test_collective_hang(void **st)
{
    (void)st;
    failures = 0;
    uint64_t rng = 33;
    for (int odd_kind = 0; odd_kind < 4; odd_kind++)
        for (int v = 0; v < syn_variants(VARIANTS) / 2; v++) {
            syn_spec sp;
            syn_spec_init(&sp, &rng, syn_int(&rng, 2, 8), syn_range(&rng, 20, 30) * 60);
            training_job(&rng, &sp, 42000, "zoe");
            double from = sp.duration_s - syn_range(&rng, 6, 18) * 60;
            int odd = odd_kind < 3 ? syn_int(&rng, 0, sp.n_gpus - 1) : -1;
            for (int i = 0; i < sp.n_gpus; i++) {
                syn_gpu *g = &sp.gpu[i];
                if (i != odd) {
                    g->hang_from_s = from;
                    continue;
                }
                if (odd_kind == 0) { /* its process died: the others wait for it */
                    g->proc[0].to_s = from - 2;
                    g->seg[0].to_s = from - 2;
                } else if (odd_kind == 1) { /* stuck in host code, idle */
                    g->seg[0].to_s = from - 2;
                }
                /* odd_kind 2: it keeps computing */
            }
            diag_report r;
            syn_diagnose(&sp, &r);
            expect e;
            expect_all(&e, "collective_hang", sp.n_gpus);
            if (!check("collective_hang", odd_kind * 100 + v, &sp, &r, &e)) {
                diag_report_free(&r);
                continue;
            }
            assert_int_equal(r.n, 1);
            const diag_finding *f = &r.f[0];
            assert_int_equal(f->severity, DIAG_CRITICAL);
            if (odd >= 0) {
                assert_true(syn_ev(f, "odd_gpu") == odd);
                static const char *const words[] = {"exited", "idle", "busy"};
                assert_non_null(strstr(diag_finding_get(f, "odd_state")->str, words[odd_kind]));
            } else {
                assert_null(diag_finding_get(f, "odd_gpu"));
            }
            assert_true(syn_ev(f, "hang_s") >= 300);
            diag_report_free(&r);
        }
    assert_int_equal(failures, 0);
}

/* Clocks held low while busy with no power or thermal reason: locked, an applications clock, a low
 * P-state, HW slowdown asserted from outside; the cause named. */
static void test_clocks_low(void **st)
{
    (void)st;
    failures = 0;
    uint64_t rng = 34;
    static const char *const cause[] = {"locked", "applications clock", "P-state", "HW slowdown"};
    for (int kind = 0; kind < 4; kind++)
        for (int v = 0; v < syn_variants(VARIANTS) / 2; v++) {
            syn_spec sp;
            syn_spec_init(&sp, &rng, syn_int(&rng, 1, 4), syn_range(&rng, 10, 30) * 60);
            training_job(&rng, &sp, 43000, "max");
            int bad = syn_int(&rng, 0, sp.n_gpus - 1);
            syn_gpu *g = &sp.gpu[bad];
            double max = SYN_MODELS[g->model].clk_max_sm;
            if (kind == 0) {
                g->clock_cap = round(max * syn_range(&rng, 0.4, 0.7));
            } else if (kind == 1) {
                g->clock_cap = g->app_clock = round(max * syn_range(&rng, 0.4, 0.7));
            } else if (kind == 2) {
                g->low_pstate = 1;
            } else {
                g->hw_slowdown_from_s = syn_range(&rng, 0, 0.3) * sp.duration_s;
            }
            diag_report r;
            syn_diagnose(&sp, &r);
            expect e = {.detector = "clocks_low", .gpus = {bad}, .n_gpus = 1};
            if (!check("clocks_low", kind * 100 + v, &sp, &r, &e)) {
                diag_report_free(&r);
                continue;
            }
            const diag_finding *f = syn_find(&r, "clocks_low", bad);
            assert_int_equal(r.n, 1);
            if (!strstr(diag_finding_get(f, "cause")->str, cause[kind]))
                fail_msg("kind %d: cause '%s'", kind, diag_finding_get(f, "cause")->str);
            assert_true(syn_ev(f, "clock_share") < 0.75);
            diag_report_free(&r);
        }
    assert_int_equal(failures, 0);
}

/* XIDs in bursts: repeats closer than the burst gap are one incident, further apart several; the
 * advice names the catalog's action and, for a recurring hardware XID, service. */
static void test_xid_bursts(void **st)
{
    (void)st;
    failures = 0;
    uint64_t rng = 35;
    for (int v = 0; v < syn_variants(VARIANTS); v++) {
        syn_spec sp;
        syn_spec_init(&sp, &rng, 1, 40 * 60);
        training_job(&rng, &sp, 44000, "uma");
        syn_gpu *g = &sp.gpu[0];
        int spread = v % 2, n = syn_int(&rng, 2, SYN_MAX_XIDS);
        double t = syn_range(&rng, 60, 300);
        for (int k = 0; k < n; k++) {
            g->xid_at_s[k] = t;
            g->xid_code[k] = v % 4 < 2 ? 119 : 31;
            t += spread ? syn_range(&rng, 6, 9) * 60 : syn_range(&rng, 6, 90);
        }
        g->n_xid = n;
        diag_report r;
        syn_diagnose(&sp, &r);
        const char *det = v % 4 < 2 ? "hw_health" : "app_fault";
        expect e = {.detector = det, .gpus = {0}, .n_gpus = 1};
        if (!check(det, v, &sp, &r, &e)) {
            diag_report_free(&r);
            continue;
        }
        const diag_finding *f = syn_find(&r, det, 0);
        assert_true(syn_ev(f, "bursts") == (spread ? n : 1));
        if (v % 4 < 2 && spread) {
            int said = 0;
            for (int a = 0; a < f->n_advice; a++)
                said |= strstr(f->advice[a], "recurred") != NULL;
            assert_true(said);
        }
        diag_report_free(&r);
    }
    assert_int_equal(failures, 0);
}

/* Row remapping failed, or pages retired past DCGM's soft limit and still rising, or a remap
 * pending after an uncorrectable error: critical. */
static void test_row_remap(void **st)
{
    (void)st;
    failures = 0;
    uint64_t rng = 36;
    for (int kind = 0; kind < 3; kind++)
        for (int v = 0; v < syn_variants(VARIANTS) / 2; v++) {
            syn_spec sp;
            syn_spec_init(&sp, &rng, syn_int(&rng, 1, 4), syn_range(&rng, 10, 30) * 60);
            for (int i = 0; i < sp.n_gpus; i++)
                sp.gpu[i].model = syn_int(&rng, 0, 2); /* HBM boards */
            training_job(&rng, &sp, 45000, "ada");
            int bad = syn_int(&rng, 0, sp.n_gpus - 1);
            syn_gpu *g = &sp.gpu[bad];
            double at = syn_range(&rng, 60, sp.duration_s - 60);
            if (kind == 0) {
                g->failure_at_s = at;
            } else if (kind == 1) {
                g->retired_dbe0 = syn_int(&rng, 16, 40);
                g->retired_dbe_at_s = at;
            } else {
                g->pending_at_s = at;
            }
            diag_report r;
            syn_diagnose(&sp, &r);
            expect e = {.detector = "row_remap", .gpus = {bad}, .n_gpus = 1};
            if (!check("row_remap", kind * 100 + v, &sp, &r, &e)) {
                diag_report_free(&r);
                continue;
            }
            const diag_finding *f = syn_find(&r, "row_remap", bad);
            assert_int_equal(f->severity, DIAG_CRITICAL);
            if (kind == 0)
                assert_true(syn_ev(f, "remap_failure") == 1);
            if (kind == 1)
                assert_true(syn_ev(f, "retired_in_window") == 1);
            diag_report_free(&r);
        }
    assert_int_equal(failures, 0);
}

/* The replicas of a service (same user and command, one container each) behind a skewed
 * balancer: random request bursts everywhere, one or two replicas with another share of them. */
static void test_imbalance_replicas(void **st)
{
    (void)st;
    failures = 0;
    uint64_t rng = 37;
    static const char *const pods[] = {"k8s-pod-a", "k8s-pod-b", "k8s-pod-c", "k8s-pod-d",
                                       "k8s-pod-e", "k8s-pod-f", "k8s-pod-g", "k8s-pod-h"};
    for (int v = 0; v < syn_variants(VARIANTS); v++) {
        syn_spec sp;
        int n = syn_int(&rng, 2, 6);
        syn_spec_init(&sp, &rng, n, syn_range(&rng, 20, 30) * 60);
        int hot = syn_int(&rng, 0, n - 1);
        double rate = syn_range(&rng, 0.3, 0.8), burst = syn_range(&rng, 0.3, 1.2);
        for (int i = 0; i < n; i++) {
            syn_gpu *g = &sp.gpu[i];
            syn_seg *s = syn_add_seg(g, 0, 1e9, PAT_BURSTS, syn_range(&rng, 92, 100), 0);
            s->rate_hz = i == hot ? rate * syn_range(&rng, 4, 8) : rate;
            s->burst_s = burst;
            syn_proc *p = syn_add_proc(g, 46000 + (unsigned)i, 0, 1e9, "svc-asr", mem_of(&sp, i, 0.4));
            p->cmd = "python3 -m asr_server --port 9000";
            p->container = pods[i];
        }
        diag_report r;
        syn_diagnose(&sp, &r);
        take(&r, "low_util", -1); /* the quiet replicas may read as under-used too */
        take(&r, "input_stall", -1);
        expect e = {.detector = "imbalance", .gpus = {hot}, .n_gpus = 1};
        if (!check("imbalance replicas", v, &sp, &r, &e)) {
            diag_report_free(&r);
            continue;
        }
        const diag_finding *f = syn_find(&r, "imbalance", hot);
        assert_string_equal(diag_finding_get(f, "group")->str, "replicas");
        diag_report_free(&r);
    }
    assert_int_equal(failures, 0);
}

/* memory_leak on staircases whose steps are far apart: one step every third or half of the window,
 * the last one just before the tail a slope test would look at (a tail of 30 % can then hold no
 * step at all); and steps of every size the allocator takes. */
static void test_memory_leak_sparse_steps(void **st)
{
    (void)st;
    failures = 0;
    uint64_t rng = 38;
    for (int v = 0; v < syn_variants(VARIANTS); v++) {
        syn_spec sp;
        syn_spec_init(&sp, &rng, 1, syn_range(&rng, 25, 40) * 60);
        syn_gpu *g = &sp.gpu[0];
        g->noise = 1;
        syn_add_seg(g, 0, 1e9, PAT_STEADY, syn_range(&rng, 88, 98), 0);
        double total = SYN_MODELS[g->model].mem_total;
        syn_proc *p = syn_add_proc(g, 47000, 0, 1e9, "eli", floor(total * 0.3));
        p->mem_noise = syn_range(&rng, 0, 10);
        /* k steps over the window, the last at 68-70 % of it: the last 30 % has none */
        int k = syn_int(&rng, 3, 6);
        p->step_s = sp.duration_s * 0.69 / k;
        p->step_mib = floor(total * syn_range(&rng, 0.03, 0.08));
        p->from_s = -p->step_s * 0.05; /* the first step inside the window */
        diag_report r;
        syn_diagnose(&sp, &r);
        expect e = {.detector = "memory_leak", .gpus = {0}, .n_gpus = 1};
        if (!check("memory_leak sparse steps", v, &sp, &r, &e)) {
            diag_report_free(&r);
            continue;
        }
        const diag_finding *f = syn_find(&r, "memory_leak", 0);
        assert_true(syn_ev(f, "steps") >= 3);
        assert_true(fabs(syn_ev(f, "step_interval_s") - p->step_s) < 0.1 * p->step_s);
        diag_report_free(&r);
    }
    assert_int_equal(failures, 0);
}

/* The allocator's out-of-memory with the request's worth reserved but unallocated (both message
 * forms, every unit), or cache flushes in step after step, on the GPU the message names. */
static void test_alloc_fragmentation(void **st)
{
    (void)st;
    failures = 0;
    uint64_t rng = 39;
    for (int v = 0; v < syn_variants(VARIANTS) * 2; v++) {
        syn_spec sp;
        syn_spec_init(&sp, &rng, syn_int(&rng, 1, 4), syn_range(&rng, 1, 10) * 60);
        training_job(&rng, &sp, 48000, "gus");
        diag_window *w = syn_build(&sp);
        int bad = syn_int(&rng, 0, sp.n_gpus - 1), kind = v % 3;
        double cap = SYN_MODELS[sp.gpu[bad].model].mem_total, tried = cap * syn_range(&rng, 0.01, 0.05);
        double unalloc = tried * syn_range(&rng, 1.2, 6), alloc = cap * 0.7;
        char line[600];
        int lines = kind == 2 ? syn_int(&rng, 3, 9) : 1;
        for (int k = 0; k < lines; k++) {
            if (kind == 0)
                snprintf(line, sizeof line,
                         "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate %.2f GiB. GPU %d has a total "
                         "capacity of %.2f GiB of which 512.00 MiB is free. Of the allocated memory %.2f GiB is "
                         "allocated by PyTorch, and %.2f MiB is reserved by PyTorch but unallocated.",
                         tried / 1024, bad, cap / 1024, alloc / 1024, unalloc);
            else if (kind == 1)
                snprintf(line, sizeof line,
                         "RuntimeError: CUDA out of memory. Tried to allocate %.2f MiB (GPU %d; %.2f GiB total "
                         "capacity; %.2f GiB already allocated; 12.00 MiB free; %.2f GiB reserved in total by PyTorch)",
                         tried, bad, cap / 1024, alloc / 1024, (alloc + unalloc) / 1024);
            else
                snprintf(line, sizeof line,
                         "[WARNING] [stage3.py:2236:step] %d pytorch allocator cache flushes since "
                         "last step. this happens when there is high memory pressure",
                         syn_int(&rng, 1, 9));
            diag_job_note n;
            assert_true(diag_job_line(line, &n));
            diag_window_add_note(w, kind == 2 ? bad : n.gpu, SYN_T0 + (uint64_t)(k + 1) * 20000000, &n);
        }
        diag_report r;
        diag_report_init(&r);
        diag_run(w, NULL, &r);
        diag_window_free(w);
        expect e = {.detector = "alloc_fragmentation", .gpus = {bad}, .n_gpus = 1};
        if (!check("alloc_fragmentation", v, &sp, &r, &e)) {
            diag_report_free(&r);
            continue;
        }
        const diag_finding *f = syn_find(&r, "alloc_fragmentation", bad);
        assert_non_null(strstr(f->advice[0], "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"));
        if (kind < 2) {
            assert_true(fabs(syn_ev(f, "reserved_unallocated_mib") - unalloc) < 0.02 * unalloc + 11);
            assert_true(fabs(syn_ev(f, "tried_mib") - tried) < 0.01 * tried + 11);
        } else {
            assert_true(syn_ev(f, "cache_flush_steps") == lines);
        }
        diag_report_free(&r);
    }
    assert_int_equal(failures, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_input_stall),
        cmocka_unit_test(test_input_stall_irregular),
        cmocka_unit_test(test_launch_bound),
        cmocka_unit_test(test_low_util),
        cmocka_unit_test(test_low_util_ripple),
        cmocka_unit_test(test_power_cap),
        cmocka_unit_test(test_thermal),
        cmocka_unit_test(test_memory_leak),
        cmocka_unit_test(test_memory_full),
        cmocka_unit_test(test_imbalance),
        cmocka_unit_test(test_idle_holding),
        cmocka_unit_test(test_pcie_bound),
        cmocka_unit_test(test_hw_events),
        cmocka_unit_test(test_xid_bursts),
        cmocka_unit_test(test_row_remap),
        cmocka_unit_test(test_nvlink_errors),
        cmocka_unit_test(test_pcie_degraded),
        cmocka_unit_test(test_collective_hang),
        cmocka_unit_test(test_clocks_low),
        cmocka_unit_test(test_imbalance_replicas),
        cmocka_unit_test(test_memory_leak_sparse_steps),
        cmocka_unit_test(test_alloc_fragmentation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
