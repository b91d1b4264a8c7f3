/* test_alerts_oom.c - out of memory in the alert engine. The program replaces malloc, calloc, realloc,
 * strdup and strndup (what they return comes from the real allocator: ASan's under ASan) so that the
 * Nth allocation of the test thread fails (the 1st, the 2nd, ... every one of a run in turn), or the
 * Nth and all after it ("sticky"), while a rule file is loaded, rules are evaluated, alerts are read
 * (snapshot, /metrics, JSON) and notifications are built; while the alerts are carried across a
 * reload and a restart; and while `rules test` runs. Every failure
 * must come back as an error (a refused file, a skipped evaluation, a failed read, a dropped and
 * counted notification, "out of memory") or be absorbed with the same results; the step is then done
 * again and the run must end as one without failure. Never a crash; never a leak (ASan, and a count
 * of live allocations in every build).
 *
 * libyaml's own allocations are not failed: the document layer (src/doc/doc.c) does not check
 * yaml_document_initialize, and libyaml then writes past a 1-byte stack (heap overflow); and it reports
 * libyaml's memory errors as "YAML: syntax error". Both are the document layer's to fix. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <dlfcn.h>
#include <link.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "alerts.h"
#include "notify.h"
#include "notify_impl.h"
#include "rules_test.h"
#include "synth_source.h"
#include "template.h"
#include "util.h"

/* ---- the allocator: real allocations, failures on demand ---- */

/* Not instrumented: ASan calls them while it starts, before its shadow memory is there. */
#define RAW __attribute__((no_sanitize("address", "undefined")))

static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void (*real_free)(void *);

static struct {
    int armed;
    pthread_t thread; /* only its allocations count (receiver threads allocate too) */
    long count;       /* allocations since armed */
    long fail_at;     /* the one that fails (from 1) */
    int sticky;       /* and every one after it */
    long failed;      /* allocations made to fail */
} inj;
static atomic_long live;           /* allocations not freed yet */
static uintptr_t yaml_lo, yaml_hi; /* libyaml's code: its allocations are not failed (see the top) */

/* dlsym may allocate before the real functions are known: a few bytes from here, never freed. */
static _Alignas(16) char boot[8192];
static size_t boot_used;
static int resolving;

RAW static void *boot_alloc(size_t n)
{
    n = (n + 15) & ~(size_t)15;
    if (boot_used + n > sizeof boot)
        return NULL;
    void *p = boot + boot_used;
    boot_used += n;
    return p;
}

RAW static int is_boot(const void *p)
{
    return (const char *)p >= boot && (const char *)p < boot + sizeof boot;
}

RAW static int resolve(void)
{
    if (real_free)
        return 0;
    if (resolving)
        return -1;
    resolving = 1;
    real_malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
    real_calloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc");
    real_realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
    real_free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
    resolving = 0;
    return 0;
}

/* 1 when this allocation (for code at caller) fails. */
RAW static int inject(const void *caller)
{
    if (!inj.armed || !pthread_equal(pthread_self(), inj.thread))
        return 0;
    if ((uintptr_t)caller >= yaml_lo && (uintptr_t)caller < yaml_hi)
        return 0;
    long k = ++inj.count;
    if (k != inj.fail_at && !(inj.sticky && k > inj.fail_at))
        return 0;
    inj.failed++;
    errno = ENOMEM;
    return 1;
}

/* malloc for code at caller. */
RAW static void *alloc_for(size_t n, const void *caller)
{
    if (resolve() != 0)
        return boot_alloc(n);
    if (inject(caller))
        return NULL;
    void *p = real_malloc(n);
    if (p)
        atomic_fetch_add(&live, 1);
    return p;
}

RAW void *malloc(size_t n)
{
    return alloc_for(n, __builtin_return_address(0));
}

RAW void *calloc(size_t k, size_t n)
{
    if (resolve() != 0)
        return boot_alloc(k * n); /* boot is zeroed */
    if (inject(__builtin_return_address(0)))
        return NULL;
    void *p = real_calloc(k, n);
    if (p)
        atomic_fetch_add(&live, 1);
    return p;
}

RAW void *realloc(void *p, size_t n)
{
    if (is_boot(p)) {
        void *q = malloc(n);
        size_t room = (size_t)(boot + sizeof boot - (char *)p);
        if (q)
            memcpy(q, p, n < room ? n : room);
        return q;
    }
    if (resolve() != 0)
        return boot_alloc(n);
    if (inject(__builtin_return_address(0)))
        return NULL;
    void *q = real_realloc(p, n);
    if (q && !p)
        atomic_fetch_add(&live, 1);
    return q;
}

RAW void free(void *p)
{
    if (!p || is_boot(p))
        return;
    atomic_fetch_sub(&live, 1);
    real_free(p);
}

RAW char *strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = alloc_for(n, __builtin_return_address(0));
    if (d)
        memcpy(d, s, n);
    return d;
}

RAW char *strndup(const char *s, size_t max)
{
    size_t n = strnlen(s, max);
    char *d = alloc_for(n + 1, __builtin_return_address(0));
    if (d) {
        memcpy(d, s, n);
        d[n] = 0;
    }
    return d;
}

static int find_yaml(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    (void)arg;
    if (!strstr(info->dlpi_name, "libyaml"))
        return 0;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_LOAD && (info->dlpi_phdr[i].p_flags & PF_X)) {
            yaml_lo = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
            yaml_hi = yaml_lo + info->dlpi_phdr[i].p_memsz;
        }
    return 1;
}

/* Thousands of runs of thousands of allocations: under ASan, short allocation stacks and a small
 * quarantine keep the test within its time (ASAN_OPTIONS still wins). */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "malloc_context_size=4:quarantine_size_mb=16";
}

static void arm(long fail_at, int sticky)
{
    if (!yaml_hi)
        assert_int_equal(dl_iterate_phdr(find_yaml, NULL), 1);
    inj.thread = pthread_self();
    inj.count = 0;
    inj.failed = 0;
    inj.fail_at = fail_at;
    inj.sticky = sticky;
    inj.armed = 1;
}

static void disarm(void)
{
    inj.armed = 0;
}

/* ---- the engine's run: load, evaluate, read, notify ---- */

#define MIN (60LL * 1000000)
#define STEPS 6
#define QUEUE 256

static const char rules_yaml[] =
    "groups:\n"
    "- name: heat\n"
    "  labels: {team: ml}\n"
    "  rules:\n"
    "  - alert: Hot\n"
    "    condition: {metric: temperature.gpu, reduce: avg, window: 2m, op: \">\", threshold: 80}\n"
    "    for: 1m\n"
    "    keep_firing_for: 1m\n"
    "    labels: {severity: warning}\n"
    "    annotations:\n"
    "      summary: 'GPU {{ $labels.gpu }} ({{ $labels.modelName }}) at {{ printf \"%.1f\" $value }} C'\n"
    "      description: '{{ humanize $value }} or {{ $value }}, {{ .Labels.team }}'\n"
    "  - alert: Busy\n"
    "    all:\n"
    "      - {metric: utilization.gpu, op: \">=\", threshold: 50}\n"
    "      - any:\n"
    "          - {metric: memory.used / memory.total, op: \">\", threshold: 0.5}\n"
    "          - {metric: power.draw, op: \">\", threshold: power.limit}\n"
    "    annotations: {summary: '{{ humanizePercentage $value }} busy'}\n"
    "  - alert: Lost\n"
    "    condition: {metric: gpu.lost, reduce: max, window: 2m, op: \"==\", threshold: 1}\n"
    "    gpus: [1]\n"
    "- name: procs\n"
    "  interval: 3m\n"
    "  rules:\n"
    "  - alert: BigProcess\n"
    "    scope: process\n"
    "    condition: {metric: process.memory, op: \">\", threshold: 1000}\n"
    "    labels: {severity: info}\n"
    "    annotations: {summary: '{{ $labels.command }} of {{ $labels.user }} holds {{ $value }} MiB'}\n";

/* Two GPUs over STEPS minutes: GPU 0 heats up and cools (Hot pending at 2m, firing at 3m, kept at 4m,
 * resolved at 5m), is busy then idle; GPU 1 is lost at 2m and runs a big process until then. */
static void fill_source(synth *y)
{
    static const double temp0[STEPS] = {70, 85, 90, 90, 60, 60};
    assert_int_equal(synth_init(y, 2, 0, MIN), 0);
    synth_info(y, 0, "NVIDIA H100 80GB HBM3", "GPU-aaaa");
    synth_info(y, 1, "NVIDIA A100-SXM4-40GB", "GPU-bbbb");
    synth_proc *p = synth_proc_get(y, 1, 42, "train.py", "alice");
    assert_non_null(p);
    for (int k = 0; k < STEPS; k++) {
        assert_int_equal(synth_set(y, 0, k, M_TEMP_GPU, temp0[k]), 0);
        assert_int_equal(synth_set(y, 0, k, M_UTIL_GPU, k < 3 ? 90 : 10), 0);
        assert_int_equal(synth_set(y, 0, k, M_MEM_USED, 60000), 0);
        assert_int_equal(synth_set(y, 0, k, M_MEM_TOTAL, 80000), 0);
        assert_int_equal(synth_set(y, 1, k, M_TEMP_GPU, 60), 0);
        assert_int_equal(synth_status(y, 1, k, k == 2 ? GPU_LOST : GPU_OK), 0);
        if (k < 3)
            assert_int_equal(synth_proc_set(y, p, k, 0, 30000), 0);
    }
}

/* What a run shows after each step, and the notifications it built. */
typedef struct outcome {
    int rules;
    alert_list snap[STEPS];
    char *json[STEPS];
    char metrics[STEPS][4096];
    long jobs[3]; /* per receiver: queued + dropped */
    long changes; /* alerts handed to the listener as changed (firing, resolved) */
} outcome;

static void outcome_free(outcome *o)
{
    for (int k = 0; k < STEPS; k++) {
        alert_list_free(&o->snap[k]);
        free(o->json[k]);
    }
    memset(o, 0, sizeof *o);
}

/* A run's state: the receivers (no worker threads: their queues are read at the end). */
typedef struct run {
    receiver rcv[3]; /* exec, webhook, alertmanager */
    long expected[3];
    long changes;
    int reported; /* a call said it failed */
} run;

/* What a failed allocation came to in a run. */
typedef enum { SEEN_NONE, SEEN_ERROR, SEEN_DROPPED, SEEN_MARKER, SEEN_ABSORBED } seen;

/* Jobs a receiver kind makes of one dispatch (every kind here sends resolved alerts). */
static long jobs_for(int kind, const alert_list *l)
{
    long n = 0;
    for (int i = 0; i < l->n; i++) {
        if (kind == 0)
            n += l->v[i].changed;
        else if (kind == 2)
            n |= l->v[i].due;
        else if (l->v[i].changed) { /* webhook: one per alert name with a change */
            int first = 1;
            for (int k = 0; k < i && first; k++)
                first = !(l->v[k].changed && strcmp(l->v[k].alertname, l->v[i].alertname) == 0);
            n += first;
        }
    }
    return n;
}

static void to_receivers(const alert_list *l, int64_t now_us, void *arg)
{
    (void)now_us;
    run *r = arg;
    notify_exec_queue(&r->rcv[0], l);
    notify_webhook_queue(&r->rcv[1], l);
    notify_am_queue(&r->rcv[2], l);
    for (int k = 0; k < 3; k++)
        r->expected[k] += jobs_for(k, l);
    for (int i = 0; i < l->n; i++)
        r->changes += l->v[i].changed;
}

static void receivers_init(run *r)
{
    memset(r, 0, sizeof *r);
    for (int k = 0; k < 3; k++) {
        receiver *v = &r->rcv[k];
        snprintf(v->cfg.name, sizeof v->cfg.name, "r%d", k);
        v->cfg.kind = k == 0 ? RCV_EXEC : k == 1 ? RCV_WEBHOOK : RCV_ALERTMANAGER;
        v->cfg.send_resolved = 1;
        v->cap = QUEUE;
        v->q = calloc(QUEUE, sizeof *v->q);
        assert_non_null(v->q);
        pthread_mutex_init(&v->mu, NULL);
        pthread_cond_init(&v->cv, NULL);
    }
}

/* Each receiver's queued + dropped jobs; frees the queues. */
static void receivers_done(run *r, long *jobs)
{
    for (int k = 0; k < 3; k++) {
        receiver *v = &r->rcv[k];
        jobs[k] = v->count + (long)v->dropped;
        assert_true(v->count < QUEUE);
        for (int i = 0; i < v->count; i++) { /* only whole jobs are queued */
            notify_job *j = &v->q[(v->head + i) % v->cap];
            assert_true(j->body && (k != 0 || j->env));
            notify_job_free(j);
        }
        free(v->q);
        pthread_mutex_destroy(&v->mu);
        pthread_cond_destroy(&v->cv);
    }
}

/* A call reported a failure: stop failing (sticky mode too) so that it can be done again. */
static void failed_call(run *r)
{
    assert_true(inj.failed > 0); /* no error without a failed allocation */
    r->reported = 1;
    disarm();
}

/* 1 when annotation value a is b, or TMPL_OOM_MARKER (its template could not be expanded: *marker = 1). */
static int same_annotation(const char *a, const char *b, int *marker)
{
    if (strcmp(a, b) == 0)
        return 1;
    *marker |= strcmp(a, TMPL_OOM_MARKER) == 0;
    return strcmp(a, TMPL_OOM_MARKER) == 0;
}

/* got equals want, but for annotations shown as TMPL_OOM_MARKER (then *marker = 1). */
static void assert_same_alerts(const alert_list *got, const alert_list *want, int *marker)
{
    assert_int_equal(got->n, want->n);
    for (int i = 0; i < got->n; i++) {
        const alert_view *g = &got->v[i], *w = &want->v[i];
        assert_string_equal(g->alertname, w->alertname);
        assert_int_equal(g->state, w->state);
        assert_true(g->active_at_us == w->active_at_us && g->fired_at_us == w->fired_at_us &&
                    g->resolved_at_us == w->resolved_at_us);
        assert_true(memcmp(&g->value, &w->value, sizeof g->value) == 0);
        assert_int_equal(g->nlabels, w->nlabels);
        for (int k = 0; k < g->nlabels; k++) {
            assert_string_equal(g->label_names[k], w->label_names[k]);
            assert_string_equal(g->label_values[k], w->label_values[k]);
        }
        assert_int_equal(g->nannotations, w->nannotations);
        for (int k = 0; k < g->nannotations; k++) {
            assert_string_equal(g->annotation_names[k], w->annotation_names[k]);
            assert_true(same_annotation(g->annotation_values[k], w->annotation_values[k], marker));
        }
    }
}

static FILE *errf, *metf; /* unbuffered over static memory: writing allocates nothing */
static char errtext[8192], mettext[4096];

static void clear_file(FILE *f, char *buf, size_t n)
{
    memset(buf, 0, n);
    rewind(f);
    clearerr(f);
}

/* Loads, evaluates every minute and reads, failing allocation fail_at (0: none) of the test thread.
 * want NULL: a run without failures that fills got. Returns how many allocations failed. */
static long run_engine(long fail_at, int sticky, const outcome *want, outcome *got, seen *what)
{
    synth y;
    fill_source(&y);
    sample_source src;
    synth_source(&y, &src);
    run r;
    receivers_init(&r);
    arm(fail_at, sticky);

    alert_engine *e = alert_engine_new();
    if (!e) {
        failed_call(&r);
        e = alert_engine_new();
    }
    assert_non_null(e);
    alert_engine_set_default_interval(e, MIN);
    alert_engine_set_listener(e, to_receivers, &r);
    if (alert_engine_set_external_label(e, "Hostname", "node-1") != 0) {
        failed_call(&r);
        assert_int_equal(alert_engine_set_external_label(e, "Hostname", "node-1"), 0);
    }
    clear_file(errf, errtext, sizeof errtext);
    if (alert_engine_load_text(e, "oom.yaml", rules_yaml, errf) != 0) {
        failed_call(&r);
        assert_non_null(strstr(errtext, "out of memory")); /* "oom.yaml: out of memory" or a part's */
        assert_int_equal(alert_engine_rule_count(e), 0);   /* nothing of the file kept */
        clear_file(errf, errtext, sizeof errtext);
        assert_int_equal(alert_engine_load_text(e, "oom.yaml", rules_yaml, errf), 0);
    }
    got->rules = alert_engine_rule_count(e);
    int markers = 0;
    if (want)
        assert_int_equal(got->rules, want->rules);

    for (int k = 0; k < STEPS; k++) {
        int64_t ts = k * MIN;
        if (alert_engine_eval(e, &src, ts, 0) < 0) { /* skipped: the states are as before it */
            failed_call(&r);
            assert_true(alert_engine_eval(e, &src, ts, 0) >= 0);
        }
        if (alert_engine_snapshot(e, &got->snap[k]) != 0) {
            failed_call(&r);
            assert_int_equal(got->snap[k].n, 0);
            assert_int_equal(alert_engine_snapshot(e, &got->snap[k]), 0);
        }
        int read = k == 2 || k == STEPS - 1; /* the pages too (each allocation makes a run longer) */
        got->json[k] = read ? alert_engine_json(e) : NULL;
        if (read && !got->json[k]) {
            failed_call(&r);
            got->json[k] = alert_engine_json(e);
            assert_non_null(got->json[k]);
        }
        clear_file(metf, mettext, sizeof mettext);
        if (read && alert_engine_write_metrics(e, metf) != 0) {
            failed_call(&r);
            clear_file(metf, mettext, sizeof mettext);
            assert_int_equal(alert_engine_write_metrics(e, metf), 0);
        }
        snprintf(got->metrics[k], sizeof got->metrics[k], "%s", mettext);
        if (!want)
            continue;
        int marker = 0;
        assert_same_alerts(&got->snap[k], &want->snap[k], &marker);
        markers += marker;
        if (read && marker)
            assert_non_null(strstr(got->json[k], TMPL_OOM_MARKER));
        else if (read)
            assert_string_equal(got->json[k], want->json[k]);
        assert_string_equal(got->metrics[k], want->metrics[k]);
    }
    disarm();
    long failed = inj.failed;
    alert_engine_free(e);
    receivers_done(&r, got->jobs);
    unsigned long long dropped = 0;
    for (int k = 0; k < 3; k++) {
        assert_int_equal(got->jobs[k], r.expected[k]); /* each job queued, or dropped and counted */
        dropped += r.rcv[k].dropped;
    }
    synth_free(&y);
    got->changes = r.changes;
    if (want) /* fewer: the engine could not build some (dropped and counted at a notifier's receivers) */
        assert_true(got->changes <= want->changes && (failed || got->changes == want->changes));
    if (want && got->changes < want->changes)
        dropped++;
    assert_true(failed || (!dropped && !markers && !r.reported));
    *what = !failed      ? SEEN_NONE
            : r.reported ? SEEN_ERROR
            : dropped    ? SEEN_DROPPED
            : markers    ? SEEN_MARKER
                         : SEEN_ABSORBED;
    return failed;
}

/* The run without failures does what the test is about: alerts pending, firing, resolved, per
 * process, with annotations, and notifications of every kind. */
static void assert_meaningful(const outcome *o)
{
    int pending = 0, firing = 0, resolved = 0, process = 0;
    for (int k = 0; k < STEPS; k++)
        for (int i = 0; i < o->snap[k].n; i++) {
            const alert_view *v = &o->snap[k].v[i];
            pending += v->state == ALERT_PENDING;
            firing += v->state == ALERT_FIRING;
            resolved += v->state == ALERT_INACTIVE;
            process += strcmp(v->alertname, "BigProcess") == 0;
            assert_true(v->nannotations > 0 || strcmp(v->alertname, "Lost") == 0);
        }
    assert_true(pending && firing && resolved && process);
    assert_int_equal(o->rules, 4);
    for (int k = 0; k < 3; k++)
        assert_true(o->jobs[k] > 0);
}

/* Fails allocation 1, 2, ... of the run until a run makes fewer; sticky: from it on. */
static void sweep_engine(int sticky, int stride)
{
    outcome want = {0};
    seen what;
    run_engine(0, 0, NULL, &want, &what); /* also warms up what the C library keeps (time zone...) */
    assert_meaningful(&want);
    long runs = 0, count[SEEN_ABSORBED + 1] = {0};
    for (long n = 1;; n += stride) {
        outcome got = {0};
        long before = atomic_load(&live);
        long failed = run_engine(n, sticky, &want, &got, &what);
        outcome_free(&got);
        assert_int_equal(atomic_load(&live), before); /* every allocation of the run freed */
        if (!failed)
            break;
        runs++;
        count[what]++;
    }
    print_message("engine, %s: %ld runs; an error returned (and the call done again) in %ld, notifications "
                  "dropped and counted in %ld, an annotation shown as " TMPL_OOM_MARKER " in %ld, absorbed with "
                  "the same results (or a resend left due) in %ld\n",
                  sticky ? "every allocation from the Nth on fails" : "the Nth allocation fails", runs,
                  count[SEEN_ERROR], count[SEEN_DROPPED], count[SEEN_MARKER], count[SEEN_ABSORBED]);
    assert_true(runs > 100 && count[SEEN_ERROR] > runs / 3);
    assert_true(sticky || (count[SEEN_DROPPED] > 0 && count[SEEN_MARKER] > 0));
    outcome_free(&want);
}

static void test_engine_nth_allocation_fails(void **state)
{
    (void)state;
    sweep_engine(0, 1);
}

static void test_engine_allocations_fail_from_nth_on(void **state)
{
    (void)state;
    sweep_engine(1, 7);
}

/* ---- reload and restart ---- */

/* An engine on rules_yaml (made without failures). */
static alert_engine *new_engine(void)
{
    alert_engine *e = alert_engine_new();
    assert_non_null(e);
    alert_engine_set_default_interval(e, MIN);
    assert_int_equal(alert_engine_set_external_label(e, "Hostname", "node-1"), 0);
    assert_int_equal(alert_engine_load_text(e, "oom.yaml", rules_yaml, NULL), 0);
    return e;
}

/* An engine evaluated at minutes 0..3 hands its alerts to a rebuilt one (a reload), whose records are
 * taken and restored into a third (a restart), failing allocation fail_at (0: none) of these three
 * calls; a call that fails leaves the engines as they were, and is done again (a restore that fails
 * is done again on a fresh engine, as the agent's next start would). got: the third engine after an
 * evaluation at 4m. Returns how many allocations failed. */
static long run_carry(long fail_at, int sticky, alert_list *got, int *restored)
{
    synth y;
    fill_source(&y);
    sample_source src;
    synth_source(&y, &src);
    alert_engine *old = new_engine(), *fresh = new_engine(), *third = new_engine();
    for (int k = 0; k <= 3; k++)
        assert_true(alert_engine_eval(old, &src, k * MIN, 0) >= 0);
    alert_list before;
    assert_int_equal(alert_engine_snapshot(old, &before), 0);
    arm(fail_at, sticky);
    alert_carry_counts c;
    if (alert_engine_take_over(fresh, old, 3 * MIN + 1, &c) != 0) {
        assert_true(inj.failed > 0);
        disarm();
        alert_list l;
        assert_int_equal(alert_engine_snapshot(old, &l), 0);
        assert_int_equal(l.n, before.n); /* nothing moved */
        alert_list_free(&l);
        assert_int_equal(alert_engine_take_over(fresh, old, 3 * MIN + 1, &c), 0);
    }
    assert_int_equal(c.rules_kept, 4);
    alert_records r;
    if (alert_engine_records(fresh, &r) != 0) {
        assert_true(inj.failed > 0 && r.nalerts == 0 && !r.alerts);
        disarm();
        assert_int_equal(alert_engine_records(fresh, &r), 0);
    }
    alert_restore how = {4 * MIN, 3 * MIN, 60 * MIN, 10 * MIN};
    alert_restore_counts rc;
    if (alert_engine_restore(third, &r, &how, &rc) != 0) {
        assert_true(inj.failed > 0);
        disarm();
        alert_engine_free(third);
        third = new_engine();
        assert_int_equal(alert_engine_restore(third, &r, &how, &rc), 0);
    }
    disarm();
    long failed = inj.failed;
    *restored = rc.firing + rc.pending;
    assert_true(alert_engine_eval(third, &src, 4 * MIN, 0) >= 0);
    assert_int_equal(alert_engine_snapshot(third, got), 0);
    alert_list_free(&before);
    alert_records_free(&r);
    alert_engine_free(old);
    alert_engine_free(fresh);
    alert_engine_free(third);
    synth_free(&y);
    return failed;
}

static void sweep_carry(int sticky)
{
    alert_list want;
    int restored = 0, firing = 0;
    run_carry(0, 0, &want, &restored);
    for (int i = 0; i < want.n; i++)
        firing += want.v[i].state == ALERT_FIRING;
    assert_true(restored >= 2 && firing >= 1); /* Hot and BigProcess went through both; Hot kept firing */
    long runs = 0;
    for (long n = 1;; n++) {
        alert_list got;
        long before = atomic_load(&live);
        long failed = run_carry(n, sticky, &got, &restored);
        int marker = 0;
        assert_same_alerts(&got, &want, &marker);
        alert_list_free(&got);
        assert_int_equal(atomic_load(&live), before);
        if (!failed)
            break;
        runs++;
    }
    print_message("reload and restart, %s: %ld runs\n", sticky ? "from the Nth on" : "the Nth", runs);
    assert_true(runs > 20);
    alert_list_free(&want);
}

static void test_carry_nth_allocation_fails(void **state)
{
    (void)state;
    sweep_carry(0);
}

static void test_carry_allocations_fail_from_nth_on(void **state)
{
    (void)state;
    sweep_carry(1);
}

/* ---- `rules test` ---- */

static const char test_yaml[] =
    "rule_files: [oom.yaml]\n"
    "evaluation_interval: 1m\n"
    "tests:\n"
    "  - name: heat and a process\n"
    "    gpus: [{gpu: 0, name: NVIDIA H100 80GB HBM3, uuid: GPU-aaaa}]\n"
    "    input_series:\n"
    "      - {metric: temperature.gpu, gpu: 0, values: '70 85 90 92 60'}\n"
    "      - {metric: utilization.gpu, gpu: 0, values: '90x4'}\n"
    "      - {metric: memory.used, gpu: 0, values: '60000x4'}\n"
    "      - {metric: memory.total, gpu: 0, values: '80000x4'}\n"
    "      - {metric: gpu.lost, gpu: 1, values: '0 1 _ 0 0'}\n"
    "      - {metric: process.memory, gpu: 1, pid: 42, command: train.py, user: alice, values: '30000x2'}\n"
    "    alert_rule_test:\n"
    "      - eval_time: 3m\n"
    "        alertname: Hot\n"
    "        exp_alerts:\n"
    "          - exp_labels: {gpu: '0', severity: warning, team: ml, UUID: GPU-aaaa,\n"
    "                         modelName: NVIDIA H100 80GB HBM3}\n"
    "            exp_annotations: {summary: 'GPU 0 (NVIDIA H100 80GB HBM3) at 91.0 C', description: '91 or 91, ml'}\n"
    "      - eval_time: 1m\n"
    "        alertname: Lost\n"
    "        exp_alerts: [{exp_labels: {gpu: '1', team: ml}}]\n"
    "      - eval_time: 1m\n"
    "        alertname: BigProcess\n"
    "        exp_alerts:\n"
    "          - exp_labels: {gpu: '1', pid: '42', command: train.py, user: alice, severity: info}\n"
    "            exp_annotations: {summary: train.py of alice holds 30000 MiB}\n"
    "      - eval_time: 4m\n"
    "        alertname: BigProcess\n"
    "        exp_alerts: []\n";

static char dir[64];
static char rules_path[128], test_path[128];

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(fputs(text, f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
}

static int rules_test_files(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/gw_oom_XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    snprintf(rules_path, sizeof rules_path, "%s/oom.yaml", dir);
    snprintf(test_path, sizeof test_path, "%s/oom_test.yaml", dir);
    write_file(rules_path, rules_yaml);
    write_file(test_path, test_yaml);
    return 0;
}

static int rules_test_files_gone(void **state)
{
    (void)state;
    unlink(rules_path);
    unlink(test_path);
    rmdir(dir);
    return 0;
}

/* rules test with allocation n failing (and all after it when sticky): SUCCESS, or -1 and "out of
 * memory", never a FAILED check; then again without failure: SUCCESS. Returns how many failed. */
static long run_rules_test(long n, int sticky, int *reported)
{
    clear_file(errf, errtext, sizeof errtext);
    arm(n, sticky);
    int rc = rules_test_file(test_path, errf, errf);
    disarm();
    long failed = inj.failed;
    if (!failed || rc == 0) {
        if (rc != 0)
            print_message("%s", errtext);
        assert_int_equal(rc, 0);
        assert_non_null(strstr(errtext, "1 test SUCCESS"));
        *reported = 0;
        return failed;
    }
    if (rc != -1)
        print_message("%s", errtext);
    assert_int_equal(rc, -1);
    assert_non_null(strstr(errtext, "out of memory")); /* rules_test_file's own, at least */
    assert_null(strstr(errtext, "FAILED"));
    clear_file(errf, errtext, sizeof errtext);
    assert_int_equal(rules_test_file(test_path, errf, errf), 0);
    *reported = 1;
    return failed;
}

static void sweep_rules_test(int sticky, int stride)
{
    int reported;
    run_rules_test(0, 0, &reported); /* the test passes; warms up */
    long runs = 0, errors = 0;
    for (long n = 1;; n += stride) {
        long before = atomic_load(&live);
        long failed = run_rules_test(n, sticky, &reported);
        assert_int_equal(atomic_load(&live), before);
        if (!failed)
            break;
        runs++;
        errors += reported;
    }
    print_message("rules test, %s: %ld runs, \"out of memory\" in %ld, absorbed (SUCCESS) in %ld\n",
                  sticky ? "every allocation from the Nth on fails" : "the Nth allocation fails", runs, errors,
                  runs - errors);
    assert_true(runs > 100 && errors > runs / 2);
}

static void test_rules_test_nth_allocation_fails(void **state)
{
    (void)state;
    sweep_rules_test(0, 1);
}

static void test_rules_test_allocations_fail_from_nth_on(void **state)
{
    (void)state;
    sweep_rules_test(1, 7);
}

/* ---- receivers ---- */

/* A receiver whose config cannot be copied is refused; one that is added counts what the engine
 * drops (notifier_drop) as dropped and failed. */
static void test_receiver_add_and_drop(void **state)
{
    (void)state;
    char prog[] = "/bin/true", arg[] = "--x", url[] = "http://127.0.0.1:9/", hdr[] = "X-A: b", user[] = "u";
    receiver_config cfg = {.kind = RCV_EXEC,
                           .argv = {prog, arg},
                           .nurls = 1,
                           .urls = {url},
                           .nheaders = 1,
                           .headers = {hdr},
                           .basic_user = user};
    snprintf(cfg.name, sizeof cfg.name, "page");
    long runs = 0, refused = 0;
    for (long n = 1;; n++) {
        notifier *nt = notifier_new();
        assert_non_null(nt);
        arm(n, 0);
        int rc = notifier_add(nt, &cfg); /* its thread's allocations are not failed */
        disarm();
        if (rc != 0) {
            assert_true(inj.failed > 0);
            refused++;
        } else {
            unsigned long long sent, failed;
            notifier_drop(nt, 2);
            notifier_counts(nt, "page", &sent, &failed);
            assert_int_equal(sent, 0);
            assert_int_equal(failed, 2);
        }
        long made_to_fail = inj.failed;
        notifier_free(nt);
        if (!made_to_fail)
            break;
        runs++;
    }
    assert_true(runs >= 5 && refused >= 5);
}

int main(void)
{
    errf = fmemopen(errtext, sizeof errtext - 1, "w");
    metf = fmemopen(mettext, sizeof mettext - 1, "w");
    if (!errf || !metf)
        return 1;
    setvbuf(errf, NULL, _IONBF, 0);
    setvbuf(metf, NULL, _IONBF, 0);
    gw_log_set_level((gw_log_level)(GW_LOG_ERROR + 1)); /* no transitions, no "out of memory" lines */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_engine_nth_allocation_fails),
        cmocka_unit_test(test_engine_allocations_fail_from_nth_on),
        cmocka_unit_test(test_carry_nth_allocation_fails),
        cmocka_unit_test(test_carry_allocations_fail_from_nth_on),
        cmocka_unit_test_setup_teardown(test_rules_test_nth_allocation_fails, rules_test_files, rules_test_files_gone),
        cmocka_unit_test_setup_teardown(test_rules_test_allocations_fail_from_nth_on, rules_test_files,
                                        rules_test_files_gone),
        cmocka_unit_test(test_receiver_add_and_drop),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    fclose(errf);
    fclose(metf);
    return rc;
}
