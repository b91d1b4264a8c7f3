/* fleet_source.c - reading every agent of `top --hosts`: one thread and one keep-alive connection
 * (agent_client.h: every answer bounded and validated) per agent, each request bounded by a
 * timeout, so that an agent that is slow, stopped or unreachable holds up neither the others nor
 * the screen; it is marked down with the reason after its one failed read, and read again every
 * interval until it answers. /api/v1/gpus and /api/v1/processes each interval, /api/v1/findings
 * every 10 s (the agent diagnoses every minute). The clients are opened and closed on the
 * caller's thread: libcurl's global set-up is not for threads. */
#include "top_fleet.h"
#include "agent_client.h"
#include "diag.h"
#include "util.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define FINDINGS_EVERY_US 10000000u

typedef struct host_reader {
    fleet_source *src;
    int i;
    agent_client *ac;
    fleet_engine *engine; /* top --prometheus: the one reader's engine (ac NULL) */
    pthread_t thread;
    int started;
    uint64_t findings_due; /* monotonic */
} host_reader;

struct fleet_source {
    fleet_model *m;
    host_reader *r;
    int n;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    double interval_s;
    int paused, stop;
    unsigned resumes; /* +1 when reading resumes after a pause: every reader reads at once */
    int rounds_done;  /* hosts whose first read is over */
    int pipefd[2];
};

static void wake_ui(fleet_source *s)
{
    ssize_t w = write(s->pipefd[1], "x", 1);
    (void)w; /* a full pipe already wakes the UI */
}

static void read_findings(host_reader *r)
{
    char err[512];
    diag_report rep;
    diag_report_init(&rep);
    int rc = agent_client_findings(r->ac, &rep, err, sizeof err);
    if (rc != 0)
        diag_report_clear(&rep);
    fleet_host_findings(r->src->m, r->i, &rep,
                        rc == 0                  ? FIND_OK
                        : rc == AGENT_NOT_SERVED ? FIND_NOT_SERVED
                                                 : FIND_ERROR);
    diag_report_free(&rep);
}

/* One read of the agent into the model: its GPUs and processes, or why not. */
static void read_host(host_reader *r)
{
    char err[512], why[256];
    api_gpus g;
    api_procs p;
    fleet_model *m = r->src->m;
    if (agent_client_gpus(r->ac, &g, err, sizeof err) != 0) {
        fleet_reason(err, why, sizeof why);
        fleet_host_down(m, r->i, why, gw_now_us());
        return;
    }
    if (agent_client_processes(r->ac, &p, err, sizeof err) != 0) {
        api_gpus_free(&g);
        fleet_reason(err, why, sizeof why);
        fleet_host_down(m, r->i, why, gw_now_us());
        return;
    }
    fleet_host_read(m, r->i, &g, &p, gw_now_us());
    uint64_t now = gw_mono_us();
    if (now >= r->findings_due) {
        r->findings_due = now + FINDINGS_EVERY_US;
        read_findings(r);
    }
}

static void *reader_main(void *arg)
{
    host_reader *r = arg;
    fleet_source *s = r->src;
    int first = 1;
    pthread_mutex_lock(&s->mu);
    while (!s->stop) {
        if (!s->paused) {
            pthread_mutex_unlock(&s->mu);
            if (r->engine)
                fleet_engine_read(r->engine, s->m);
            else
                read_host(r);
            pthread_mutex_lock(&s->mu);
            s->rounds_done += first;
            first = 0;
            wake_ui(s);
        }
        struct timespec until = top_mono_after(s->interval_s);
        unsigned resumes = s->resumes;
        while (!s->stop && s->resumes == resumes)
            if (pthread_cond_timedwait(&s->cv, &s->mu, &until) == ETIMEDOUT)
                break;
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

/* Stops the threads started, then closes every client (on this thread). */
static void source_free(fleet_source *s)
{
    pthread_mutex_lock(&s->mu);
    s->stop = 1;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    for (int i = 0; i < s->n; i++)
        if (s->r[i].started)
            pthread_join(s->r[i].thread, NULL);
    for (int i = 0; i < s->n; i++) {
        agent_client_close(s->r[i].ac);
        fleet_engine_close(s->r[i].engine);
    }
    if (s->pipefd[0] >= 0) {
        close(s->pipefd[0]);
        close(s->pipefd[1]);
    }
    pthread_cond_destroy(&s->cv);
    pthread_mutex_destroy(&s->mu);
    free(s->r);
    free(s);
}

/* The source without its readers (room for n). NULL with err filled. */
static fleet_source *source_new(fleet_model *m, int n_readers, double interval_s, char *err, size_t n)
{
    fleet_source *s = calloc(1, sizeof *s);
    if (!s || !(s->r = calloc((size_t)(n_readers ? n_readers : 1), sizeof *s->r))) {
        free(s);
        snprintf(err, n, "out of memory");
        return NULL;
    }
    s->m = m;
    s->interval_s = interval_s;
    s->pipefd[0] = s->pipefd[1] = -1;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&s->cv, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&s->mu, NULL);
    if (pipe2(s->pipefd, O_NONBLOCK | O_CLOEXEC) != 0) {
        snprintf(err, n, "pipe: %s", strerror(errno));
        s->pipefd[0] = s->pipefd[1] = -1;
        source_free(s);
        return NULL;
    }
    return s;
}

/* Starts every reader's thread; s, or NULL (s freed) with err filled. */
static fleet_source *source_run(fleet_source *s, char *err, size_t n)
{
    for (int i = 0; i < s->n; i++) {
        if (pthread_create(&s->r[i].thread, NULL, reader_main, &s->r[i]) != 0) {
            snprintf(err, n, "cannot start a reading thread");
            source_free(s);
            return NULL;
        }
        s->r[i].started = 1;
    }
    return s;
}

fleet_source *fleet_source_start(fleet_model *m, const top_remote_opts *o, double interval_s, double timeout_s,
                                 char *err, size_t n)
{
    fleet_source *s = source_new(m, m->nhosts, interval_s, err, n);
    if (!s)
        return NULL;
    for (int i = 0; i < m->nhosts; i++) {
        http_client_opts ho = {.host = m->hosts[i].addr,
                               .tls = o->tls,
                               .cacert = o->cacert,
                               .insecure = o->insecure,
                               .user = o->user,
                               .password_file = o->password_file,
                               .user_agent = "gpuwatch-top",
                               .timeout_ms = (long)(timeout_s * 1000)};
        s->r[i] = (host_reader){.src = s, .i = i};
        s->n = i + 1;
        if (!(s->r[i].ac = agent_client_open(&ho, err, n))) {
            source_free(s);
            return NULL;
        }
        agent_client_set_detectors(s->r[i].ac, diag_detector_id, diag_detector_count());
        agent_client_want_metrics(s->r[i].ac, fleet_metrics, fleet_nmetrics);
    }
    return source_run(s, err, n);
}

fleet_source *fleet_source_start_engine(fleet_model *m, const char *url, const char *match, const top_remote_opts *o,
                                        double interval_s, double timeout_s, char *err, size_t n)
{
    fleet_source *s = source_new(m, 1, interval_s, err, n);
    if (!s)
        return NULL;
    s->r[0] = (host_reader){.src = s};
    s->n = 1;
    if (!(s->r[0].engine = fleet_engine_open(url, match, o, timeout_s, err, n))) {
        source_free(s);
        return NULL;
    }
    return source_run(s, err, n);
}

void fleet_source_set_interval(fleet_source *s, double interval_s)
{
    pthread_mutex_lock(&s->mu);
    s->interval_s = interval_s;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

void fleet_source_pause(fleet_source *s, int paused)
{
    pthread_mutex_lock(&s->mu);
    s->resumes += s->paused && !paused;
    s->paused = paused;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

int fleet_source_fd(fleet_source *s)
{
    return s->pipefd[0];
}

void fleet_source_drain(fleet_source *s)
{
    top_pipe_drain(s->pipefd[0]);
}

int fleet_source_rounds_done(fleet_source *s)
{
    pthread_mutex_lock(&s->mu);
    int n = s->rounds_done;
    pthread_mutex_unlock(&s->mu);
    return n;
}

int fleet_source_readers(fleet_source *s)
{
    return s->n;
}

void fleet_source_stop(fleet_source *s)
{
    if (s)
        source_free(s);
}
