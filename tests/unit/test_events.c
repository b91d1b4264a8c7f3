/* test_events.c - the typed events (core/event.h): the one derivation from a GPU's samples against
 * its documented rules over families of random sample series (losses, read errors, counters that
 * grow, reset or go missing, XIDs told only by xid.last, throttle reasons flipping); the diagnosis
 * window derives the same events; copies own what they point to; and the history's text of each
 * kind is the text its file always held, read back into the same typed event. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "diag_window.h"
#include "event.h"
#include "hist_internal.h"
#include "history_read.h"
#include "util.h"

#define STEPS 400
#define MAX_EVENTS 4096
#define T0 1700000000000000ull

typedef struct series {
    gpu_sample s[STEPS];
    int n;
} series;

typedef struct got {
    gw_event ev[MAX_EVENTS];
    int n;
} got;

static void collect(const gw_event *ev, void *arg)
{
    got *g = arg;
    assert_true(g->n < MAX_EVENTS);
    g->ev[g->n++] = *ev;
}

/* A GPU's samples, 10 s apart: mostly good, lost and failed reads in runs; xid.count growing by
 * bursts, reset now and then, sometimes absent (then xid.last alone tells a new XID); ECC counters
 * growing; throttle reasons flipping. */
static void make_series(series *z, unsigned seed)
{
    srand(seed);
    double count = rand() % 5, last = 0, dbe = 0, agg = 0;
    uint64_t reasons = 0;
    static const double xids[] = {13, 31, 48, 63, 79, 94, 119};
    gpu_status st = GPU_OK;
    for (int i = 0; i < STEPS; i++) {
        gpu_sample *s = &z->s[i];
        memset(s, 0, sizeof *s);
        s->t_us = T0 + (uint64_t)i * 10000000u;
        int r = rand() % 100;
        if (r < 8)
            st = st == GPU_OK ? (rand() % 2 ? GPU_LOST : GPU_ERROR) : GPU_OK; /* runs of each */
        s->status = st;
        if (rand() % 10 == 0) { /* new XIDs */
            count += 1 + rand() % 3;
            last = xids[rand() % 7];
        }
        if (rand() % 60 == 0)
            count = 0; /* a driver reload */
        if (rand() % 15 == 0)
            dbe += 1 + rand() % 4, agg += 1;
        if (rand() % 8 == 0)
            reasons ^= 1ull << (rand() % 9);
        if (st != GPU_OK)
            continue;
        if (rand() % 10)
            sample_set(s, M_XID_COUNT, count);
        if (rand() % 10)
            sample_set(s, M_XID_LAST, last);
        if (rand() % 4)
            sample_set(s, M_ECC_DBE_VOL, dbe);
        sample_set(s, M_ECC_DBE_AGG, agg);
        if (rand() % 12)
            sample_set(s, M_CER_ACTIVE, (double)reasons);
    }
    z->n = STEPS;
}

static double val(const gpu_sample *s, metric_id id)
{
    double v;
    return sample_get(s, id, &v) ? v : NAN;
}

static void expect(got *want, event_kind k, const gpu_sample *s, int code, int count, metric_id reason)
{
    gw_event ev = {.kind = k, .t_us = s->t_us, .gpu = 3};
    if (k == EV_XID)
        ev.xid.code = code, ev.xid.count = count;
    if (k == EV_ECC_DBE)
        ev.ecc.count = count;
    if (k == EV_THROTTLE_START || k == EV_THROTTLE_END)
        ev.throttle.reason = reason;
    collect(&ev, want);
}

/* The rules of event.h, applied to the whole series at once. */
static void oracle(const series *z, got *want)
{
    int good = -1; /* the latest good sample */
    for (int i = 0; i < z->n; i++) {
        const gpu_sample *s = &z->s[i];
        int lost = s->status == GPU_LOST, was = i > 0 && z->s[i - 1].status == GPU_LOST;
        if (lost && (i == 0 || !was))
            expect(want, EV_GPU_LOST, s, 0, 0, 0);
        if (!lost && was)
            expect(want, EV_GPU_BACK, s, 0, 0, 0);
        if (s->status != GPU_OK)
            continue;
        if (good >= 0) {
            const gpu_sample *g = &z->s[good];
            double c = val(s, M_XID_COUNT), pc = val(g, M_XID_COUNT), l = val(s, M_XID_LAST), pl = val(g, M_XID_LAST);
            if (!isnan(c) && !isnan(pc)) {
                if (c > pc)
                    expect(want, EV_XID, s, isnan(l) ? 0 : (int)l, (int)(c - pc), 0);
            } else if (!isnan(l) && !isnan(pl) && l != 0 && l != pl) {
                expect(want, EV_XID, s, (int)l, 1, 0);
            }
            double v = val(s, M_ECC_DBE_VOL), pv = val(g, M_ECC_DBE_VOL);
            double grown = !isnan(v) ? (!isnan(pv) && v > pv ? v - pv : 0)
                                     : (val(s, M_ECC_DBE_AGG) > val(g, M_ECC_DBE_AGG)
                                            ? val(s, M_ECC_DBE_AGG) - val(g, M_ECC_DBE_AGG)
                                            : 0);
            if (grown > 0)
                expect(want, EV_ECC_DBE, s, 0, (int)grown, 0);
            const gpu_sample *p = &z->s[i - 1];
            double a = val(p, M_CER_ACTIVE), b = val(s, M_CER_ACTIVE);
            for (int m = M_STR_END; p->status == GPU_OK && !isnan(a) && !isnan(b) && m < M_COUNT; m++) {
                const metric_def *d = catalog_get((metric_id)m);
                if (!(d->flags & MF_BIT) || d->parent != M_CER_ACTIVE || m == M_CER_GPU_IDLE)
                    continue;
                int x = ((uint64_t)a & d->bit) != 0, y = ((uint64_t)b & d->bit) != 0;
                if (x != y)
                    expect(want, y ? EV_THROTTLE_START : EV_THROTTLE_END, s, 0, 0, (metric_id)m);
            }
        }
        good = i;
    }
}

static int same(const gw_event *a, const gw_event *b)
{
    if (a->kind != b->kind || a->t_us != b->t_us || a->gpu != b->gpu)
        return 0;
    if (a->kind == EV_XID)
        return a->xid.code == b->xid.code && a->xid.count == b->xid.count;
    if (a->kind == EV_ECC_DBE)
        return a->ecc.count == b->ecc.count;
    if (a->kind == EV_THROTTLE_START || a->kind == EV_THROTTLE_END)
        return a->throttle.reason == b->throttle.reason;
    return 1;
}

/* Events of one time in any order: those of a sample are compared as sets. */
static void assert_same_events(const got *a, const got *b)
{
    assert_int_equal(a->n, b->n);
    for (int i = 0; i < a->n; i++) {
        int found = 0;
        for (int j = 0; j < b->n && !found; j++)
            found = same(&a->ev[i], &b->ev[j]);
        if (!found)
            fail_msg("event %d (%s at %llu) not derived", i, event_kind_name(a->ev[i].kind),
                     (unsigned long long)a->ev[i].t_us);
    }
}

static void test_derive_family(void **st)
{
    (void)st;
    static series z;
    static got want, have;
    int kinds[EV_KIND_COUNT] = {0};
    for (unsigned seed = 1; seed <= 60; seed++) {
        make_series(&z, seed);
        want.n = have.n = 0;
        oracle(&z, &want);
        event_deriver d = {0};
        for (int i = 0; i < z.n; i++)
            event_derive(&d, 3, &z.s[i], collect, &have);
        assert_same_events(&want, &have);
        for (int i = 0; i < have.n; i++) {
            kinds[have.ev[i].kind]++;
            if (have.ev[i].kind == EV_XID)
                assert_true(have.ev[i].xid.count >= 1);
            if (have.ev[i].kind == EV_ECC_DBE)
                assert_true(have.ev[i].ecc.count >= 1);
        }
    }
    /* the family reaches every kind of the samples */
    for (int k = EV_XID; k <= EV_ECC_DBE; k++)
        assert_true(kinds[k] > 0);
}

/* An XID that comes while the GPU cannot be read is seen once, in its first good sample after. */
static void test_xid_across_loss(void **st)
{
    (void)st;
    for (int gap = 1; gap <= 6; gap++) {
        event_deriver d = {0};
        got g = {.n = 0};
        gpu_sample s;
        memset(&s, 0, sizeof s);
        s.t_us = T0;
        sample_set(&s, M_XID_COUNT, 2);
        sample_set(&s, M_XID_LAST, 13);
        event_derive(&d, 0, &s, collect, &g);
        for (int i = 1; i <= gap; i++) {
            memset(&s, 0, sizeof s);
            s.t_us = T0 + (uint64_t)i * 1000000u;
            s.status = i % 2 ? GPU_LOST : GPU_ERROR;
            event_derive(&d, 0, &s, collect, &g);
        }
        for (int k = 1; k <= 2; k++) {
            memset(&s, 0, sizeof s);
            s.t_us = T0 + (uint64_t)(gap + k) * 1000000u;
            sample_set(&s, M_XID_COUNT, 3);
            sample_set(&s, M_XID_LAST, 79);
            event_derive(&d, 0, &s, collect, &g);
        }
        int xids = 0;
        for (int i = 0; i < g.n; i++)
            if (g.ev[i].kind == EV_XID) {
                xids++;
                assert_int_equal(g.ev[i].xid.code, 79);
                assert_int_equal(g.ev[i].xid.count, 1);
                assert_true(g.ev[i].t_us == T0 + (uint64_t)(gap + 1) * 1000000u);
            }
        assert_int_equal(xids, 1);
    }
}

/* Counters at the edge of int: a jump to 1e300 is one event with a bounded count. */
static void test_huge_counters(void **st)
{
    (void)st;
    static const double jumps[] = {1e9, 3e9, 1e18, 1e300, INFINITY};
    for (size_t j = 0; j < sizeof jumps / sizeof jumps[0]; j++) {
        event_deriver d = {0};
        got g = {.n = 0};
        gpu_sample s;
        memset(&s, 0, sizeof s);
        s.t_us = T0;
        sample_set(&s, M_XID_COUNT, 0);
        event_derive(&d, 0, &s, collect, &g);
        s.t_us += 1000000;
        sample_set(&s, M_XID_COUNT, jumps[j]);
        event_derive(&d, 0, &s, collect, &g);
        for (int i = 0; i < g.n; i++)
            assert_true(g.ev[i].xid.count >= 1);
        assert_int_equal(g.n, isinf(jumps[j]) ? 0 : 1); /* not a number of XIDs: no event */
    }
}

/* The diagnosis window, fed the samples alone, holds the events the derivation gives. */
static void test_window_derives_the_same(void **st)
{
    (void)st;
    static series z;
    for (unsigned seed = 100; seed < 120; seed++) {
        make_series(&z, seed);
        got g = {.n = 0};
        event_deriver d = {0};
        diag_window *w = diag_window_new();
        for (int i = 0; i < z.n; i++) {
            event_derive(&d, 2, &z.s[i], collect, &g);
            diag_window_add_sample(w, 2, NULL, &z.s[i]);
        }
        int n = 0;
        for (int i = 0; i < g.n; i++) {
            const gw_event *e = &g.ev[i];
            if (e->kind == EV_THROTTLE_START || e->kind == EV_THROTTLE_END)
                continue; /* not the window's */
            static const diag_event_kind as[] = {[EV_XID] = DIAG_EV_XID,
                                                 [EV_GPU_LOST] = DIAG_EV_GPU_LOST,
                                                 [EV_GPU_BACK] = DIAG_EV_GPU_BACK,
                                                 [EV_ECC_DBE] = DIAG_EV_ECC_DBE};
            int found = 0;
            for (int k = 0; k < w->n_events && !found; k++)
                found = w->events[k].t_us == e->t_us && w->events[k].kind == as[e->kind] && w->events[k].gpu == 2 &&
                        (e->kind != EV_XID || (w->events[k].code == e->xid.code && w->events[k].count == e->xid.count));
            assert_true(found);
            n++;
        }
        assert_int_equal(w->n_events, n);
        diag_window_free(w);
    }
}

/* A copy owns its strings, records and report: the originals can go. */
static void test_copies(void **st)
{
    (void)st;
    char name[32] = "Hot", sev[16] = "critical", sum[64] = "GPU 3 at 95 C";
    gw_event a = {.kind = EV_ALERT, .t_us = T0, .gpu = 3, .alert = {name, sev, sum, 95, 1}}, c;
    assert_int_equal(event_copy(&c, &a), 0);
    memset(name, 'x', sizeof name - 1), memset(sum, 0, sizeof sum);
    assert_string_equal(c.alert.name, "Hot");
    assert_string_equal(c.alert.summary, "GPU 3 at 95 C");
    event_free(&c);

    alert_record rec = {.rule = "g/Hot/1",
                        .labels = "{}",
                        .annotations = "{}",
                        .firing = 1,
                        .name = "Hot",
                        .severity = "critical",
                        .summary = "s",
                        .gpu = 3,
                        .for_us = 60000000};
    finding_record fr = {.gpu = 1, .detector = "thermal", .level = 3};
    alert_records recs = {&rec, 1, &fr, 1};
    gw_event s = {.kind = EV_ALERT_STATES, .gpu = -1, .alert_states = {&recs, 1}};
    assert_int_equal(event_copy(&c, &s), 0);
    assert_true(c.alert_states.records != &recs);
    assert_string_equal(c.alert_states.records->alerts[0].name, "Hot");
    assert_true(c.alert_states.records->alerts[0].for_us == 60000000);
    assert_int_equal(c.alert_states.records->findings[0].level, 3);
    event_free(&c);

    diag_report r;
    diag_report_init(&r);
    for (int i = 0; i < 20; i++) {
        diag_finding *f = diag_report_add(&r, "thermal", DIAG_WARNING);
        diag_finding_gpu(f, i % 8);
        diag_finding_summary(f, "finding %d", i);
    }
    gw_event d = {.kind = EV_DIAGNOSIS, .gpu = -1, .diagnosis = {&r, T0}};
    assert_int_equal(event_copy(&c, &d), 0);
    diag_report_free(&r);
    assert_int_equal(c.diagnosis.report->n, 20);
    assert_string_equal(c.diagnosis.report->f[19].summary, "finding 19");
    event_free(&c);
    gw_event failed = {.kind = EV_DIAGNOSIS, .diagnosis = {NULL, T0}};
    assert_int_equal(event_copy(&c, &failed), 0);
    assert_null(c.diagnosis.report);
    event_free(&c);
}

/* ---- the history's text ---- */

static void text_of(const gw_event *ev, char *out, size_t n)
{
    assert_int_equal(history_event_text(ev, out, n), 0);
}

static void test_history_text(void **st)
{
    (void)st;
    char t[256], want[256];
    gw_event ev = {.t_us = T0, .gpu = 2}, back;
    for (int code = 0; code <= 200; code++) { /* "xid=79" as the history always wrote it */
        ev.kind = EV_XID;
        ev.xid.code = code;
        ev.xid.count = 1 + code % 5;
        text_of(&ev, t, sizeof t);
        if (code)
            snprintf(want, sizeof want, "xid=%d", code);
        else
            snprintf(want, sizeof want, "xid=unknown");
        assert_string_equal(t, want);
        assert_int_equal(history_event_parse(T0, 2, "xid", t, &back), 0);
        assert_int_equal(back.kind, EV_XID);
        assert_int_equal(back.xid.code, code);
        assert_true(back.t_us == T0 && back.gpu == 2);
    }
    int reasons = 0;
    for (int m = M_STR_END; m < M_COUNT; m++) { /* every throttle reason: the field's last part */
        const metric_def *d = catalog_get((metric_id)m);
        if (!(d->flags & MF_BIT) || d->parent != M_CER_ACTIVE)
            continue;
        for (int start = 0; start < 2; start++) {
            ev.kind = start ? EV_THROTTLE_START : EV_THROTTLE_END;
            ev.throttle.reason = (metric_id)m;
            text_of(&ev, t, sizeof t);
            assert_string_equal(t, strrchr(d->field, '.') + 1);
            assert_int_equal(history_event_parse(T0, 2, event_kind_name(ev.kind), t, &back), 0);
            assert_int_equal(back.kind, ev.kind);
            assert_int_equal(back.throttle.reason, m);
        }
        reasons++;
    }
    assert_true(reasons >= 8);
    for (int k = EV_GPU_LOST; k <= EV_GPU_BACK; k++) {
        ev.kind = (event_kind)k;
        text_of(&ev, t, sizeof t);
        assert_string_equal(t, "");
        assert_int_equal(history_event_parse(T0, 2, event_kind_name(ev.kind), t, &back), 0);
        assert_int_equal(back.kind, k);
    }
    static const double values[] = {95, 92.5, 0.96, 0.1 + 0.2, 1e21, -2.5e-5, NAN, INFINITY};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++)
        for (int firing = 0; firing < 2; firing++) {
            ev.kind = EV_ALERT;
            ev.alert.name = "GPUTemperatureCritical";
            ev.alert.severity = "critical";
            ev.alert.summary = "GPU 2 at hot";
            ev.alert.value = values[i];
            ev.alert.firing = firing;
            text_of(&ev, t, sizeof t);
            char v[40];
            gw_format_number(values[i], v, sizeof v);
            snprintf(want, sizeof want,
                     "alertname=GPUTemperatureCritical state=%s severity=critical value=%s summary=\"GPU 2 at hot\"",
                     firing ? "firing" : "resolved", v);
            assert_string_equal(t, want);
            assert_int_equal(history_event_parse(T0, 2, "alert", t, &back), -1); /* for people, not read back */
        }
    for (int sev = DIAG_INFO; sev <= DIAG_CRITICAL; sev++)
        for (int active = 0; active < 2; active++) {
            ev.kind = EV_FINDING;
            ev.finding.detector = "input_stall";
            ev.finding.summary = active ? "GPU 2 waits" : "";
            ev.finding.severity = (diag_severity)sev;
            ev.finding.active = active;
            text_of(&ev, t, sizeof t);
            snprintf(want, sizeof want, "detector=input_stall severity=%s state=%s summary=\"%s\"",
                     diag_severity_name((diag_severity)sev), active ? "active" : "resolved",
                     active ? "GPU 2 waits" : "");
            assert_string_equal(t, want);
        }
    ev.kind = EV_ECC_DBE; /* not in the events table */
    assert_int_equal(history_event_text(&ev, t, sizeof t), -1);
    /* texts that are no event of the samples */
    assert_int_equal(history_event_parse(T0, 0, "throttle_start", "no_such_reason", &back), -1);
    assert_int_equal(history_event_parse(T0, 0, "xid", "xid=-5", &back), 0);
    assert_int_equal(back.xid.code, 0);
    assert_int_equal(history_event_parse(T0, 0, "xid", "garbage", &back), 0);
    assert_int_equal(back.xid.code, 0);
    assert_int_equal(history_event_parse(T0, 0, "custom", "x=1", &back), -1);
}

static void on_sample(void *ctx, int gpu, const gpu_info *info, const gpu_sample *s)
{
    (void)ctx, (void)gpu, (void)info, (void)s;
}

static void on_event(void *ctx, const gw_event *ev)
{
    collect(ev, ctx);
}

/* A history file whose events table holds what the history wrote before the events were typed
 * (the texts of every version): read back typed, alerts and findings left out. */
static void test_old_file_events(void **st)
{
    (void)st;
    char dir[] = "/tmp/gw-events-XXXXXX", path[256];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/h.db", dir);
    history_config cfg;
    history_config_defaults(&cfg);
    cfg.path = path;
    cfg.no_thread = 1;
    char err[256];
    history *h = history_open(&cfg, err, sizeof err);
    assert_non_null(h);
    gpu_sample s;
    memset(&s, 0, sizeof s);
    s.t_us = T0;
    sample_set(&s, M_TEMP_GPU, 50);
    history_record_sample(h, 0, NULL, &s);
    history_close(h);
    static const struct {
        const char *kind, *detail;
        int typed;
        event_kind as;
        int code;
    } rows[] = {
        {"xid", "xid=79", 1, EV_XID, 79},
        {"xid", "xid=unknown", 1, EV_XID, 0},
        {"gpu_lost", "", 1, EV_GPU_LOST, 0},
        {"gpu_back", "", 1, EV_GPU_BACK, 0},
        {"throttle_start", "sw_power_cap", 1, EV_THROTTLE_START, M_CER_SW_POWER_CAP},
        {"throttle_end", "hw_thermal_slowdown", 1, EV_THROTTLE_END, M_CER_HW_THERMAL},
        {"alert", "alertname=X state=firing severity=critical value=95 summary=\"hot\"", 0, 0, 0},
        {"finding", "detector=thermal severity=warning state=active summary=\"\"", 0, 0, 0},
    };
    int n = (int)(sizeof rows / sizeof rows[0]);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    for (int i = 0; i < n; i++) {
        char *sql = sqlite3_mprintf("INSERT INTO events(t, gpu, kind, detail) VALUES(%lld, 1, %Q, %Q)",
                                    (long long)(T0 + (uint64_t)(i + 1) * 1000000u), rows[i].kind, rows[i].detail);
        assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
        sqlite3_free(sql);
    }
    sqlite3_close(db);
    got g = {.n = 0};
    history_reader r = {&g, on_sample, NULL, on_event};
    assert_true(history_read_range(path, (int64_t)T0, (int64_t)T0 + 100000000, NULL, &r, err, sizeof err) >= 1);
    int k = 0;
    for (int i = 0; i < n; i++) {
        if (!rows[i].typed)
            continue;
        assert_true(k < g.n);
        const gw_event *e = &g.ev[k++];
        assert_int_equal(e->kind, rows[i].as);
        assert_int_equal(e->gpu, 1);
        assert_true(e->t_us == T0 + (uint64_t)(i + 1) * 1000000u);
        if (e->kind == EV_XID)
            assert_int_equal(e->xid.code, rows[i].code);
        if (e->kind == EV_THROTTLE_START || e->kind == EV_THROTTLE_END)
            assert_int_equal(e->throttle.reason, rows[i].code);
    }
    assert_int_equal(g.n, k);
    static const char *const files[] = {"h.db", "h.db-wal", "h.db-shm", "h.db-journal"};
    for (int i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
    assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_derive_family),   cmocka_unit_test(test_xid_across_loss),
        cmocka_unit_test(test_huge_counters),   cmocka_unit_test(test_window_derives_the_same),
        cmocka_unit_test(test_copies),          cmocka_unit_test(test_history_text),
        cmocka_unit_test(test_old_file_events),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
