/* sampler_pool.c - reader threads ("lanes") for the GPUs of a sampler, rounds with a deadline
 * (see sampler_pool.h). All GPUs start on one lane, read one after the other: a round then costs
 * two thread wake-ups, whatever the number of GPUs. A read that is still inside the backend after
 * a quarter of the round's time (200 ms at least) keeps its lane to itself, and the GPUs queued
 * behind it move to a new lane at once; so a GPU that once hung or crawled has a thread of its own
 * from then on. */
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
/* A read is slow past a quarter of the round's time, and never before this: a GPU's first read
 * may wait 100 ms for its GPM counters to have two points. */
#define SPLIT_MIN_US 200000u

typedef struct worker { /* one GPU; every field under p->lock except res and procs */
    int lane;           /* the lane that reads it */
    int job;            /* asked to read */
    int busy;           /* inside a read */
    int done;           /* a result waits to be taken */
    uint64_t busy_since;
    /* written by the lane while busy, read by take once done: never both at once */
    pool_result res;
    gpu_proc *procs;
} worker;

typedef struct lane { /* one reader thread; fields under p->lock */
    sampler_pool *p;
    int id;
    pthread_t thread;
    pthread_cond_t wake;
    int exited, join;
    int current; /* the GPU inside a read, or -1 */
} lane;

struct sampler_pool {
    sampler *s;
    int n, max_procs;
    worker *w;
    lane *lanes; /* room for n: a lane always has at least one GPU */
    int nlanes;
    pthread_mutex_t lock;
    pthread_cond_t answered; /* CLOCK_MONOTONIC: a read finished or a lane left */
    int stopping, interrupted;
};

static void read_gpu(sampler_pool *p, int gpu)
{
    worker *w = &p->w[gpu];
    uint64_t t0 = gw_mono_us();
    pool_result *r = &w->res;
    sampler_read(p->s, gpu, NULL, &r->sample);
    r->nprocs = -1;
    r->nmig = -1;
    if (p->max_procs > 0 && r->sample.status == GPU_OK) {
        r->nprocs = sampler_read_processes(p->s, gpu, w->procs, p->max_procs);
        r->nmig = sampler_read_mig(p->s, gpu, r->mig, GW_MIG_MAX);
    }
    const gw_gpu *g = &p->s->gpus[gpu];
    r->info = g->info;
    r->have_info = g->have_info;
    r->took_us = gw_mono_us() - t0;
}

static int pending(const sampler_pool *p)
{
    int n = 0;
    for (int i = 0; i < p->n; i++)
        n += p->w[i].job || p->w[i].busy;
    return n;
}

/* The first GPU of lane l asked to read, or -1. */
static int next_job(const sampler_pool *p, int l)
{
    for (int i = 0; i < p->n; i++)
        if (p->w[i].lane == l && p->w[i].job)
            return i;
    return -1;
}

static void *lane_main(void *arg)
{
    lane *ln = arg;
    sampler_pool *p = ln->p;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        int gpu;
        while ((gpu = next_job(p, ln->id)) < 0 && !p->stopping)
            pthread_cond_wait(&ln->wake, &p->lock);
        if (p->stopping)
            break;
        worker *w = &p->w[gpu];
        w->job = 0;
        w->busy = 1;
        w->busy_since = gw_mono_us();
        ln->current = gpu;
        pthread_mutex_unlock(&p->lock);
        read_gpu(p, gpu);
        pthread_mutex_lock(&p->lock);
        ln->current = -1;
        w->busy = 0;
        w->done = 1;
        if (!pending(p)) /* the round waits for all: only the last answer wakes it */
            pthread_cond_broadcast(&p->answered);
    }
    ln->exited = 1;
    pthread_cond_broadcast(&p->answered);
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

/* Starts the thread of lane l (its GPUs already point at it). 0, or -1 when no thread. */
static int lane_start(sampler_pool *p, int l)
{
    lane *ln = &p->lanes[l];
    ln->p = p;
    ln->id = l;
    ln->current = -1;
    pthread_cond_init(&ln->wake, NULL);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, READER_STACK);
    int started = pthread_create(&ln->thread, &attr, lane_main, ln) == 0;
    pthread_attr_destroy(&attr);
    if (!started) {
        pthread_cond_destroy(&ln->wake);
        return -1;
    }
    char name[16];
    snprintf(name, sizeof name, "gw-read-%d", l % 1000);
    pthread_setname_np(ln->thread, name);
    p->nlanes = l + 1;
    return 0;
}

static void pool_free(sampler_pool *p)
{
    for (int i = 0; i < p->n; i++)
        free(p->w[i].procs);
    for (int l = 0; l < p->nlanes; l++)
        pthread_cond_destroy(&p->lanes[l].wake);
    free(p->w);
    free(p->lanes);
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
    size_t room = (size_t)(p->n ? p->n : 1);
    p->w = calloc(room, sizeof *p->w);
    p->lanes = calloc(room, sizeof *p->lanes);
    int ok = p->w && p->lanes;
    for (int i = 0; ok && i < p->n; i++) {
        p->w[i].procs = p->max_procs ? calloc((size_t)p->max_procs, sizeof *p->w[i].procs) : NULL;
        ok = !p->max_procs || p->w[i].procs;
    }
    if (!ok) {
        if (!p->w)
            p->n = 0;
        pool_free(p);
        return NULL;
    }
    if (p->n > 0 && lane_start(p, 0) != 0) { /* every GPU is on lane 0 (calloc) */
        pool_free(p);
        return NULL;
    }
    return p;
}

int sampler_pool_threads(sampler_pool *p)
{
    pthread_mutex_lock(&p->lock);
    int n = p->nlanes;
    pthread_mutex_unlock(&p->lock);
    return n;
}

/* Lane l's read has taken too long: the GPUs asked after it move to a new lane. */
static void split_lane(sampler_pool *p, int l)
{
    int slow = p->lanes[l].current, m = p->nlanes;
    if (m >= p->n)
        return;
    for (int i = 0; i < p->n; i++)
        if (p->w[i].lane == l && i != slow)
            p->w[i].lane = m;
    if (lane_start(p, m) == 0) {
        gw_log(GW_LOG_DEBUG, "gpu read slow: it keeps its reader, the others move to a new one", "gpu=%d reader=%d",
               slow, m);
        return;
    }
    for (int i = 0; i < p->n; i++) /* no thread: they wait for the slow read, as before */
        if (p->w[i].lane == m)
            p->w[i].lane = l;
}

/* Splits the lanes whose read in progress is over split_us old while other GPUs wait behind it;
 * returns when the next one would be due (or UINT64_MAX). */
static uint64_t split_slow_lanes(sampler_pool *p, uint64_t split_us)
{
    uint64_t now = gw_mono_us(), due = UINT64_MAX;
    for (int l = 0; l < p->nlanes; l++) {
        int cur = p->lanes[l].current;
        if (next_job(p, l) < 0)
            continue;
        /* a lane about to begin its reads is looked at again in split_us */
        uint64_t at = (cur >= 0 ? p->w[cur].busy_since : now) + split_us;
        if (cur >= 0 && at <= now)
            split_lane(p, l);
        else if (at < due)
            due = at;
    }
    return due;
}

static void deadline_ts(uint64_t us, struct timespec *ts)
{
    ts->tv_sec = (time_t)(us / 1000000u);
    ts->tv_nsec = (long)(us % 1000000u) * 1000L;
}

int sampler_pool_round(sampler_pool *p, uint64_t deadline_us)
{
    uint64_t start = gw_mono_us();
    uint64_t split_us = deadline_us > start ? (deadline_us - start) / 4 : 0;
    if (split_us < SPLIT_MIN_US)
        split_us = SPLIT_MIN_US;
    pthread_mutex_lock(&p->lock);
    int asked = 0;
    for (int i = 0; i < p->n; i++) {
        worker *w = &p->w[i];
        if (!p->stopping && !w->busy && !w->done && !w->job) {
            w->job = 1;
            asked++;
        }
    }
    for (int l = 0; l < p->nlanes; l++)
        if (next_job(p, l) >= 0)
            pthread_cond_signal(&p->lanes[l].wake);
    while (!p->interrupted && pending(p)) { /* this round's, and earlier ones that may end in time */
        uint64_t due = split_slow_lanes(p, split_us);
        struct timespec ts;
        deadline_ts(due < deadline_us ? due : deadline_us, &ts);
        if (pthread_cond_timedwait(&p->answered, &p->lock, &ts) == ETIMEDOUT && gw_mono_us() >= deadline_us)
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
    for (int l = 0; l < p->nlanes; l++)
        pthread_cond_signal(&p->lanes[l].wake);
    for (;;) {
        int running = 0;
        for (int l = 0; l < p->nlanes; l++)
            running += !p->lanes[l].exited;
        if (!running || pthread_cond_timedwait(&p->answered, &p->lock, &ts) == ETIMEDOUT)
            break;
    }
    int abandoned = 0;
    for (int l = 0; l < p->nlanes; l++) {
        lane *ln = &p->lanes[l];
        ln->join = ln->exited;
        if (!ln->exited) {
            pthread_detach(ln->thread); /* inside the backend: it may never return */
            abandoned++;
        }
    }
    pthread_mutex_unlock(&p->lock);
    /* The exited ones are joined without the lock (they have released it for good). */
    for (int l = 0; l < p->nlanes; l++)
        if (p->lanes[l].join)
            pthread_join(p->lanes[l].thread, NULL);
    if (!abandoned)
        pool_free(p);
    return abandoned;
}
