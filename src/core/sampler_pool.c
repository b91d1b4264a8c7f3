/* sampler_pool.c - one reader thread per GPU, rounds with a deadline (see sampler_pool.h). */
#include "sampler_pool.h"
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "util.h"

/* A reader's stack: sampler_read and the backend under it need a few KB; the default 8 MB is
 * address space for nothing. */
#define READER_STACK (1024 * 1024)

typedef struct worker {
    sampler_pool *p;
    int gpu;
    pthread_t thread;
    int started;
    pthread_cond_t wake;
    /* under p->lock */
    int job;    /* asked to read */
    int busy;   /* inside a read */
    int done;   /* a result waits to be taken */
    int asked;  /* asked by the round in progress */
    int exited; /* the thread has left its loop */
    int join;   /* stop: it had exited, join it */
    uint64_t busy_since;
    /* written by the reader while busy, read by take once done: never both at once */
    pool_result res;
    gpu_proc *procs;
} worker;

struct sampler_pool {
    sampler *s;
    int n, max_procs;
    worker *w;
    pthread_mutex_t lock;
    pthread_cond_t answered; /* CLOCK_MONOTONIC: a reader finished or left */
    int stopping, interrupted;
};

static void read_gpu(sampler_pool *p, worker *w)
{
    uint64_t t0 = gw_mono_us();
    pool_result *r = &w->res;
    sampler_read(p->s, w->gpu, NULL, &r->sample);
    r->nprocs = -1;
    if (p->max_procs > 0 && r->sample.status == GPU_OK)
        r->nprocs = sampler_read_processes(p->s, w->gpu, w->procs, p->max_procs);
    const gw_gpu *g = &p->s->gpus[w->gpu];
    r->info = g->info;
    r->have_info = g->have_info;
    r->took_us = gw_mono_us() - t0;
}

static void *reader_main(void *arg)
{
    worker *w = arg;
    sampler_pool *p = w->p;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!w->job && !p->stopping)
            pthread_cond_wait(&w->wake, &p->lock);
        if (p->stopping)
            break;
        w->job = 0;
        w->busy = 1;
        w->busy_since = gw_mono_us();
        pthread_mutex_unlock(&p->lock);
        read_gpu(p, w);
        pthread_mutex_lock(&p->lock);
        w->busy = 0;
        w->done = 1;
        int pending = 0; /* the round waits for all: only the last answer wakes it */
        for (int i = 0; i < p->n; i++)
            pending += p->w[i].job || p->w[i].busy;
        if (!pending)
            pthread_cond_broadcast(&p->answered);
    }
    w->exited = 1;
    pthread_cond_broadcast(&p->answered);
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

static void pool_free(sampler_pool *p)
{
    for (int i = 0; i < p->n; i++) {
        free(p->w[i].procs);
        pthread_cond_destroy(&p->w[i].wake);
    }
    free(p->w);
    pthread_cond_destroy(&p->answered);
    pthread_mutex_destroy(&p->lock);
    free(p);
}

sampler_pool *sampler_pool_start(sampler *s, int max_procs)
{
    sampler_pool *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->s = s;
    p->n = s->count;
    p->max_procs = max_procs > 0 ? max_procs : 0;
    pthread_mutex_init(&p->lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&p->answered, &ca);
    pthread_condattr_destroy(&ca);
    p->w = calloc((size_t)(p->n ? p->n : 1), sizeof *p->w);
    if (!p->w) {
        p->n = 0;
        pool_free(p);
        return NULL;
    }
    for (int i = 0; i < p->n; i++)
        pthread_cond_init(&p->w[i].wake, NULL);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, READER_STACK);
    int ok = 1;
    for (int i = 0; i < p->n && ok; i++) {
        worker *w = &p->w[i];
        w->p = p;
        w->gpu = i;
        w->procs = p->max_procs ? calloc((size_t)p->max_procs, sizeof *w->procs) : NULL;
        ok = (!p->max_procs || w->procs) && pthread_create(&w->thread, &attr, reader_main, w) == 0;
        w->started = ok;
        if (ok) {
            char name[16];
            snprintf(name, sizeof name, "gw-gpu-%d", i % 1000);
            pthread_setname_np(w->thread, name);
        }
    }
    pthread_attr_destroy(&attr);
    if (!ok) {
        sampler_pool_stop(p, gw_mono_us() + 1000000); /* no read has begun: every thread ends */
        return NULL;
    }
    return p;
}

static void deadline_ts(uint64_t us, struct timespec *ts)
{
    ts->tv_sec = (time_t)(us / 1000000u);
    ts->tv_nsec = (long)(us % 1000000u) * 1000L;
}

int sampler_pool_round(sampler_pool *p, uint64_t deadline_us)
{
    struct timespec ts;
    deadline_ts(deadline_us, &ts);
    pthread_mutex_lock(&p->lock);
    int asked = 0;
    for (int i = 0; i < p->n; i++) {
        worker *w = &p->w[i];
        w->asked = w->started && !w->busy && !w->done && !w->job && !p->stopping;
        if (w->asked) {
            w->job = 1;
            pthread_cond_signal(&w->wake);
            asked++;
        }
    }
    while (!p->interrupted) {
        int pending = 0;
        for (int i = 0; i < p->n; i++) /* this round's, and earlier ones that may end in time */
            pending += p->w[i].job || p->w[i].busy;
        if (!pending || pthread_cond_timedwait(&p->answered, &p->lock, &ts) == ETIMEDOUT)
            break;
    }
    pthread_mutex_unlock(&p->lock);
    return asked;
}

pool_state sampler_pool_take(sampler_pool *p, int gpu, pool_result *out, gpu_proc *procs)
{
    if (gpu < 0 || gpu >= p->n)
        return POOL_IDLE;
    worker *w = &p->w[gpu];
    pool_state st = POOL_IDLE;
    pthread_mutex_lock(&p->lock);
    if (w->done) {
        *out = w->res;
        if (out->nprocs > 0 && procs)
            memcpy(procs, w->procs, (size_t)out->nprocs * sizeof *procs);
        w->done = 0;
        st = POOL_DONE;
    } else if (w->busy || w->job) {
        out->busy_since = w->busy ? w->busy_since : gw_mono_us();
        st = POOL_BUSY;
    }
    pthread_mutex_unlock(&p->lock);
    return st;
}

void sampler_pool_interrupt(sampler_pool *p)
{
    pthread_mutex_lock(&p->lock);
    p->interrupted = 1;
    pthread_cond_broadcast(&p->answered);
    pthread_mutex_unlock(&p->lock);
}

int sampler_pool_stop(sampler_pool *p, uint64_t deadline_us)
{
    if (!p)
        return 0;
    struct timespec ts;
    deadline_ts(deadline_us, &ts);
    pthread_mutex_lock(&p->lock);
    p->stopping = 1;
    p->interrupted = 1;
    for (int i = 0; i < p->n; i++)
        pthread_cond_signal(&p->w[i].wake);
    for (;;) {
        int running = 0;
        for (int i = 0; i < p->n; i++)
            running += p->w[i].started && !p->w[i].exited;
        if (!running || pthread_cond_timedwait(&p->answered, &p->lock, &ts) == ETIMEDOUT)
            break;
    }
    int abandoned = 0;
    for (int i = 0; i < p->n; i++) {
        worker *w = &p->w[i];
        w->join = w->started && w->exited;
        if (w->started && !w->exited) {
            pthread_detach(w->thread); /* inside the backend: it may never return */
            abandoned++;
        }
    }
    pthread_mutex_unlock(&p->lock);
    /* The exited ones are joined without the lock (they have released it for good). */
    for (int i = 0; i < p->n; i++)
        if (p->w[i].join)
            pthread_join(p->w[i].thread, NULL);
    if (!abandoned)
        pool_free(p);
    return abandoned;
}
