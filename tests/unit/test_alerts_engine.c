/* test_alerts_engine.c - the alert engine on synthetic streams with synthetic timestamps:
 * exact pending/firing/resolved times, each reduce, combined conditions, ratios, absent data. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include "alerts.h"
#include "synth_source.h"
#include "util.h"

#define MIN (60LL * 1000000)

static alert_engine *engine_with(const char *yaml)
{
    alert_engine *e = alert_engine_new();
    assert_int_equal(alert_engine_load_text(e, "t.yaml", yaml, stderr), 0);
    return e;
}

/* State of the alert (alertname, gpu) now: -1 when the engine holds none. */
static int state_of(alert_engine *e, const char *name, const char *gpu, alert_view *copy)
{
    alert_list l;
    alert_engine_snapshot(e, &l);
    int st = -1;
    for (int i = 0; i < l.n; i++) {
        const char *g = "";
        for (int k = 0; k < l.v[i].nlabels; k++)
            if (strcmp(l.v[i].label_names[k], "gpu") == 0)
                g = l.v[i].label_values[k];
        if (strcmp(l.v[i].alertname, name) == 0 && strcmp(g, gpu) == 0) {
            st = (int)l.v[i].state;
            if (copy) {
                *copy = l.v[i];
                memset(&l.v[i], 0, sizeof l.v[i]);
            }
        }
    }
    alert_list_free(&l);
    return st;
}

/* Evaluates at every minute 0..last and writes the state after each into states[]. */
static void run_minutes(alert_engine *e, synth *y, int last, int *states, const char *name)
{
    sample_source src;
    synth_source(y, &src);
    for (int m = 0; m <= last; m++) {
        alert_engine_eval(e, &src, m * MIN, 1);
        states[m] = state_of(e, name, "0", NULL);
    }
}

static void temps(synth *y, const double *v, int n)
{
    for (int k = 0; k < n; k++)
        if (!isnan(v[k]))
            synth_set(y, 0, k, M_TEMP_GPU, v[k]);
}

#define NONE -1
#define PEND ALERT_PENDING
#define FIRE ALERT_FIRING
#define RESV ALERT_INACTIVE

static const char *hot_rule(const char *extra)
{
    static char buf[512];
    snprintf(buf, sizeof buf,
             "groups:\n- name: g\n  rules:\n  - alert: Hot\n    condition: {metric: temperature.gpu, op: \">\", "
             "threshold: 85}\n%s",
             extra);
    return buf;
}

static void test_for_duration(void **st)
{
    (void)st;
    alert_engine *e = engine_with(hot_rule("    for: 3m\n"));
    synth y;
    synth_init(&y, 1, 0, MIN);
    double v[] = {80, 80, 90, 90, 90, 90, 90, 80, 80, 80, 80, 80, 80, 80, 80, 80, 80, 80, 80, 80, 80, 80, 80, 80, 80};
    temps(&y, v, 25);
    int s[25];
    run_minutes(e, &y, 24, s, "Hot");
    int want[25] = {NONE, NONE, PEND, PEND, PEND, FIRE, FIRE, RESV, RESV, RESV, RESV, RESV, RESV,
                    RESV, RESV, RESV, RESV, RESV, RESV, RESV, RESV, RESV, RESV, NONE, NONE};
    for (int m = 0; m < 25; m++) {
        if (s[m] != want[m])
            fail_msg("minute %d: state %d, want %d", m, s[m], want[m]);
    }
    alert_engine_free(e);
    synth_free(&y);
}

static void test_for_zero_and_times(void **st)
{
    (void)st;
    alert_engine *e = engine_with(hot_rule(""));
    synth y;
    synth_init(&y, 1, 0, MIN);
    double v[] = {80, 80, 90, 90, 80};
    temps(&y, v, 5);
    int s[5];
    sample_source src;
    synth_source(&y, &src);
    alert_view a;
    for (int m = 0; m <= 4; m++) {
        alert_engine_eval(e, &src, m * MIN, 1);
        s[m] = state_of(e, "Hot", "0", m == 4 ? &a : NULL);
    }
    assert_int_equal(s[1], NONE);
    assert_int_equal(s[2], FIRE);
    assert_int_equal(s[3], FIRE);
    assert_int_equal(s[4], RESV);
    assert_int_equal(a.active_at_us, 2 * MIN);
    assert_int_equal(a.fired_at_us, 2 * MIN);
    assert_int_equal(a.resolved_at_us, 4 * MIN);
    alert_view_free(&a);
    alert_engine_free(e);
    synth_free(&y);
}

static void test_keep_firing_for(void **st)
{
    (void)st;
    alert_engine *e = engine_with(hot_rule("    keep_firing_for: 2m\n"));
    synth y;
    synth_init(&y, 1, 0, MIN);
    double v[] = {90, 90, 80, 80, 80, 90, 80, 80, 80, 80};
    temps(&y, v, 10);
    int s[10];
    run_minutes(e, &y, 9, s, "Hot");
    /* false at 2: kept at 2 and 3, resolved at 4; true at 5 again: fires (new alert); kept 6, 7; resolved 8. */
    int want[10] = {FIRE, FIRE, FIRE, FIRE, RESV, FIRE, FIRE, FIRE, RESV, RESV};
    for (int m = 0; m < 10; m++)
        if (s[m] != want[m])
            fail_msg("minute %d: state %d, want %d", m, s[m], want[m]);
    alert_engine_free(e);
    synth_free(&y);
}

static void test_pending_reset(void **st)
{
    (void)st;
    alert_engine *e = engine_with(hot_rule("    for: 2m\n"));
    synth y;
    synth_init(&y, 1, 0, MIN);
    double v[] = {90, 90, 80, 90, 90, 90};
    temps(&y, v, 6);
    int s[6];
    run_minutes(e, &y, 5, s, "Hot");
    int want[6] = {PEND, PEND, NONE, PEND, PEND, FIRE};
    for (int m = 0; m < 6; m++)
        if (s[m] != want[m])
            fail_msg("minute %d: state %d, want %d", m, s[m], want[m]);
    alert_engine_free(e);
    synth_free(&y);
}

/* value of a rule "reduce over 5m of temperature.gpu > -1e9" at 10m, with temperature = f(minute). */
static double reduced(const char *reduce, const double *v, int n)
{
    char yaml[512];
    snprintf(yaml, sizeof yaml,
             "groups:\n- name: g\n  rules:\n  - alert: R\n    condition: {metric: temperature.gpu, reduce: %s, window: "
             "5m, op: \">\", threshold: -1e9}\n",
             reduce);
    alert_engine *e = engine_with(yaml);
    synth y;
    synth_init(&y, 1, 0, MIN);
    temps(&y, v, n);
    sample_source src;
    synth_source(&y, &src);
    alert_engine_eval(e, &src, 10 * MIN, 1);
    alert_view a;
    double out = NAN;
    if (state_of(e, "R", "0", &a) == FIRE) {
        out = a.value;
        alert_view_free(&a);
    }
    alert_engine_free(e);
    synth_free(&y);
    return out;
}

static void test_reduces(void **st)
{
    (void)st;
    double v[11];
    for (int k = 0; k <= 10; k++)
        v[k] = k; /* window (5m, 10m]: 6 7 8 9 10 */
    assert_float_equal(reduced("last", v, 11), 10, 1e-9);
    assert_float_equal(reduced("avg", v, 11), 8, 1e-9);
    assert_float_equal(reduced("min", v, 11), 6, 1e-9);
    assert_float_equal(reduced("max", v, 11), 10, 1e-9);
    assert_float_equal(reduced("p95", v, 11), 9.8, 1e-9);
    assert_float_equal(reduced("increase", v, 11), 4, 1e-9);
    assert_float_equal(reduced("rate", v, 11), 4.0 / 240, 1e-12);
    assert_float_equal(reduced("changes", v, 11), 4, 1e-9);
    double reset[11] = {0, 0, 0, 0, 0, 0, 10, 20, 5, 15, 15}; /* counter restarted at 8m */
    assert_float_equal(reduced("increase", reset, 11), 10 + 5 + 10, 1e-9);
    assert_float_equal(reduced("changes", reset, 11), 3, 1e-9);
    double one[11] = {NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, 7};
    assert_true(isnan(reduced("increase", one, 11))); /* one sample: no increase */
    assert_float_equal(reduced("avg", one, 11), 7, 1e-9);
}

static void test_combined_and_ratio(void **st)
{
    (void)st;
    alert_engine *e = engine_with(
        "groups:\n- name: g\n  rules:\n"
        "  - alert: BusyLowPower\n    all:\n"
        "    - {metric: utilization.gpu, op: \">\", threshold: 90}\n"
        "    - {metric: power.draw / power.limit, op: \"<\", threshold: 0.4}\n"
        "  - alert: AnyHot\n    any:\n"
        "    - {metric: temperature.gpu, op: \">\", threshold: 85}\n"
        "    - {metric: temperature.memory, op: \">\", threshold: 95}\n"
        "  - alert: MemFull\n    condition: {metric: memory.used / memory.total, op: \">\", threshold: 0.95}\n"
        "  - alert: OverLimit\n    condition: {metric: power.draw, op: \">=\", threshold: power.limit}\n"
        "  - alert: Headroom\n    condition: {metric: memory.total - memory.used, op: \"<\", threshold: 500}\n");
    synth y;
    synth_init(&y, 2, 0, MIN);
    /* gpu 0: busy at low power, HBM hot, memory 7700/8000, at its power limit. */
    synth_set(&y, 0, 0, M_UTIL_GPU, 95);
    synth_set(&y, 0, 0, M_POWER_DRAW, 100);
    synth_set(&y, 0, 0, M_POWER_LIMIT, 300);
    synth_set(&y, 0, 0, M_TEMP_GPU, 60);
    synth_set(&y, 0, 0, M_TEMP_MEMORY, 99);
    synth_set(&y, 0, 0, M_MEM_USED, 7700);
    synth_set(&y, 0, 0, M_MEM_TOTAL, 8000);
    /* gpu 1: busy, no power reading (unknown), cool, no HBM sensor, memory 1000/8000. */
    synth_set(&y, 1, 0, M_UTIL_GPU, 95);
    synth_set(&y, 1, 0, M_POWER_LIMIT, 300);
    synth_set(&y, 1, 0, M_TEMP_GPU, 60);
    synth_set(&y, 1, 0, M_MEM_USED, 1000);
    synth_set(&y, 1, 0, M_MEM_TOTAL, 8000);
    sample_source src;
    synth_source(&y, &src);
    alert_engine_eval(e, &src, 0, 1);
    alert_view a;
    assert_int_equal(state_of(e, "BusyLowPower", "0", &a), FIRE);
    assert_float_equal(a.value, 95, 1e-9); /* $value: the first condition's */
    alert_view_free(&a);
    assert_int_equal(state_of(e, "BusyLowPower", "1", NULL), NONE); /* power absent: unknown */
    assert_int_equal(state_of(e, "AnyHot", "0", &a), FIRE);
    assert_float_equal(a.value, 99, 1e-9);
    alert_view_free(&a);
    assert_int_equal(state_of(e, "AnyHot", "1", NULL), NONE);
    assert_int_equal(state_of(e, "MemFull", "0", &a), FIRE);
    assert_float_equal(a.value, 0.9625, 1e-9);
    alert_view_free(&a);
    assert_int_equal(state_of(e, "MemFull", "1", NULL), NONE);
    assert_int_equal(state_of(e, "OverLimit", "0", NULL), NONE);
    assert_int_equal(state_of(e, "OverLimit", "1", NULL), NONE); /* no power.draw */
    assert_int_equal(state_of(e, "Headroom", "0", &a), FIRE);
    assert_float_equal(a.value, 300, 1e-9);
    alert_view_free(&a);
    alert_engine_free(e);
    synth_free(&y);
}

static void test_absent_data(void **st)
{
    (void)st;
    alert_engine *e = engine_with(hot_rule(""));
    synth y;
    synth_init(&y, 1, 0, MIN);
    double v[] = {90, 90, 90, 90};
    temps(&y, v, 4);
    for (int k = 4; k <= 10; k++) /* samples go on, without a temperature */
        synth_set(&y, 0, k, M_UTIL_GPU, 50);
    int s[11];
    run_minutes(e, &y, 10, s, "Hot");
    /* the last reading (3m) counts for 5 minutes: still firing at 7m, resolved at 8m. */
    int want[11] = {FIRE, FIRE, FIRE, FIRE, FIRE, FIRE, FIRE, FIRE, RESV, RESV, RESV};
    for (int m = 0; m < 11; m++)
        if (s[m] != want[m])
            fail_msg("minute %d: state %d, want %d", m, s[m], want[m]);
    alert_engine_free(e);
    synth_free(&y);
}

static void test_lost_and_stale(void **st)
{
    (void)st;
    alert_engine *e = engine_with("groups:\n- name: g\n  rules:\n"
                                  "  - alert: Lost\n    condition: {metric: gpu.lost, op: \"==\", threshold: 1}\n"
                                  "  - alert: Stale\n    condition: {metric: sample.age, op: \">\", threshold: 120}\n");
    synth y;
    synth_init(&y, 2, 0, MIN);
    for (int k = 0; k <= 2; k++)
        synth_set(&y, 0, k, M_TEMP_GPU, 50);
    synth_status(&y, 0, 3, GPU_LOST);
    for (int k = 0; k <= 1; k++)
        synth_set(&y, 1, k, M_TEMP_GPU, 50); /* gpu 1 stops at 1m */
    sample_source src;
    synth_source(&y, &src);
    int lost[6], stale[6];
    for (int m = 0; m <= 5; m++) {
        alert_engine_eval(e, &src, m * MIN, 1);
        lost[m] = state_of(e, "Lost", "0", NULL);
        stale[m] = state_of(e, "Stale", "1", NULL);
    }
    assert_int_equal(lost[2], NONE);
    assert_int_equal(lost[3], FIRE);
    assert_int_equal(stale[3], NONE); /* 120 s is not > 120 */
    assert_int_equal(stale[4], FIRE);
    alert_engine_free(e);
    synth_free(&y);
}

static void test_process_scope_and_gpus(void **st)
{
    (void)st;
    alert_engine *e = engine_with(
        "groups:\n- name: g\n  rules:\n"
        "  - alert: BigProc\n    scope: process\n    gpus: [1]\n"
        "    condition: {metric: process.memory, op: \">\", threshold: 20000}\n"
        "    annotations: {summary: \"{{ $labels.command }} ({{ $labels.user }}) holds {{ $value }} MiB\"}\n"
        "  - alert: IdleHeld\n    all:\n"
        "    - {metric: utilization.gpu, op: \"<\", threshold: 5}\n"
        "    - {metric: processes.memory, op: \">\", threshold: 0}\n");
    synth y;
    synth_init(&y, 2, 0, MIN);
    synth_set(&y, 0, 0, M_UTIL_GPU, 0);
    synth_set(&y, 1, 0, M_UTIL_GPU, 0);
    synth_proc *p0 = synth_proc_get(&y, 0, 7, "python3", "bob");
    synth_proc_set(&y, p0, 0, 0, 30000);
    synth_proc *p1 = synth_proc_get(&y, 1, 42, "train.py", "alice");
    synth_proc_set(&y, p1, 0, 0, 30000);
    synth_proc *p2 = synth_proc_get(&y, 1, 43, "small", "alice");
    synth_proc_set(&y, p2, 0, 0, 100);
    sample_source src;
    synth_source(&y, &src);
    alert_engine_eval(e, &src, 0, 1);
    alert_list l;
    alert_engine_snapshot(e, &l);
    int big = 0, idle = 0;
    for (int i = 0; i < l.n; i++) {
        alert_view *v = &l.v[i];
        if (strcmp(v->alertname, "BigProc") == 0) {
            big++;
            char lab[512] = "";
            for (int k = 0; k < v->nlabels; k++)
                snprintf(lab + strlen(lab), sizeof lab - strlen(lab), "%s=%s,", v->label_names[k], v->label_values[k]);
            assert_string_equal(lab, "alertname=BigProc,command=train.py,gpu=1,pid=42,user=alice,");
            assert_string_equal(v->annotation_values[0], "train.py (alice) holds 30000 MiB");
        }
        idle += strcmp(v->alertname, "IdleHeld") == 0;
    }
    assert_int_equal(big, 1);
    assert_int_equal(idle, 2);
    alert_list_free(&l);
    alert_engine_free(e);
    synth_free(&y);
}

typedef struct {
    int calls;
    int64_t t[16];
    int changed[16], due[16], state[16];
    int64_t ends[16];
} recorder;

static void record(const alert_list *l, int64_t now, void *arg)
{
    recorder *r = arg;
    for (int i = 0; i < l->n && r->calls < 16; i++, r->calls++) {
        r->t[r->calls] = now;
        r->changed[r->calls] = l->v[i].changed;
        r->due[r->calls] = l->v[i].due;
        r->state[r->calls] = l->v[i].state;
        r->ends[r->calls] = l->v[i].ends_at_us;
    }
}

static void test_resend_and_ends_at(void **st)
{
    (void)st;
    alert_engine *e = engine_with(hot_rule(""));
    recorder r = {0};
    alert_engine_set_listener(e, record, &r);
    synth y;
    synth_init(&y, 1, 0, MIN);
    double v[] = {90, 90, 90, 80, 80, 80};
    temps(&y, v, 6);
    int s[6];
    run_minutes(e, &y, 5, s, "Hot");
    /* 0: fires, sent (endsAt 4m); 1: not due (1m is not past the resend delay); 2: resent;
     * 3: resolved, sent with endsAt = 3m; 5: resent (resolved, kept 15 minutes). */
    assert_int_equal(r.calls, 4);
    assert_int_equal(r.t[0], 0);
    assert_true(r.changed[0] && r.due[0] && r.state[0] == FIRE);
    assert_int_equal(r.ends[0], 4 * MIN);
    assert_int_equal(r.t[1], 2 * MIN);
    assert_true(!r.changed[1] && r.due[1]);
    assert_int_equal(r.ends[1], 6 * MIN);
    assert_int_equal(r.t[2], 3 * MIN);
    assert_true(r.changed[2] && r.due[2] && r.state[2] == RESV);
    assert_int_equal(r.ends[2], 3 * MIN);
    assert_int_equal(r.t[3], 5 * MIN);
    assert_true(!r.changed[3] && r.due[3]);
    assert_int_equal(r.ends[3], 3 * MIN);
    alert_engine_free(e);
    synth_free(&y);
}

static void test_group_interval_and_metrics(void **st)
{
    (void)st;
    alert_engine *e = engine_with(
        "groups:\n- name: fast\n  interval: 10s\n  rules:\n"
        "  - alert: Hot\n    condition: {metric: temperature.gpu, op: \">\", threshold: 85}\n    labels: {severity: "
        "warning}\n"
        "- name: slow\n  interval: 1m\n  rules:\n"
        "  - alert: Hot2\n    condition: {metric: temperature.gpu, op: \">\", threshold: 85}\n    for: 1m\n");
    synth y;
    synth_init(&y, 1, 0, 10 * 1000000LL);
    for (int k = 0; k < 20; k++)
        synth_set(&y, 0, k, M_TEMP_GPU, 90);
    sample_source src;
    synth_source(&y, &src);
    int evals = 0;
    for (int64_t t = 0; t <= 60 * 1000000LL; t += 10 * 1000000LL)
        evals += alert_engine_eval(e, &src, t, 0);
    assert_int_equal(evals, 7 + 2); /* fast at every 10 s, slow at 0 and 60 s */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    alert_engine_write_metrics(e, f);
    fclose(f);
    assert_non_null(
        strstr(buf, "gpuwatch_alert{alertname=\"Hot\",gpu=\"0\",severity=\"warning\",alertstate=\"firing\"} 1\n"));
    assert_non_null(
        strstr(buf, "gpuwatch_alert{alertname=\"Hot2\",gpu=\"0\",severity=\"\",alertstate=\"firing\"} 1\n"));
    free(buf);
    char *json = alert_engine_json(e);
    assert_non_null(strstr(json, "\"state\":\"firing\""));
    assert_non_null(strstr(json, "\"activeAt\":\"1970-01-01T00:00:00.000Z\""));
    free(json);
    alert_engine_free(e);
    synth_free(&y);
}

int main(void)
{
    gw_log_set_level(GW_LOG_ERROR);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_for_duration),
        cmocka_unit_test(test_for_zero_and_times),
        cmocka_unit_test(test_keep_firing_for),
        cmocka_unit_test(test_pending_reset),
        cmocka_unit_test(test_reduces),
        cmocka_unit_test(test_combined_and_ratio),
        cmocka_unit_test(test_absent_data),
        cmocka_unit_test(test_lost_and_stale),
        cmocka_unit_test(test_process_scope_and_gpus),
        cmocka_unit_test(test_resend_and_ends_at),
        cmocka_unit_test(test_group_interval_and_metrics),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
