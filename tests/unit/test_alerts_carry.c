/* test_alerts_carry.c - alert state across a reload and a restart (engine_carry.c): which edits
 * keep a rule's alerts and which start it over, what receivers see (every firing alert sent as new
 * once, a dropped rule's firing alerts resolved once), and a restart's records restored within the
 * outage tolerance with Prometheus' grace period, on synthetic streams with exact timestamps. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "alerts.h"
#include "synth_source.h"

#define MIN (60LL * 1000000)
#define STEPS 300 /* minutes of samples */

/* ---- what the receivers are handed ---- */

typedef struct sent {
    char name[32], gpu[8];
    int state, changed, due;
    int64_t at, active_at, resolved_at;
} sent;

typedef struct outbox {
    sent v[2048];
    int n;
} outbox;

static void to_outbox(const alert_list *l, int64_t now_us, void *arg)
{
    outbox *o = arg;
    for (int i = 0; i < l->n && o->n < 2048; i++) {
        sent *s = &o->v[o->n++];
        memset(s, 0, sizeof *s);
        snprintf(s->name, sizeof s->name, "%s", l->v[i].alertname);
        for (int k = 0; k < l->v[i].nlabels; k++)
            if (strcmp(l->v[i].label_names[k], "gpu") == 0)
                snprintf(s->gpu, sizeof s->gpu, "%s", l->v[i].label_values[k]);
        s->state = (int)l->v[i].state;
        s->changed = l->v[i].changed;
        s->due = l->v[i].due;
        s->at = now_us;
        s->active_at = l->v[i].active_at_us;
        s->resolved_at = l->v[i].resolved_at_us;
    }
}

/* Sends of alert name (any GPU for NULL) in state, as new (changed) or any; after: from that time. */
static int count_sent(const outbox *o, const char *name, int state, int changed_only, int64_t after)
{
    int n = 0;
    for (int i = 0; i < o->n; i++)
        n += strcmp(o->v[i].name, name) == 0 && o->v[i].state == state && (!changed_only || o->v[i].changed) &&
             o->v[i].at >= after;
    return n;
}

/* ---- engines and samples ---- */

static alert_engine *load(const char *text, outbox *o)
{
    alert_engine *e = alert_engine_new();
    assert_non_null(e);
    assert_int_equal(alert_engine_load_text(e, "r.yaml", text, stderr), 0);
    alert_engine_set_listener(e, to_outbox, o);
    return e;
}

/* Two GPUs at temp(minute) from minute 0 to STEPS. */
static void fill(synth *y, double (*temp)(int minute))
{
    assert_int_equal(synth_init(y, 2, 0, MIN), 0);
    for (int m = 0; m < STEPS; m++)
        for (int g = 0; g < 2; g++)
            assert_int_equal(synth_set(y, g, m, M_TEMP_GPU, temp(m)), 0);
}

static double hot(int m)
{
    (void)m;
    return 90;
}

static double hot_then_cool(int m)
{
    return m < 6 ? 90 : 70;
}

static void eval_at(alert_engine *e, synth *y, int64_t t)
{
    sample_source src;
    synth_source(y, &src);
    assert_true(alert_engine_eval(e, &src, t, 1) >= 0);
}

/* The state of alert name on gpu ("0"), -1 when the engine holds none; its times in *active_at. */
static int state_of(alert_engine *e, const char *name, const char *gpu, int64_t *active_at)
{
    alert_list l;
    assert_int_equal(alert_engine_snapshot(e, &l), 0);
    int st = -1;
    for (int i = 0; i < l.n; i++) {
        const char *g = "";
        for (int k = 0; k < l.v[i].nlabels; k++)
            if (strcmp(l.v[i].label_names[k], "gpu") == 0)
                g = l.v[i].label_values[k];
        if (strcmp(l.v[i].alertname, name) != 0 || strcmp(g, gpu) != 0 || (st >= 0 && l.v[i].state == ALERT_INACTIVE))
            continue;
        st = (int)l.v[i].state;
        if (active_at)
            *active_at = l.v[i].active_at_us;
    }
    alert_list_free(&l);
    return st;
}

/* ---- rule files: a rule Fire that the variants edit, and two that stay ---- */

typedef struct fire_rule {
    const char *group, *interval, *alert, *cond, *for_, *labels, *more, *summary;
} fire_rule;

#define HOT85 "{metric: temperature.gpu, op: \">\", threshold: 85}"
#define SUMMARY "hot {{ $value }}"
static const fire_rule BASE = {"g", "1m", "Fire", HOT85, "2m", "{severity: warning}", "", SUMMARY};

static char *rules_text(const fire_rule *f, int with_fire, const char *added)
{
    static char buf[2048];
    int n = snprintf(buf, sizeof buf, "groups:\n- name: %s\n  interval: %s\n  rules:\n", f->group, f->interval);
    if (with_fire)
        n += snprintf(buf + n, sizeof buf - (size_t)n,
                      "  - alert: %s\n    condition: %s\n    for: %s\n    labels: %s\n"
                      "    annotations: {summary: \"%s\"}\n%s",
                      f->alert, f->cond, f->for_, f->labels, f->summary, f->more);
    snprintf(buf + n, sizeof buf - (size_t)n,
             "  - alert: Pend\n    condition: " HOT85 "\n    for: 30m\n"
             "  - alert: Other\n    condition: {metric: temperature.gpu, op: \">\", threshold: 80}\n"
             "    gpus: [0, 1]\n%s",
             added);
    return buf;
}

typedef struct variant {
    const char *what;
    fire_rule f;
    int with_fire;
    const char *added;
    double threshold; /* alerts.thresholds for Fire (NAN: none) */
    int fire_kept;    /* Fire's alerts go on */
    int group_kept;   /* Pend's and Other's go on */
    alert_carry_counts want;
} variant;

#define WARN "{severity: warning}"
static const char NEW_RULE[] = "  - alert: Added\n    condition: " HOT85 "\n";

/* One variant: what changes, the rule Fire as written then, whether Fire is in the file, a rule
 * added, alerts.thresholds for Fire, whether Fire's and the others' alerts go on, and the counts. */
#define FIRE(...)   \
    {               \
        __VA_ARGS__ \
    }
#define V(what, fire, with_fire, added, threshold, fire_kept, group_kept, ...) \
    {                                                                          \
        what, fire, with_fire, added, threshold, fire_kept, group_kept,        \
        {                                                                      \
            __VA_ARGS__                                                        \
        }                                                                      \
    }

static const variant VARIANTS[] = {
    V("nothing changed", BASE, 1, "", NAN, 1, 1, 3, 0, 0, 0, 6, 0),
    V("annotations", FIRE("g", "1m", "Fire", HOT85, "2m", WARN, "", "another summary of {{ $labels.gpu }}"), 1, "", NAN,
      1, 1, 3, 0, 0, 0, 6, 0),
    V("interval", FIRE("g", "30s", "Fire", HOT85, "2m", WARN, "", SUMMARY), 1, "", NAN, 1, 1, 3, 0, 0, 0, 6, 0),
    V("keep_firing_for", FIRE("g", "1m", "Fire", HOT85, "2m", WARN, "    keep_firing_for: 5m\n", SUMMARY), 1, "", NAN,
      1, 1, 3, 0, 0, 0, 6, 0),
    V("the same condition written otherwise",
      FIRE("g", "1m", "Fire", "{metric: temperature.gpu, reduce: last, op: \">\", threshold: 85.0}", "2m", WARN, "",
           SUMMARY),
      1, "", NAN, 1, 1, 3, 0, 0, 0, 6, 0),
    V("a rule added", BASE, 1, NEW_RULE, NAN, 1, 1, 3, 0, 1, 0, 6, 0),
    V("threshold",
      FIRE("g", "1m", "Fire", "{metric: temperature.gpu, op: \">\", threshold: 86}", "2m", WARN, "", SUMMARY), 1, "",
      NAN, 0, 1, 2, 1, 0, 0, 4, 2),
    V("operator",
      FIRE("g", "1m", "Fire", "{metric: temperature.gpu, op: \">=\", threshold: 85}", "2m", WARN, "", SUMMARY), 1, "",
      NAN, 0, 1, 2, 1, 0, 0, 4, 2),
    V("metric",
      FIRE("g", "1m", "Fire", "{metric: temperature.gpu * 1, op: \">\", threshold: 85}", "2m", WARN, "", SUMMARY), 1,
      "", NAN, 0, 1, 2, 1, 0, 0, 4, 2),
    V("window",
      FIRE("g", "1m", "Fire", "{metric: temperature.gpu, reduce: avg, window: 2m, op: \">\", threshold: 85}", "2m",
           WARN, "", SUMMARY),
      1, "", NAN, 0, 1, 2, 1, 0, 0, 4, 2),
    V("for", FIRE("g", "1m", "Fire", HOT85, "3m", WARN, "", SUMMARY), 1, "", NAN, 0, 1, 2, 1, 0, 0, 4, 2),
    V("labels", FIRE("g", "1m", "Fire", HOT85, "2m", "{severity: critical}", "", SUMMARY), 1, "", NAN, 0, 1, 2, 1, 0, 0,
      4, 2),
    V("target GPUs", FIRE("g", "1m", "Fire", HOT85, "2m", WARN, "    gpus: [0]\n", SUMMARY), 1, "", NAN, 0, 1, 2, 1, 0,
      0, 4, 2),
    V("alerts.thresholds", BASE, 1, "", 86, 0, 1, 2, 1, 0, 0, 4, 2),
    V("alert renamed", FIRE("g", "1m", "Hot", HOT85, "2m", WARN, "", SUMMARY), 1, "", NAN, 0, 1, 2, 0, 1, 1, 4, 2),
    V("rule removed", BASE, 0, "", NAN, 0, 1, 2, 0, 0, 1, 4, 2),
    V("group renamed", FIRE("h", "1m", "Fire", HOT85, "2m", WARN, "", SUMMARY), 1, "", NAN, 0, 0, 0, 0, 3, 3, 0, 4),
};

/* Evaluated at minutes 0..5 (Fire firing since 2m, Pend pending since 0, Other firing since 0), the
 * engine is rebuilt from the variant at 5m30s and evaluated on to 9m. */
static void test_reload_variants(void **st)
{
    (void)st;
    synth y;
    fill(&y, hot);
    for (size_t v = 0; v < sizeof VARIANTS / sizeof VARIANTS[0]; v++) {
        const variant *va = &VARIANTS[v];
        outbox *o = calloc(1, sizeof *o);
        alert_engine *old = load(rules_text(&BASE, 1, ""), o);
        for (int m = 0; m <= 5; m++)
            eval_at(old, &y, m * MIN);
        assert_int_equal(count_sent(o, "Fire", ALERT_FIRING, 1, 0), 2);
        alert_engine *e = load(rules_text(&va->f, va->with_fire, va->added), o);
        if (!isnan(va->threshold))
            assert_int_equal(alert_engine_set_threshold(e, "Fire", va->threshold), 1);
        int64_t reload = 5 * MIN + MIN / 2;
        alert_carry_counts c;
        assert_int_equal(alert_engine_take_over(e, old, reload, &c), 0);
        alert_engine_free(old);
        if (memcmp(&c, &va->want, sizeof c) != 0)
            fail_msg("%s: kept %d changed %d new %d removed %d alerts kept %d resolved %d", va->what, c.rules_kept,
                     c.rules_changed, c.rules_new, c.rules_removed, c.alerts_kept, c.alerts_resolved);
        for (int m = 6; m <= 9; m++)
            eval_at(e, &y, m * MIN);
        int64_t since = -1;
        const char *fire = va->f.alert;
        int now_fire = state_of(e, fire, "0", &since);
        if (va->fire_kept) {
            assert_int_equal(now_fire, ALERT_FIRING);
            assert_int_equal(since, 0); /* the same startsAt */
            if (count_sent(o, "Fire", ALERT_FIRING, 1, reload) || count_sent(o, "Fire", ALERT_INACTIVE, 0, 0))
                fail_msg("%s: Fire sent as new again, or resolved", va->what);
        } else {
            /* resolved once, at the reload, with its startsAt; the rule (if any) started over */
            if (count_sent(o, "Fire", ALERT_INACTIVE, 1, 0) != 2)
                fail_msg("%s: %d resolutions of Fire", va->what, count_sent(o, "Fire", ALERT_INACTIVE, 1, 0));
            for (int i = 0; i < o->n; i++)
                if (!strcmp(o->v[i].name, "Fire") && o->v[i].state == ALERT_INACTIVE)
                    assert_true(o->v[i].active_at == 0 && o->v[i].resolved_at == reload);
            if (va->with_fire)
                assert_true(since >= 6 * MIN);
        }
        int pend = state_of(e, "Pend", "1", &since);
        assert_int_equal(pend, ALERT_PENDING);
        assert_int_equal(since, va->group_kept ? 0 : 6 * MIN);
        assert_int_equal(state_of(e, "Other", "1", &since), ALERT_FIRING);
        assert_int_equal(since, va->group_kept ? 0 : 6 * MIN);
        alert_engine_free(e);
        free(o);
    }
    synth_free(&y);
}

/* A reload of the same rules changes nothing the receivers see: the same sends, at the same times,
 * with the same startsAt, as without reloads, whatever minutes the reloads fall on. */
static void test_reloads_invisible(void **st)
{
    (void)st;
    synth y;
    fill(&y, hot_then_cool);
    const char *text = rules_text(&BASE, 1, "");
    outbox *plain = calloc(1, sizeof *plain);
    alert_engine *e = load(text, plain);
    for (int m = 0; m <= 30; m++)
        eval_at(e, &y, m * MIN);
    alert_engine_free(e);
    static const unsigned schedules[] = {0x7ffffffe, 0x4, 0x8, 0x20, 0x1554, 0x2aaa8, 0x40000000};
    for (size_t k = 0; k < sizeof schedules / sizeof schedules[0]; k++) {
        outbox *o = calloc(1, sizeof *o);
        e = load(text, o);
        for (int m = 0; m <= 30; m++) {
            if (schedules[k] & (1u << m)) { /* a reload just before this minute's evaluation */
                alert_engine *fresh = load(text, o);
                alert_carry_counts c;
                assert_int_equal(alert_engine_take_over(fresh, e, m * MIN - 1, &c), 0);
                assert_int_equal(c.rules_kept, 3);
                alert_engine_free(e);
                e = fresh;
            }
            eval_at(e, &y, m * MIN);
        }
        if (o->n != plain->n)
            fail_msg("schedule %#x: %d sends, %d without reloads", schedules[k], o->n, plain->n);
        for (int i = 0; i < o->n; i++)
            assert_memory_equal(&o->v[i], &plain->v[i], sizeof o->v[i]);
        assert_int_equal(count_sent(o, "Fire", ALERT_FIRING, 1, 0), 2);
        assert_int_equal(count_sent(o, "Fire", ALERT_INACTIVE, 1, 0), 2);
        alert_engine_free(e);
        free(o);
    }
    free(plain);
    synth_free(&y);
}

/* ---- a restart ---- */

/* The records of an engine on rules text evaluated at minutes 0..last. */
static void records_after(const char *text, synth *y, int last, alert_records *out)
{
    outbox *o = calloc(1, sizeof *o);
    alert_engine *e = load(text, o);
    for (int m = 0; m <= last; m++)
        eval_at(e, y, m * MIN);
    assert_int_equal(alert_engine_records(e, out), 0);
    alert_engine_free(e);
    free(o);
}

/* Down for a while after 5m (the records of 0..5m): within the hour, Fire goes on firing with its
 * startsAt and is not sent as new, Pend keeps its 5 minutes; beyond, Fire resolves once and every
 * rule starts over. */
static void test_restart_tolerance(void **st)
{
    (void)st;
    synth y;
    fill(&y, hot);
    const char *text = rules_text(&BASE, 1, "");
    alert_records saved;
    records_after(text, &y, 5, &saved);
    assert_int_equal(saved.nalerts, 6);
    static const int64_t downs[] = {30 * 1000000LL, 4 * MIN, 59 * MIN, 61 * MIN, 180 * MIN};
    for (size_t k = 0; k < sizeof downs / sizeof downs[0]; k++) {
        int64_t now = 5 * MIN + downs[k];
        int within = downs[k] < 60 * MIN;
        outbox *o = calloc(1, sizeof *o);
        alert_engine *e = load(text, o);
        alert_restore how = {now, 5 * MIN, 60 * MIN, 10 * MIN};
        alert_restore_counts c;
        assert_int_equal(alert_engine_restore(e, &saved, &how, &c), 0);
        assert_int_equal(c.too_long, !within);
        assert_int_equal(c.firing, within ? 4 : 0);
        assert_int_equal(c.pending, within ? 2 : 0);
        assert_int_equal(c.resolved, within ? 0 : 4);
        assert_int_equal(c.dropped, within ? 0 : 2);
        int64_t since = -1, fired_pend = -1;
        for (int m = 0; m <= 40; m++) {
            int64_t t = now + m * MIN;
            eval_at(e, &y, t);
            if (m == 0)
                assert_int_equal(state_of(e, "Fire", "0", &since), within ? ALERT_FIRING : ALERT_PENDING);
            if (fired_pend < 0 && state_of(e, "Pend", "0", NULL) == ALERT_FIRING)
                fired_pend = t;
        }
        if (within) {
            assert_int_equal(since, 0);
            assert_int_equal(count_sent(o, "Fire", ALERT_FIRING, 1, 0), 0);
            assert_int_equal(count_sent(o, "Fire", ALERT_INACTIVE, 0, 0), 0);
            /* pending 5 minutes before the outage: 25 more after it (more than the grace period) */
            assert_int_equal(fired_pend, now + 25 * MIN);
        } else {
            assert_int_equal(since, now);
            assert_int_equal(count_sent(o, "Fire", ALERT_INACTIVE, 1, 0), 2); /* resolved once ... */
            assert_int_equal(count_sent(o, "Fire", ALERT_FIRING, 1, 0), 2);   /* ... and new ones fired */
            for (int i = 0; i < o->n; i++)
                if (!strcmp(o->v[i].name, "Fire") && o->v[i].changed)
                    assert_int_equal(o->v[i].active_at, o->v[i].state == ALERT_INACTIVE ? 0 : now);
            assert_int_equal(fired_pend, now + 30 * MIN);
        }
        alert_engine_free(e);
        free(o);
    }
    alert_records_free(&saved);
    synth_free(&y);
}

/* A firing alert whose condition stopped holding while the agent was down resolves once, at the
 * first evaluation; one whose rule changed meanwhile resolves once too, and the rule starts over. */
static void test_restart_resolves_once(void **st)
{
    (void)st;
    synth hot_y, cool_y;
    fill(&hot_y, hot);
    fill(&cool_y, hot_then_cool);
    alert_records saved;
    records_after(rules_text(&BASE, 1, ""), &hot_y, 5, &saved);
    for (int changed = 0; changed < 2; changed++) {
        fire_rule f = BASE;
        f.for_ = changed ? "3m" : "2m";
        outbox *o = calloc(1, sizeof *o);
        alert_engine *e = load(rules_text(&f, 1, ""), o);
        alert_restore how = {8 * MIN, 5 * MIN, 60 * MIN, 10 * MIN};
        alert_restore_counts c;
        assert_int_equal(alert_engine_restore(e, &saved, &how, &c), 0);
        assert_int_equal(c.firing, changed ? 2 : 4);
        assert_int_equal(c.resolved, changed ? 2 : 0);
        for (int m = 8; m <= 20; m++)
            eval_at(e, changed ? &hot_y : &cool_y, m * MIN);
        assert_int_equal(count_sent(o, "Fire", ALERT_INACTIVE, 1, 0), 2);
        for (int i = 0; i < o->n; i++)
            if (!strcmp(o->v[i].name, "Fire") && o->v[i].changed && o->v[i].state == ALERT_INACTIVE)
                assert_true(o->v[i].active_at == 0 && o->v[i].at == 8 * MIN);
        assert_int_equal(count_sent(o, "Fire", ALERT_FIRING, 1, 0), changed ? 2 : 0);
        assert_int_equal(count_sent(o, "Other", ALERT_INACTIVE, 1, 0), changed ? 0 : 2);
        alert_engine_free(e);
        free(o);
    }
    alert_records_free(&saved);
    synth_free(&hot_y);
    synth_free(&cool_y);
}

/* A pending alert after a restart needs what was left of its for, and at least the grace period
 * (or its for, if shorter): a family over for, time pending, outage and grace. */
static int hot_from; /* the minute the GPUs get hot */
static double hot_later(int m)
{
    return m < hot_from ? 70 : 90;
}

static void test_restart_pending_grace(void **st)
{
    (void)st;
    static const int fors[] = {2, 30}, spents[] = {0, 1, 5, 29}, downs[] = {1, 20}, graces[] = {0, 10};
    for (size_t a = 0; a < 2; a++)
        for (size_t b = 0; b < 4; b++)
            for (size_t d = 0; d < 2; d++)
                for (size_t g = 0; g < 2; g++) {
                    int fmin = fors[a], spent = spents[b], last = 40;
                    if (spent >= fmin)
                        continue;
                    hot_from = last - spent;
                    char text[256];
                    snprintf(text, sizeof text,
                             "groups:\n- name: g\n  rules:\n  - alert: P\n    condition: " HOT85 "\n    for: %dm\n",
                             fmin);
                    synth y;
                    fill(&y, hot_later);
                    alert_records saved;
                    records_after(text, &y, last, &saved);
                    assert_int_equal(saved.nalerts, 2);
                    int64_t now = (last + downs[d]) * MIN;
                    outbox *o = calloc(1, sizeof *o);
                    alert_engine *e = load(text, o);
                    alert_restore how = {now, last * MIN, 60 * MIN, graces[g] * MIN};
                    alert_restore_counts c;
                    assert_int_equal(alert_engine_restore(e, &saved, &how, &c), 0);
                    assert_int_equal(c.pending, 2);
                    int least = graces[g] < fmin ? graces[g] : fmin, wait = fmin - spent > least ? fmin - spent : least;
                    int64_t fired = -1;
                    for (int m = 0; m <= 40 && fired < 0; m++) {
                        eval_at(e, &y, now + m * MIN);
                        if (state_of(e, "P", "0", NULL) == ALERT_FIRING)
                            fired = now + m * MIN;
                    }
                    if (fired != now + wait * MIN)
                        fail_msg("for %dm, pending %dm, down %dm, grace %dm: fired %lld min after the restart, not %d",
                                 fmin, spent, downs[d], graces[g], (long long)((fired - now) / MIN), wait);
                    alert_engine_free(e);
                    free(o);
                    alert_records_free(&saved);
                    synth_free(&y);
                }
}

/* Findings restored with the alerts: they count until the diagnosis reports them again, or clears
 * them, or the grace period ends. */
static void test_restart_findings(void **st)
{
    (void)st;
    const char *text = "groups:\n- name: g\n  rules:\n  - alert: Stall\n    condition: {metric: finding.thermal, op: "
                       "\">=\", threshold: 2}\n";
    synth y;
    fill(&y, hot);
    outbox *o0 = calloc(1, sizeof *o0);
    alert_engine *before = load(text, o0);
    assert_int_equal(alert_engine_set_finding(before, 0, "thermal", 3), 0);
    for (int m = 0; m <= 2; m++)
        eval_at(before, &y, m * MIN);
    alert_records saved;
    assert_int_equal(alert_engine_records(before, &saved), 0);
    assert_int_equal(saved.nfindings, 1);
    alert_engine_free(before);
    free(o0);
    /* 0: the diagnosis finds it again at 5m; 1: it never does; 2: it reports it cleared at 5m */
    static const int64_t resolved_at[] = {-1, 13 * MIN, 5 * MIN};
    for (int k = 0; k < 3; k++) {
        outbox *o = calloc(1, sizeof *o);
        alert_engine *e = load(text, o);
        alert_restore how = {3 * MIN, 2 * MIN, 60 * MIN, 10 * MIN};
        alert_restore_counts c;
        assert_int_equal(alert_engine_restore(e, &saved, &how, &c), 0);
        assert_int_equal(c.findings, 1);
        assert_int_equal(c.firing, 1);
        for (int m = 3; m <= 30; m++) {
            if (m == 5 && k != 1)
                assert_int_equal(alert_engine_set_finding(e, 0, "thermal", k == 0 ? 3 : 0), 0);
            eval_at(e, &y, m * MIN);
        }
        assert_int_equal(count_sent(o, "Stall", ALERT_FIRING, 1, 0), 0);
        assert_int_equal(count_sent(o, "Stall", ALERT_INACTIVE, 1, 0), k == 0 ? 0 : 1);
        for (int i = 0; i < o->n; i++)
            if (o->v[i].changed)
                assert_int_equal(o->v[i].resolved_at, resolved_at[k]);
        alert_engine_free(e);
        free(o);
    }
    alert_records_free(&saved);
    synth_free(&y);
}

/* Records that cannot be an alert are counted and left out; the others are restored. */
static void test_restart_invalid_records(void **st)
{
    (void)st;
    synth y;
    fill(&y, hot);
    const char *text = rules_text(&BASE, 1, "");
    alert_records saved;
    records_after(text, &y, 5, &saved);
    static const char *const bad[] = {"{", "[]", "{\"alertname\": 1}", "{}", "{\"gpu\": \"0\"}", "", "null"};
    int nbad = (int)(sizeof bad / sizeof bad[0]);
    alert_record *all = calloc((size_t)(saved.nalerts + nbad), sizeof *all);
    memcpy(all, saved.alerts, (size_t)saved.nalerts * sizeof *all);
    for (int i = 0; i < nbad; i++) {
        all[saved.nalerts + i] = saved.alerts[0];
        all[saved.nalerts + i].labels = (char *)bad[i];
    }
    alert_records mixed = {all, saved.nalerts + nbad, NULL, 0};
    outbox *o = calloc(1, sizeof *o);
    alert_engine *e = load(text, o);
    alert_restore how = {6 * MIN, 5 * MIN, 60 * MIN, 10 * MIN};
    alert_restore_counts c;
    assert_int_equal(alert_engine_restore(e, &mixed, &how, &c), 0);
    assert_int_equal(c.invalid, nbad);
    assert_int_equal(c.firing + c.pending, saved.nalerts);
    eval_at(e, &y, 6 * MIN);
    assert_int_equal(count_sent(o, "Fire", ALERT_FIRING, 1, 0), 0);
    alert_engine_free(e);
    free(o);
    free(all);
    alert_records_free(&saved);
    synth_free(&y);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reload_variants),         cmocka_unit_test(test_reloads_invisible),
        cmocka_unit_test(test_restart_tolerance),       cmocka_unit_test(test_restart_resolves_once),
        cmocka_unit_test(test_restart_pending_grace),   cmocka_unit_test(test_restart_findings),
        cmocka_unit_test(test_restart_invalid_records),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
