/* test_pipeline.c - the pipeline (src/pipeline) on its own, as the agent and top assemble it: plugins
 * start with its view (or are attached by the host), see every sample, process list, tick and
 * event in order; the events of the samples are derived once and reach every plugin once; events
 * posted from another thread arrive on the pipeline's; settle waits for a plugin's own thread; the
 * view reads the ring, identities and processes; stop delivers what was posted until then and frees
 * the plugins in reverse order. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "pipeline.h"

#define T0 1700000000000000ull

typedef struct probe {
    const char *name;
    int samples, processes, ticks, stops, frees, settles;
    int xids, lost, back, findings, own; /* events seen */
    char order[64];                      /* 's'ample, 'p'rocesses, 't'ick, 'e'vent */
    int norder;
    const pipeline_view *view;
    pthread_t self; /* the thread that must call it */
    int other_thread_calls;
} probe;

static probe A = {.name = "a"}, B = {.name = "b"};
static char freed[8];
static int nfreed;

static void note(probe *p, char c)
{
    if (p->norder < (int)sizeof p->order - 1)
        p->order[p->norder++] = c;
    if (!pthread_equal(pthread_self(), p->self))
        p->other_thread_calls++;
}

static int probe_start(const pipeline_view *view, gw_doc *cfg, void **ctx)
{
    probe *p = doc_path(cfg, "b.on") ? &B : &A;
    p->view = view;
    p->self = pthread_self();
    *ctx = p;
    view->advertise(view, p->name, p == &A ? "first" : "second");
    return 0;
}
static void probe_sample(void *ctx, int gpu, const gpu_info *info, const gpu_sample *s)
{
    (void)gpu, (void)info, (void)s;
    ((probe *)ctx)->samples++;
    note(ctx, 's');
}
static void probe_processes(void *ctx, int gpu, uint64_t t_us, const gpu_proc *procs, int n)
{
    (void)gpu, (void)t_us, (void)procs, (void)n;
    ((probe *)ctx)->processes++;
    note(ctx, 'p');
}
static void probe_tick(void *ctx, uint64_t now)
{
    probe *p = ctx;
    p->ticks++;
    note(p, 't');
    gw_event ev = {.kind = EV_FINDING, .t_us = now, .gpu = 0, .finding = {"probe", p->name, DIAG_INFO, 1}};
    p->view->post_event(p->view, &ev); /* to the other plugin (and itself) */
}
static void probe_event(void *ctx, const gw_event *ev)
{
    probe *p = ctx;
    note(p, 'e');
    p->xids += ev->kind == EV_XID;
    p->lost += ev->kind == EV_GPU_LOST;
    p->back += ev->kind == EV_GPU_BACK;
    p->findings += ev->kind == EV_FINDING && !strcmp(ev->finding.detector, "probe");
    p->own += ev->kind == EV_FINDING && !strcmp(ev->finding.detector, "thread");
}
static void probe_stop(void *ctx)
{
    probe *p = ctx;
    p->stops++;
    gw_event ev = {.kind = EV_FINDING, .gpu = 1, .finding = {"thread", "at stop", DIAG_INFO, 0}};
    p->view->post_event(p->view, &ev); /* delivered after every stop, before any free */
}
static void probe_free(void *ctx)
{
    probe *p = ctx;
    p->frees++;
    freed[nfreed++] = p->name[0];
}
static int probe_metrics(void *ctx, gw_buf *out)
{
    buf_printf(out, "probe_%s 1\n", ((probe *)ctx)->name);
    return 0;
}
static uint64_t probe_version(void *ctx)
{
    return (uint64_t)((probe *)ctx)->ticks;
}
static int probe_http(void *ctx, const agent_request *req, agent_response *resp)
{
    if (strcmp(req->path, "/x") != 0)
        return 0;
    buf_puts(&resp->body, ((probe *)ctx)->name);
    return 1;
}
static const pipeline_plugin probe_a = {.name = "a",
                                        .start = probe_start,
                                        .on_sample = probe_sample,
                                        .on_processes = probe_processes,
                                        .on_tick = probe_tick,
                                        .on_event = probe_event,
                                        .write_metrics = probe_metrics,
                                        .metrics_version = probe_version,
                                        .handle_http = probe_http,
                                        .stop = probe_stop,
                                        .free = probe_free};
static const pipeline_plugin probe_b = {.name = "b",
                                        .start = probe_start,
                                        .on_sample = probe_sample,
                                        .on_processes = probe_processes,
                                        .on_tick = probe_tick,
                                        .on_event = probe_event,
                                        .write_metrics = probe_metrics,
                                        .handle_http = probe_http,
                                        .stop = probe_stop,
                                        .free = probe_free};

/* A plugin that stays off: none of its functions may be called. */
static int off_start(const pipeline_view *view, gw_doc *cfg, void **ctx)
{
    (void)view, (void)cfg;
    *ctx = NULL;
    return 0;
}
static void off_tick(void *ctx, uint64_t now)
{
    (void)ctx, (void)now;
    fail_msg("a plugin that is off was called");
}
static const pipeline_plugin off_plugin = {.name = "off", .start = off_start, .on_tick = off_tick};

/* A plugin with a thread of its own that answers each tick a little later: settle waits for it. */
typedef struct worker {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    const pipeline_view *view;
    uint64_t tick; /* to answer, 0 none */
    int stop, answered;
    pthread_t th;
} worker;
static worker W = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

static void *worker_main(void *arg)
{
    worker *w = arg;
    pthread_mutex_lock(&w->mu);
    while (!w->stop) {
        if (!w->tick) {
            pthread_cond_wait(&w->cv, &w->mu);
            continue;
        }
        pthread_mutex_unlock(&w->mu);
        usleep(30000);
        gw_event ev = {.kind = EV_FINDING, .gpu = 0, .finding = {"thread", "answer", DIAG_INFO, 1}};
        w->view->post_event(w->view, &ev);
        pthread_mutex_lock(&w->mu);
        w->tick = 0;
        w->answered++;
        pthread_cond_broadcast(&w->cv);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}
static void worker_tick(void *ctx, uint64_t now)
{
    worker *w = ctx;
    pthread_mutex_lock(&w->mu);
    w->tick = now;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
}
static void worker_settle(void *ctx)
{
    worker *w = ctx;
    pthread_mutex_lock(&w->mu);
    while (w->tick)
        pthread_cond_wait(&w->cv, &w->mu);
    pthread_mutex_unlock(&w->mu);
}
static void worker_stop(void *ctx)
{
    worker *w = ctx;
    pthread_mutex_lock(&w->mu);
    w->stop = 1;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->th, NULL);
}
static const pipeline_plugin worker_plugin = {
    .name = "worker", .on_tick = worker_tick, .settle = worker_settle, .stop = worker_stop};

static void sample_at(gpu_sample *s, int i, gpu_status st, double xids)
{
    memset(s, 0, sizeof *s);
    s->t_us = T0 + (uint64_t)i * 1000000u;
    s->status = st;
    if (st == GPU_OK) {
        sample_set(s, M_TEMP_GPU, 40 + i);
        sample_set(s, M_XID_COUNT, xids);
        sample_set(s, M_XID_LAST, 79);
    }
}

typedef struct each_ctx {
    int n;
    uint64_t first;
} each_ctx;
static void count_each(const gpu_sample *s, void *arg)
{
    each_ctx *c = arg;
    if (!c->n++)
        c->first = s->t_us;
}

static void test_pipeline(void **st)
{
    (void)st;
    errlist errs = {0};
    gw_doc a_cfg = {0}, b_cfg = {0};
    assert_int_equal(doc_load_text(&a_cfg, "a", "a: {on: 1}\n", 11, &errs), 0);
    assert_int_equal(doc_load_text(&b_cfg, "b", "b: {on: 1}\n", 11, &errs), 0);
    pipeline *p = pipeline_new("node7");
    assert_non_null(p);
    const sample_source *src = pipeline_source(p);
    assert_int_equal(src->gpu_count(src->ctx), 0); /* no GPU before the open */
    assert_null(pipeline_ring(p));
    assert_int_equal(pipeline_add(p, &probe_a, &a_cfg), 0);
    assert_int_equal(pipeline_add(p, &off_plugin, &a_cfg), 0);
    assert_int_equal(pipeline_add(p, &probe_b, &b_cfg), 0);
    W.view = A.view;
    assert_int_equal(pthread_create(&W.th, NULL, worker_main, &W), 0);
    assert_int_equal(pipeline_attach(p, &worker_plugin, &W), 0);
    assert_string_equal(A.view->hostname, "node7");
    assert_string_equal(B.view->fact(B.view, "a"), "first"); /* what a plugin started before advertised */
    const char *keys[4], *values[4];
    assert_int_equal(pipeline_facts(p, keys, values, 4), 2);
    assert_string_equal(keys[1], "b");

    assert_int_equal(pipeline_open(p, 2, 5), 0);
    assert_int_equal(src->gpu_count(src->ctx), 2);
    gpu_info info;
    memset(&info, 0, sizeof info);
    info.index = 1;
    assert_int_equal(src->gpu_info(src->ctx, 1, &info), 0); /* not known yet */
    static const gpu_status status[] = {GPU_OK, GPU_OK, GPU_LOST, GPU_LOST, GPU_OK, GPU_OK, GPU_OK, GPU_OK};
    static const double xids[] = {1, 1, 0, 0, 3, 3, 3, 4}; /* 2 while lost, 1 more at the end */
    gpu_proc procs[3];
    memset(procs, 0, sizeof procs);
    for (int i = 0; i < 3; i++)
        procs[i].pid = 100 + (unsigned)i, procs[i].gpu = 1;
    for (int i = 0; i < 8; i++) {
        gpu_sample s;
        sample_at(&s, i, status[i], xids[i]);
        info.index = 1;
        pipeline_sample(p, 1, i == 0 ? &info : NULL, &s);
        pipeline_sample(p, 0, NULL, &s);
        pipeline_sample(p, 5, NULL, &s); /* no such GPU: ignored */
        pipeline_processes(p, 1, s.t_us, procs, i % 3 + 1);
        int before = A.findings;
        pipeline_tick(p, s.t_us);
        assert_int_equal(A.findings, before + 2); /* A's and B's posts of this tick, delivered in it */
    }
    /* every plugin saw every sample and list, and the events of the samples once per GPU */
    for (probe *x = &A; x; x = x == &A ? &B : NULL) {
        assert_int_equal(x->samples, 16);
        assert_int_equal(x->processes, 8);
        assert_int_equal(x->ticks, 8);
        assert_int_equal(x->xids, 2 * 2); /* the two after the loss, the last one; on 2 GPUs */
        assert_int_equal(x->lost, 2);
        assert_int_equal(x->back, 2);
        assert_int_equal(x->other_thread_calls, 0);
        assert_int_equal(strncmp(x->order, "sspteess", 8), 0); /* a round: samples, list, events, tick */
    }
    /* the view: identities, the ring's capacity and latest, the latest processes */
    assert_int_equal(src->gpu_info(src->ctx, 1, &info), 1);
    assert_int_equal(info.index, 1);
    assert_int_equal(src->capacity(src->ctx), 5);
    gpu_sample latest;
    assert_int_equal(src->latest(src->ctx, 1, 0, &latest), 1);
    assert_true(latest.t_us == T0 + 7000000u);
    each_ctx ec = {0};
    src->each(src->ctx, 1, 0, count_each, &ec);
    assert_int_equal(ec.n, 5);
    assert_true(ec.first == T0 + 3000000u);
    gpu_proc got[8];
    assert_int_equal(src->procs(src->ctx, 1, 0, got, 8), 2); /* the last list: 7 % 3 + 1 */
    assert_int_equal(src->procs(src->ctx, 0, 0, got, 8), 0);
    gpu_proc *all;
    assert_int_equal(pipeline_processes_all(p, &all), 2);
    assert_int_equal(all[1].pid, 101);
    free(all);

    /* settle: the worker's answer to a tick has been delivered when it returns */
    pipeline_settle(p);
    int own = A.own, answered = W.answered;
    assert_int_equal(B.own, own);
    pipeline_tick(p, T0 + 8000000u);
    pipeline_settle(p);
    assert_int_equal(W.answered, answered + 1);
    assert_int_equal(A.own, own + 1);
    assert_int_equal(B.own, own + 1);

    /* the agent's outputs */
    gw_buf m;
    buf_init(&m);
    pipeline_write_metrics(p, &m, 1);
    assert_string_equal(m.data, "probe_a 1\n");
    buf_clear(&m);
    pipeline_write_metrics(p, &m, 0);
    assert_string_equal(m.data, "probe_b 1\n");
    assert_true(pipeline_metrics_version(p) == (uint64_t)A.ticks);
    agent_response resp = {.status = 200};
    buf_init(&resp.body);
    agent_request req = {.method = "GET", .path = "/x"};
    assert_int_equal(pipeline_handle_http(p, &req, &resp), 1);
    assert_string_equal(resp.body.data, "a");
    req.path = "/y";
    assert_int_equal(pipeline_handle_http(p, &req, &resp), 0);
    buf_release(&resp.body);
    buf_release(&m);

    /* stop: every stop, then what they posted, then every free, the last started first */
    own = A.own;
    pipeline_stop(p);
    assert_int_equal(A.stops + B.stops, 2);
    assert_int_equal(A.own, own + 2); /* both stops' posts reached A before it was freed */
    assert_int_equal(nfreed, 2);
    assert_int_equal(freed[0], 'b');
    assert_int_equal(freed[1], 'a');
    pipeline_free(p);
    doc_free(&a_cfg);
    doc_free(&b_cfg);
    errlist_free(&errs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_pipeline)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
