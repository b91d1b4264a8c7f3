/* poller.c - the refresh thread: calls a top_source (its refresh: the local one feeds its pipeline,
 * the alert rules and the diagnosis, there) every interval so reading GPUs (or a slow agent) never
 * freezes the UI, and wakes the UI through a pipe after each round. */
#include "top_model.h"
#include "util.h"
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

struct top_poller {
    top_source *src;
    top_model *m;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    double interval_s;
    int paused, kicked, stop;
    int pipefd[2];
};

void top_source_round(top_source *src, top_model *m)
{
    src->refresh(src->ctx, m);
}

void top_source_close(top_source *src)
{
    if (src->close)
        src->close(src->ctx);
    src->close = NULL;
}

struct timespec top_mono_after(double s)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    uint64_t ns = (uint64_t)(s * 1e9);
    t.tv_sec += (time_t)(ns / 1000000000u);
    t.tv_nsec += (long)(ns % 1000000000u);
    if (t.tv_nsec >= 1000000000L) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000L;
    }
    return t;
}

void top_pipe_drain(int fd)
{
    char buf[256];
    while (read(fd, buf, sizeof buf) == (ssize_t)sizeof buf) {
    } /* a short read emptied the pipe */
}

static void *poll_main(void *arg)
{
    top_poller *p = arg;
    pthread_mutex_lock(&p->mu);
    while (!p->stop) {
        if (!p->paused || p->kicked) {
            p->kicked = 0;
            pthread_mutex_unlock(&p->mu);
            top_source_round(p->src, p->m);
            ssize_t w = write(p->pipefd[1], "x", 1);
            (void)w; /* a full pipe already wakes the UI */
            pthread_mutex_lock(&p->mu);
        }
        struct timespec until = top_mono_after(p->interval_s);
        while (!p->stop && !p->kicked)
            if (pthread_cond_timedwait(&p->cv, &p->mu, &until) == ETIMEDOUT)
                break;
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

top_poller *top_poller_start(top_source *src, top_model *m, double interval_s)
{
    top_poller *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->src = src;
    p->m = m;
    p->interval_s = interval_s;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&p->cv, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&p->mu, NULL);
    if (pipe2(p->pipefd, O_NONBLOCK | O_CLOEXEC) != 0 || pthread_create(&p->thread, NULL, poll_main, p) != 0) {
        pthread_cond_destroy(&p->cv);
        pthread_mutex_destroy(&p->mu);
        free(p);
        return NULL;
    }
    return p;
}

static void set_and_signal(top_poller *p, int *field, int value)
{
    pthread_mutex_lock(&p->mu);
    *field = value;
    pthread_cond_signal(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

void top_poller_set_interval(top_poller *p, double interval_s)
{
    pthread_mutex_lock(&p->mu);
    p->interval_s = interval_s;
    p->kicked = 1;
    pthread_cond_signal(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

void top_poller_pause(top_poller *p, int paused)
{
    pthread_mutex_lock(&p->mu);
    p->paused = paused;
    if (!paused)
        p->kicked = 1; /* fresh data as soon as the user resumes */
    pthread_cond_signal(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

void top_poller_kick(top_poller *p)
{
    set_and_signal(p, &p->kicked, 1);
}

int top_poller_fd(top_poller *p)
{
    return p->pipefd[0];
}

void top_poller_drain(top_poller *p)
{
    top_pipe_drain(p->pipefd[0]);
}

void top_poller_stop(top_poller *p)
{
    if (!p)
        return;
    set_and_signal(p, &p->stop, 1);
    pthread_join(p->thread, NULL);
    close(p->pipefd[0]);
    close(p->pipefd[1]);
    pthread_cond_destroy(&p->cv);
    pthread_mutex_destroy(&p->mu);
    free(p);
}
