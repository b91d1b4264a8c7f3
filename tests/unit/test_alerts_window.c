/* test_alerts_window.c - the engine's kept values (engine_window.c) give every condition the same
 * result, bit for bit, as reading the source's samples: random samples pushed into a ring one round
 * at a time (gaps, absent metrics, lost GPUs, counter resets, repeated values, a clock that steps
 * back, a ring shorter than the windows), evaluated at irregular times, each leaf condition compared
 * both ways. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "condition.h"
#include "engine_window.h"
#include "rules.h"
#include "ring.h"

#define SEC 1000000LL
#define GPUS 3

static const char *rules_yaml =
    "groups:\n- name: g\n  rules:\n"
    "  - {alert: A1, condition: {metric: temperature.gpu, op: '>', threshold: 50}}\n"
    "  - {alert: A2, condition: {metric: temperature.gpu, reduce: avg, window: 30s, op: '>', threshold: 50}}\n"
    "  - {alert: A3, condition: {metric: temperature.gpu, reduce: p95, window: 2m, op: '>', threshold: 50}}\n"
    "  - {alert: A4, condition: {metric: temperature.gpu, reduce: changes, window: 5m, op: '>', threshold: 3}}\n"
    "  - {alert: A5, condition: {metric: temperature.gpu, reduce: min, window: 45s, op: '<', threshold: 40}}\n"
    "  - {alert: A6, condition: {metric: xid.count, reduce: increase, window: 10m, op: '>', threshold: 0}}\n"
    "  - {alert: A7, condition: {metric: xid.count, reduce: rate, window: 3m, op: '>', threshold: 0}}\n"
    "  - {alert: A8, condition: {metric: memory.used / memory.total, reduce: max, window: 1m, op: '>', "
    "threshold: 0.9}}\n"
    "  - {alert: A9, condition: {metric: power.draw - power.limit, reduce: avg, window: 90s, op: '>', "
    "threshold: -50}}\n"
    "  - {alert: A10, condition: {metric: gpu.lost, reduce: max, window: 1m, op: '==', threshold: 1}}\n"
    "  - {alert: A11, condition: {metric: gpu.error, reduce: min, window: 1m, op: '==', threshold: 1}}\n"
    "  - {alert: A12, condition: {metric: clocks_event_reasons.sw_power_cap, reduce: avg, window: 2m, op: '>', "
    "threshold: 0.5}}\n"
    "  - {alert: A13, condition: {metric: power.draw, op: '>', threshold: power.limit}}\n"
    "  - {alert: A14, condition: {metric: temperature.gpu, reduce: last, window: 20s, op: '>', threshold: 50}}\n"
    "  - {alert: A15, condition: {metric: memory.used - processes.memory, reduce: avg, window: 1m, op: '>', "
    "threshold: 0}}\n"
    "  - {alert: A16, condition: {metric: utilization.gpu, reduce: max, window: 5m, op: '<', threshold: 50}}\n"
    "  - alert: A17\n    any:\n"
    "    - {metric: utilization.gpu, reduce: avg, window: 10s, op: '>', threshold: 90}\n"
    "    - {metric: memory.used / memory.total, op: '>', threshold: 0.5}\n";

typedef struct src_ctx {
    ring *r;
} src_ctx;

static int c_count(void *ctx)
{
    return ring_gpus(((src_ctx *)ctx)->r);
}

static void c_each(void *ctx, int gpu, uint64_t since_us, void (*fn)(const gpu_sample *, void *), void *arg)
{
    ring_each(((src_ctx *)ctx)->r, gpu, since_us, fn, arg);
}

static int c_latest(void *ctx, int gpu, int64_t now_us, gpu_sample *out)
{
    (void)now_us;
    return ring_latest(((src_ctx *)ctx)->r, gpu, out);
}

static uint64_t rng = 88172645463325252ull;
static unsigned rnd(unsigned n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng % n);
}

/* One random sample of a GPU at t (values repeat often, some are absent, the counter resets). */
static void random_sample(gpu_sample *s, int gpu, uint64_t t, double *xid)
{
    memset(s, 0, sizeof *s);
    s->t_us = t;
    s->status = rnd(40) == 0 ? GPU_LOST : rnd(60) == 0 ? GPU_ERROR : GPU_OK;
    if (s->status != GPU_OK)
        return;
    if (rnd(10))
        sample_set(s, M_TEMP_GPU, 40 + rnd(4) * 5 + (rnd(3) == 0 ? rnd(1000) / 7.0 : 0));
    if (rnd(8) == 0)
        *xid = rnd(4) == 0 ? 0 : *xid + rnd(3);
    sample_set(s, M_XID_COUNT, *xid);
    sample_set(s, M_MEM_TOTAL, rnd(20) == 0 ? 0 : 80000);
    if (rnd(5))
        sample_set(s, M_MEM_USED, 60000 + rnd(20000) + gpu);
    sample_set(s, M_POWER_DRAW, 500 + rnd(300) * 0.25);
    if (rnd(7))
        sample_set(s, M_POWER_LIMIT, 700);
    sample_set(s, M_CER_ACTIVE, rnd(3) == 0 ? 4 : 0);
    sample_set(s, M_UTIL_GPU, rnd(3) ? 100 : rnd(101));
}

static int leaves(const cond *c, const cond **out, int n)
{
    if (c->kind == COND_LEAF) {
        out[n] = c;
        return n + 1;
    }
    for (int i = 0; i < c->nkids; i++)
        n = leaves(&c->kids[i], out, n);
    return n;
}

/* Every leaf on every GPU, with the kept values and from the source: same result, same value bits. */
static int compare_at(engine_window *w, const sample_source *src, const cond **lv, int nl, int64_t now)
{
    int compared = 0;
    gpu_proc procs[2] = {{.has_mem = 1, .mem_mib = 1000}, {.has_mem = 1, .mem_mib = 250.5}};
    for (int gpu = 0; gpu < GPUS; gpu++) {
        gpu_sample latest;
        int64_t lt = ring_latest(((src_ctx *)src->ctx)->r, gpu, &latest) ? (int64_t)latest.t_us : 0;
        eval_ctx with = {src, gpu, now, lt, procs, 2, NULL, w, NULL}, without = with;
        without.win = NULL;
        for (int i = 0; i < nl; i++) {
            double a = -12345.5, b = -12345.5;
            tri ta = cond_eval(lv[i], &with, &a), tb = cond_eval(lv[i], &without, &b);
            if (ta != tb || memcmp(&a, &b, sizeof a) != 0)
                fail_msg("t=%lld gpu %d leaf %d (%s): kept %d %.17g, source %d %.17g", (long long)(now / SEC), gpu, i,
                         lv[i]->metric.text, ta, a, tb, b);
            compared++;
        }
    }
    return compared;
}

static void run(int64_t step_back_at, int capacity)
{
    ruleset rs = {0};
    errlist errs = {0};
    assert_int_equal(rules_load_string(&rs, "w.yaml", rules_yaml, &errs), 0);
    const cond *lv[64];
    int nl = 0;
    for (int r = 0; r < rs.groups[0].nrules; r++)
        nl = leaves(&rs.groups[0].rules[r].cond, lv, nl);
    engine_window w = {0};
    window_plan(&w, &rs);
    assert_true(w.noperands > 5);
    assert_int_equal(lv[14]->tap_metric, 0); /* memory.used - processes.memory: read from the source */
    src_ctx c = {ring_new(GPUS, capacity)};
    sample_source src = {&c, c_count, NULL, c_each, c_latest, NULL, NULL};
    w.capacity = capacity; /* as alert_engine_set_source_capacity sets it */
    double xid[GPUS] = {0};
    gpu_sample s;
    int64_t t = 1000 * SEC, next_eval = t + 5 * SEC;
    int compared = 0;
    for (int round = 0; round < 2400; round++) {
        t += rnd(12) == 0 ? rnd(30) * SEC : SEC + rnd(1000); /* jitter and gaps */
        if (step_back_at && round == step_back_at)
            t -= 400 * SEC; /* the clock steps back */
        for (int gpu = 0; gpu < GPUS; gpu++)
            if (rnd(25)) {
                random_sample(&s, gpu, (uint64_t)t + (uint64_t)gpu, &xid[gpu]);
                ring_push(c.r, gpu, &s);
            }
        if (t + 2 * SEC >= next_eval || (step_back_at && round == step_back_at)) {
            int64_t now = t + 2 * SEC;
            window_update(&w, &src, now);
            compared += compare_at(&w, &src, lv, nl, now);
            next_eval = now + (int64_t)rnd(20) * SEC;
        }
    }
    assert_true(compared > 1000);
    window_free(&w);
    ring_free(c.r);
    ruleset_free(&rs);
}

static void test_same_as_source(void **st)
{
    (void)st;
    run(0, 4000);
}

static void test_clock_steps_back(void **st)
{
    (void)st;
    run(1500, 4000);
}

/* 150 samples (~2.5 minutes) where the rules reduce up to 10: what the ring dropped is not kept. */
static void test_short_ring(void **st)
{
    (void)st;
    run(0, 150);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_as_source),
        cmocka_unit_test(test_clock_steps_back),
        cmocka_unit_test(test_short_ring),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
