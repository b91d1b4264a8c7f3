/* test_diag_healthy.c - healthy work must give no finding: steady training at 95-99 %, bursty
 * inference serving, a short gap between two jobs, warm-up before steady state, periodic
 * evaluation, checkpoint saves, an idle GPU without processes, memory steady at 85 %, a GPU near
 * but below its power cap, memory that grows then plateaus, memory-bound inference, a desktop whose
 * only processes are graphics ones. Each family
 * is drawn over random GPU models, counts, levels, noise, reading intervals and NVML averaging
 * periods. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>
#include "test_diag_synth.h"

#define VARIANTS 12

static int failures;

static void expect_none(const char *family, int v, syn_spec *sp)
{
    diag_report r;
    syn_diagnose(sp, &r);
    if (r.n != 0) {
        char what[64];
        snprintf(what, sizeof what, "%s #%d", family, v);
        syn_dump(what, sp, &r);
        failures++;
    }
    diag_report_free(&r);
}

/* n GPUs of one data-parallel job (one rank per GPU). */
static void training(uint64_t *rng, syn_spec *sp, double from, double to, unsigned pid0, double level)
{
    for (int i = 0; i < sp->n_gpus; i++) {
        syn_gpu *g = &sp->gpu[i];
        g->noise = syn_range(rng, 0.3, 1.5);
        g->mem_util_ratio = syn_range(rng, 0.35, 0.5);
        syn_add_seg(g, from, to, PAT_STEADY, level, 0);
        syn_proc *p = syn_add_proc(g, pid0 + (unsigned)i, from, to, "alice",
                                   floor(SYN_MODELS[g->model].mem_total * syn_range(rng, 0.5, 0.8)));
        p->mem_noise = syn_range(rng, 0, 30);
        p->container = "slurm-job-88421";
    }
}

static void test_steady_training(void **st)
{
    (void)st;
    failures = 0;
    uint64_t rng = 101;
    for (int v = 0; v < syn_variants(VARIANTS); v++) {
        syn_spec sp;
        syn_spec_init(&sp, &rng, syn_int(&rng, 1, 8), syn_range(&rng, 10, 30) * 60);
        training(&rng, &sp, 0, 1e9, 12000, syn_range(&rng, 95, 99));
        expect_none("steady training", v, &sp);
    }
    assert_int_equal(failures, 0);
}

static void test_bursty_inference(void **st)
{
    (void)st;
    failures = 0;
    uint64_t rng = 102;
    for (int v = 0; v < syn_variants(VARIANTS); v++) {
        syn_spec sp;
        syn_spec_init(&sp, &rng, syn_int(&rng, 1, 4), syn_range(&rng, 15, 30) * 60);
        for (int i = 0; i < sp.n_gpus; i++) {
            syn_gpu *g = &sp.gpu[i];
            g->noise = syn_range(&rng, 0, 2);
            syn_seg *s = syn_add_seg(g, 0, 1e9, PAT_BURSTS, syn_range(&rng, 60, 100), 0);
            s->rate_hz = syn_range(&rng, 0.05, 0.6);
            s->burst_s = syn_range(&rng, 0.3, 4);
            syn_proc *p = syn_add_proc(g, 30112 + 7 * (unsigned)i, 0, 1e9, "svc-infer",
                                       floor(SYN_MODELS[g->model].mem_total * 0.3));
            p->name = "tritonserver";
            p->container = "k8s-pod-5d2e9c";
        }
        expect_none("bursty inference", v, &sp);
    }
    assert_int_equal(failures, 0);
}

static void test_gap_between_jobs(void **st)
{
    (void)st;
    failures = 0;
    uint64_t rng = 103;
    for (int v = 0; v < syn_variants(VARIANTS); v++) {
        syn_spec sp;
        syn_spec_init(&sp, &rng, syn_int(&rng, 1, 4), syn_range(&rng, 20, 40) * 60);
        double end_a = syn_range(&rng, 0.3, 0.6) * sp.duration_s, gap = syn_range(&rng, 30, 300);
        training(&rng, &sp, 0, end_a, 12000, syn_range(&rng, 95, 99));
        training(&rng, &sp, end_a + gap, 1e9, 13000, syn_range(&rng, 95, 99));
        expect_none("gap between jobs", v, &sp);
    }
    assert_int_equal(failures, 0);
}

static void test_warmup(void **st)
{
    (void)st;
    failures = 0;
    uint64_t rng = 104;
    for (int v = 0; v < syn_variants(VARIANTS); v++) {
        syn_spec sp;
        syn_spec_init(&sp, &rng, syn_int(&rng, 1, 8), syn_range(&rng, 15, 30) * 60);
        double warm = syn_range(&rng, 60, 300), level = syn_range(&rng, 95, 99);
        training(&rng, &sp, 0, 1e9, 12000, level);
        for (int i = 0; i < sp.n_gpus; i++) {
            syn_gpu *g = &sp.gpu[i];
            /* loading and compiling, then the steady state; memory grows with it */
            g->seg[0].from_s = warm;
            syn_add_seg(g, 0, warm, PAT_RAMP, level, 0);
            syn_proc *p = &g->proc[0];
            p->mem1 = p->mem0;
            p->mem0 = 500;
            p->ramp_s = warm + syn_range(&rng, 0, 60);
        }
        expect_none("warm-up", v, &sp);
    }
    assert_int_equal(failures, 0);
}

static void test_periodic_eval(void **st)
{
    (void)st;
    failures = 0;
    uint64_t rng = 105;
    for (int v = 0; v < syn_variants(VARIANTS); v++) {
        syn_spec sp;
        syn_spec_init(&sp, &rng, syn_int(&rng, 1, 8), syn_range(&rng, 30, 60) * 60);
        double every = syn_range(&rng, 5, 15) * 60, len = syn_range(&rng, 20, 90);
        double level = syn_range(&rng, 95, 99), eval_level = syn_range(&rng, 0, 60);
        training(&rng, &sp, 0, 1e9, 12000, level);
        for (int i = 0; i < sp.n_gpus; i++) {
            syn_gpu *g = &sp.gpu[i];
            g->n_seg = 0;
            double t = 0;
            /* train, evaluate for len seconds every `every` seconds (the window holds at most 12) */
            while (t < sp.duration_s + every) {
                syn_add_seg(g, t, t + every - len, PAT_STEADY, level, 0);
                syn_add_seg(g, t + every - len, t + every, PAT_STEADY, eval_level, 0);
                t += every;
            }
        }
        expect_none("periodic evaluation", v, &sp);
    }
    assert_int_equal(failures, 0);
}

static void test_checkpoints(void **st)
{
    (void)st;
    failures = 0;
    uint64_t rng = 106;
    for (int v = 0; v < syn_variants(VARIANTS); v++) {
        syn_spec sp;
        syn_spec_init(&sp, &rng, syn_int(&rng, 1, 8), syn_range(&rng, 20, 45) * 60);
        double every = syn_range(&rng, 5, 20) * 60, len = syn_range(&rng, 5, 40);
        training(&rng, &sp, 0, 1e9, 12000, syn_range(&rng, 95, 99));
        for (int i = 0; i < sp.n_gpus; i++) {
            syn_gpu *g = &sp.gpu[i];
            /* a short dip to idle while the checkpoint is written */
            syn_seg *s = syn_add_seg(g, 0, 1e9, PAT_SQUARE, g->seg[0].hi, 0);
            g->n_seg--;
            g->seg[0] = *s;
            g->seg[0].period_s = every;
            g->seg[0].duty = 1 - len / every;
            g->seg[0].jitter = 0.02;
        }
        expect_none("checkpoint saves", v, &sp);
    }
    assert_int_equal(failures, 0);
}

static void test_idle_no_process(void **st)
{
    (void)st;
    failures = 0;
    uint64_t rng = 107;
    for (int v = 0; v < syn_variants(VARIANTS); v++) {
        syn_spec sp;
        syn_spec_init(&sp, &rng, syn_int(&rng, 1, 8), syn_range(&rng, 25, 60) * 60);
        for (int i = 0; i < sp.n_gpus; i++)
            sp.gpu[i].noise = v % 2 ? 0 : 0.5;
        sp.no_procs = v % 3 == 0; /* a source without process lists */
        expect_none("idle without processes", v, &sp);
    }
    assert_int_equal(failures, 0);
}

/* Workstations nobody computes on: the display server and the desktop shell (graphics processes)
 * hold a little memory and draw now and then. They hold no job. */
static void test_desktop_graphics_only(void **st)
{
    (void)st;
    failures = 0;
    uint64_t rng = 112;
    for (int v = 0; v < syn_variants(VARIANTS); v++) {
        syn_spec sp;
        syn_spec_init(&sp, &rng, syn_int(&rng, 1, 2), syn_range(&rng, 25, 60) * 60);
        for (int i = 0; i < sp.n_gpus; i++) {
            syn_gpu *g = &sp.gpu[i];
            g->noise = syn_range(&rng, 0, 1.5);
            syn_seg *s = syn_add_seg(g, 0, 1e9, PAT_BURSTS, syn_range(&rng, 5, 30), 0); /* window redraws */
            s->rate_hz = syn_range(&rng, 0.01, 0.2);
            s->burst_s = syn_range(&rng, 0.1, 1);
            const char *names[2] = {"Xorg", "gnome-shell"};
            for (int k = 0; k < 2; k++) {
                syn_proc *p =
                    syn_add_proc(g, 1700 + 700 * (unsigned)k, 0, 1e9, k ? "vera" : "root", syn_range(&rng, 150, 600));
                p->name = names[k];
                p->type = PROC_GRAPHICS;
            }
        }
        expect_none("desktop, graphics processes only", v, &sp);
    }
    assert_int_equal(failures, 0);
}

static void test_memory_steady_85(void **st)
{
    (void)st;
    failures = 0;
    uint64_t rng = 108;
    for (int v = 0; v < syn_variants(VARIANTS); v++) {
        syn_spec sp;
        syn_spec_init(&sp, &rng, syn_int(&rng, 1, 8), syn_range(&rng, 10, 30) * 60);
        training(&rng, &sp, 0, 1e9, 12000, syn_range(&rng, 95, 99));
        for (int i = 0; i < sp.n_gpus; i++) {
            syn_proc *p = &sp.gpu[i].proc[0];
            p->mem0 = floor(SYN_MODELS[sp.gpu[i].model].mem_total * syn_range(&rng, 0.83, 0.88));
            p->mem_noise = syn_range(&rng, 5, 100);
        }
        expect_none("memory steady at 85 %", v, &sp);
    }
    assert_int_equal(failures, 0);
}

static void test_near_power_cap(void **st)
{
    (void)st;
    failures = 0;
    uint64_t rng = 109;
    for (int v = 0; v < syn_variants(VARIANTS); v++) {
        syn_spec sp;
        syn_spec_init(&sp, &rng, syn_int(&rng, 1, 8), syn_range(&rng, 10, 30) * 60);
        double level = syn_range(&rng, 96, 99);
        training(&rng, &sp, 0, 1e9, 12000, level);
        for (int i = 0; i < sp.n_gpus; i++) {
            /* demand just under the limit: 90-97 % of it */
            syn_gpu *g = &sp.gpu[i];
            const syn_model *m = &SYN_MODELS[g->model];
            double base = m->power_idle + (1.05 * m->power_default - m->power_idle) *
                                              (0.85 * level * 0.9 / 90 + 0.15 * level * g->mem_util_ratio / 100);
            g->demand = (syn_range(&rng, 0.90, 0.97) * m->power_default - m->power_idle) / (base - m->power_idle);
        }
        expect_none("near the power cap", v, &sp);
    }
    assert_int_equal(failures, 0);
}

static void test_memory_bound(void **st)
{
    (void)st;
    failures = 0;
    uint64_t rng = 111;
    for (int v = 0; v < syn_variants(VARIANTS); v++) {
        syn_spec sp;
        syn_spec_init(&sp, &rng, syn_int(&rng, 1, 8), syn_range(&rng, 10, 30) * 60);
        training(&rng, &sp, 0, 1e9, 12000, syn_range(&rng, 95, 100));
        for (int i = 0; i < sp.n_gpus; i++) {
            /* decoding-style work: memory busy most of the time, SMs half busy, power moderate */
            sp.gpu[i].mem_util_ratio = syn_range(&rng, 0.6, 0.9);
            sp.gpu[i].sm_ratio = syn_range(&rng, 0.55, 0.8);
        }
        expect_none("memory-bound inference", v, &sp);
    }
    assert_int_equal(failures, 0);
}

static void test_memory_plateau(void **st)
{
    (void)st;
    failures = 0;
    uint64_t rng = 110;
    for (int v = 0; v < syn_variants(VARIANTS); v++) {
        syn_spec sp;
        syn_spec_init(&sp, &rng, syn_int(&rng, 1, 4), syn_range(&rng, 20, 45) * 60);
        training(&rng, &sp, 0, 1e9, 12000, syn_range(&rng, 95, 99));
        for (int i = 0; i < sp.n_gpus; i++) {
            syn_proc *p = &sp.gpu[i].proc[0];
            p->mem1 = p->mem0;
            p->mem0 = floor(p->mem1 * syn_range(&rng, 0.1, 0.5));
            p->ramp_start_s = syn_range(&rng, 0, 120);
            p->ramp_s = sp.duration_s * syn_range(&rng, 0.2, 0.5);
        }
        expect_none("memory grows then plateaus", v, &sp);
    }
    assert_int_equal(failures, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_steady_training),  cmocka_unit_test(test_bursty_inference),
        cmocka_unit_test(test_gap_between_jobs), cmocka_unit_test(test_warmup),
        cmocka_unit_test(test_periodic_eval),    cmocka_unit_test(test_checkpoints),
        cmocka_unit_test(test_idle_no_process),  cmocka_unit_test(test_memory_steady_85),
        cmocka_unit_test(test_near_power_cap),   cmocka_unit_test(test_memory_plateau),
        cmocka_unit_test(test_memory_bound),     cmocka_unit_test(test_desktop_graphics_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
