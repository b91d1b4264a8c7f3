/* test_diag_healthy.c - healthy work must give no finding: steady training at 95-99 %, bursty
 * inference serving, a short gap between two jobs, warm-up before steady state, periodic
 * evaluation, checkpoint saves, an idle GPU without processes, memory steady at 85 %, a GPU near
 * but below its power cap, memory that grows then plateaus, memory-bound inference, a desktop whose
 * only processes are graphics ones; and the look-alikes of the hardware and hang detectors: links
 * that train down to Gen1 while idle, ranks waiting at a barrier for a minute or two (utilization
 * 100 %, power near idle), memory that grows in steps while warming up and then stops, replicas of
 * a service that differ only by noise, hyper-parameter trials of one user in their own containers,
 * NVLink error counts from long ago that do not move. Each family
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

static double mem_of_model(const syn_spec *sp, int g, double share)
{
    return floor(SYN_MODELS[sp->gpu[g].model].mem_total * share);
}

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

/* Idle links train down to Gen1 between jobs (power saving); under load they are at their maximum. */
static void test_idle_links_gen1(void **st)
{
    (void)st;
    failures = 0;
    uint64_t rng = 120;
    for (int v = 0; v < syn_variants(VARIANTS); v++) {
        syn_spec sp;
        syn_spec_init(&sp, &rng, syn_int(&rng, 1, 4), syn_range(&rng, 15, 30) * 60);
        double a = syn_range(&rng, 0.1, 0.4) * sp.duration_s, b = a + syn_range(&rng, 0.3, 0.5) * sp.duration_s;
        training(&rng, &sp, a, b, 16000, syn_range(&rng, 90, 98));
        for (int i = 0; i < sp.n_gpus; i++)
            sp.gpu[i].pcie_idle_gen = 1;
        expect_none("idle links at Gen1", v, &sp);
    }
    assert_int_equal(failures, 0);
}

/* Ranks wait for rank 0 at a barrier for 30-150 s every few minutes: pinned at 100 %, near idle. */
static void test_barrier_waits(void **st)
{
    (void)st;
    failures = 0;
    uint64_t rng = 121;
    for (int v = 0; v < syn_variants(VARIANTS); v++) {
        syn_spec sp;
        syn_spec_init(&sp, &rng, syn_int(&rng, 2, 8), syn_range(&rng, 20, 30) * 60);
        training(&rng, &sp, 0, 1e9, 17000, syn_range(&rng, 94, 98));
        /* one wait for a long evaluation on rank 0 (the synthetic hang has no end: the window ends first) */
        double wait = syn_range(&rng, 30, 150);
        for (int i = 1; i < sp.n_gpus; i++)
            sp.gpu[i].hang_from_s = sp.duration_s - wait;
        expect_none("barrier waits", v, &sp);
    }
    assert_int_equal(failures, 0);
}

/* The allocator grows in steps for its first minutes (new shapes arriving), then never again. */
static void test_warmup_steps_flatten(void **st)
{
    (void)st;
    failures = 0;
    uint64_t rng = 122;
    for (int v = 0; v < syn_variants(VARIANTS); v++) {
        syn_spec sp;
        syn_spec_init(&sp, &rng, syn_int(&rng, 1, 2), syn_range(&rng, 25, 40) * 60);
        for (int i = 0; i < sp.n_gpus; i++) {
            syn_gpu *g = &sp.gpu[i];
            double total = SYN_MODELS[g->model].mem_total;
            g->noise = 1;
            syn_add_seg(g, 0, 1e9, PAT_STEADY, syn_range(&rng, 90, 97), 0);
            syn_proc *p = syn_add_proc(g, 18000 + (unsigned)i, 0, 1e9, "liv", floor(total * 0.1));
            /* steps every 20-60 s for 6-10 minutes, as a leak would, then flat: a ramp that holds */
            double steps_s = syn_range(&rng, 6, 10) * 60, every = syn_range(&rng, 20, 60);
            p->mem1 = p->mem0 + floor(total * syn_range(&rng, 0.2, 0.5) / (steps_s / every)) * floor(steps_s / every);
            p->ramp_start_s = 0;
            p->ramp_s = steps_s;
        }
        expect_none("warm-up in steps, then flat", v, &sp);
    }
    assert_int_equal(failures, 0);
}

/* Replicas of one service, one container each, under a fair balancer: bursts at random, same rate. */
static void test_replicas_noise(void **st)
{
    (void)st;
    failures = 0;
    uint64_t rng = 123;
    static const char *const pods[] = {"k8s-pod-a", "k8s-pod-b", "k8s-pod-c", "k8s-pod-d",
                                       "k8s-pod-e", "k8s-pod-f", "k8s-pod-g", "k8s-pod-h"};
    for (int v = 0; v < syn_variants(VARIANTS); v++) {
        syn_spec sp;
        syn_spec_init(&sp, &rng, syn_int(&rng, 2, 8), syn_range(&rng, 20, 30) * 60);
        double rate = syn_range(&rng, 0.2, 1.2), burst = syn_range(&rng, 0.3, 1.5), hi = syn_range(&rng, 90, 100);
        for (int i = 0; i < sp.n_gpus; i++) {
            syn_gpu *g = &sp.gpu[i];
            syn_seg *s = syn_add_seg(g, 0, 1e9, PAT_BURSTS, hi, 0);
            s->rate_hz = rate;
            s->burst_s = burst;
            syn_proc *p = syn_add_proc(g, 19000 + (unsigned)i, 0, 1e9, "svc-tts", mem_of_model(&sp, i, 0.3));
            p->cmd = "python3 -m tts_server --port 8000";
            p->container = pods[i];
        }
        diag_report r;
        syn_diagnose(&sp, &r);
        int imb = syn_count(&r, "imbalance", -1);
        if (imb) {
            syn_dump("replicas differing by noise", &sp, &r);
            failures++;
        }
        diag_report_free(&r);
    }
    assert_int_equal(failures, 0);
}

/* Trials of a hyper-parameter sweep: one user, one container each, different arguments and loads. */
static void test_hpo_trials(void **st)
{
    (void)st;
    failures = 0;
    uint64_t rng = 124;
    static const char *const pods[] = {"katib-trial-a", "katib-trial-b", "katib-trial-c", "katib-trial-d"};
    static const char *const cmds[] = {"python3 train.py --lr 0.001", "python3 train.py --lr 0.003",
                                       "python3 train.py --lr 0.01", "python3 train.py --lr 0.03"};
    for (int v = 0; v < syn_variants(VARIANTS); v++) {
        syn_spec sp;
        syn_spec_init(&sp, &rng, syn_int(&rng, 2, 4), syn_range(&rng, 15, 30) * 60);
        for (int i = 0; i < sp.n_gpus; i++) {
            syn_gpu *g = &sp.gpu[i];
            g->noise = 1.5;
            syn_add_seg(g, 0, 1e9, PAT_STEADY, syn_range(&rng, 74, 98), 0);
            syn_proc *p = syn_add_proc(g, 20500 + (unsigned)i, 0, 1e9, "hpo", mem_of_model(&sp, i, 0.5));
            p->cmd = cmds[i];
            p->container = pods[i];
        }
        expect_none("hyper-parameter trials", v, &sp);
    }
    assert_int_equal(failures, 0);
}

/* NVLink counters that carry errors from before the window, and do not move. */
static void test_old_nvlink_errors(void **st)
{
    (void)st;
    failures = 0;
    uint64_t rng = 125;
    for (int v = 0; v < syn_variants(VARIANTS); v++) {
        syn_spec sp;
        syn_spec_init(&sp, &rng, syn_int(&rng, 1, 8), syn_range(&rng, 10, 30) * 60);
        int model = syn_int(&rng, 0, 2); /* boards with NVLink */
        for (int i = 0; i < sp.n_gpus; i++) {
            sp.gpu[i].model = model;
            sp.gpu[i].nvl_old_errors = syn_int(&rng, 1, 100000);
        }
        training(&rng, &sp, 0, 1e9, 21000, syn_range(&rng, 94, 98));
        expect_none("old NVLink errors", v, &sp);
    }
    assert_int_equal(failures, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_steady_training),      cmocka_unit_test(test_bursty_inference),
        cmocka_unit_test(test_gap_between_jobs),     cmocka_unit_test(test_warmup),
        cmocka_unit_test(test_periodic_eval),        cmocka_unit_test(test_checkpoints),
        cmocka_unit_test(test_idle_no_process),      cmocka_unit_test(test_memory_steady_85),
        cmocka_unit_test(test_near_power_cap),       cmocka_unit_test(test_memory_plateau),
        cmocka_unit_test(test_memory_bound),         cmocka_unit_test(test_desktop_graphics_only),
        cmocka_unit_test(test_idle_links_gen1),      cmocka_unit_test(test_barrier_waits),
        cmocka_unit_test(test_warmup_steps_flatten), cmocka_unit_test(test_replicas_noise),
        cmocka_unit_test(test_hpo_trials),           cmocka_unit_test(test_old_nvlink_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
