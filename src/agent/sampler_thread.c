/* sampler_thread.c - the agent's one sampler thread: opens the backend (retrying while it fails),
 * then reads every GPU and its processes at absolute deadlines, pushes samples into the ring,
 * publishes the state the HTTP side reads, and calls the plugins. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "agent.h"
#include "util.h"

#define OPEN_RETRY_S 5.0

/* Waits on the wake condition until the monotonic deadline; returns 1 when asked to stop. */
static int wait_until(agent *a, uint64_t deadline_us)
{
    struct timespec ts = {(time_t)(deadline_us / 1000000u), (long)(deadline_us % 1000000u) * 1000L};
    pthread_mutex_lock(&a->state_lock);
    while (!a->stopping && gw_mono_us() < deadline_us)
        if (pthread_cond_timedwait(&a->wake, &a->state_lock, &ts) == ETIMEDOUT)
            break;
    int stop = a->stopping;
    pthread_mutex_unlock(&a->state_lock);
    return stop;
}

static int open_backend(agent *a)
{
    char err[256] = "";
    backend_status st = sampler_open(&a->s, err, sizeof err);
    if (st != BK_OK) {
        pthread_mutex_lock(&a->state_lock);
        if (strcmp(a->backend_error, err) != 0)
            gw_log(GW_LOG_ERROR, "backend unavailable, retrying", "error=\"%s\" retry_s=%.0f", err, OPEN_RETRY_S);
        gw_strlcpy(a->backend_error, err, sizeof a->backend_error);
        pthread_mutex_unlock(&a->state_lock);
        return -1;
    }
    int n = a->s.count;
    double interval = agent_interval(a);
    pthread_rwlock_rdlock(&a->cfg_lock);
    int capacity = (int)ceil(a->cfg->ring_duration / interval);
    pthread_rwlock_unlock(&a->cfg_lock);
    if (capacity < 2)
        capacity = 2;
    ring *r = ring_new(n, capacity);
    gpu_info *info = calloc((size_t)(n ? n : 1), sizeof *info);
    int *have = calloc((size_t)(n ? n : 1), sizeof *have);
    gpu_proc **procs = calloc((size_t)(n ? n : 1), sizeof *procs);
    int *nprocs = calloc((size_t)(n ? n : 1), sizeof *nprocs);
    if (!r || !info || !have || !procs || !nprocs) {
        ring_free(r);
        free(info), free(have), free(procs), free(nprocs);
        sampler_close(&a->s);
        gw_log(GW_LOG_ERROR, "out of memory", NULL);
        return -1;
    }
    pthread_mutex_lock(&a->state_lock);
    a->ring = r;
    a->info = info;
    a->have_info = have;
    a->procs = procs;
    a->nprocs = nprocs;
    a->ngpus = n;
    a->backend_up = 1;
    a->simulated = a->s.versions.simulated;
    a->backend_error[0] = 0;
    a->gen++;
    gw_strlcpy(a->driver_version, a->s.versions.driver, sizeof a->driver_version);
    pthread_mutex_unlock(&a->state_lock);
    char names[64];
    sampler_backend_names(&a->s, names, sizeof names);
    gw_log(GW_LOG_INFO, "backend open", "backend=%s gpus=%d driver=%s simulated=%d ring_samples=%d", names, n,
           a->s.versions.driver, a->s.versions.simulated, capacity);
    return 0;
}

static void read_processes(agent *a, int gpu, gpu_proc *buf)
{
    int n = sampler_read_processes(&a->s, gpu, buf, AGENT_MAX_PROCS);
    if (n < 0)
        n = 0;
    gpu_proc *copy = n ? malloc((size_t)n * sizeof *copy) : NULL;
    if (n && !copy)
        n = 0;
    if (n)
        memcpy(copy, buf, (size_t)n * sizeof *copy);
    pthread_mutex_lock(&a->state_lock);
    free(a->procs[gpu]);
    a->procs[gpu] = copy;
    a->nprocs[gpu] = n;
    pthread_mutex_unlock(&a->state_lock);
    uint64_t t_us = gw_now_us();
    for (int k = 0; k < a->nplugins; k++)
        if (a->plugins[k].p->on_processes)
            a->plugins[k].p->on_processes(a->plugins[k].ctx, gpu, t_us, buf, n);
}

static void publish_round(agent *a, double took_s)
{
    backend_error_count ec[AGENT_MAX_ERRORS];
    int ne = sampler_error_counts(&a->s, ec, AGENT_MAX_ERRORS);
    pthread_mutex_lock(&a->state_lock);
    for (int i = 0; i < a->ngpus; i++) {
        a->info[i] = a->s.gpus[i].info;
        a->have_info[i] = a->s.gpus[i].have_info;
    }
    for (int i = 0; i < ne && i < AGENT_MAX_ERRORS; i++) {
        gw_strlcpy(a->errors[i].function, ec[i].function ? ec[i].function : "", sizeof a->errors[i].function);
        gw_strlcpy(a->errors[i].error, ec[i].error ? ec[i].error : "", sizeof a->errors[i].error);
        a->errors[i].count = ec[i].count;
    }
    a->nerrors = ne;
    a->sampling_duration_s = took_s;
    a->gen++;
    pthread_mutex_unlock(&a->state_lock);
}

static void sample_round(agent *a, gpu_sample *smp, gpu_proc *procbuf)
{
    uint64_t t0 = gw_mono_us();
    for (int i = 0; i < a->s.count; i++) {
        int was_lost = a->s.gpus[i].lost;
        gpu_status st = sampler_read(&a->s, i, NULL, smp);
        if (st == GPU_LOST && !was_lost)
            gw_log(GW_LOG_WARN, "gpu lost", "gpu=%d", i);
        else if (st != GPU_LOST && was_lost)
            gw_log(GW_LOG_INFO, "gpu back", "gpu=%d", i);
        ring_push(a->ring, i, smp);
        const gw_gpu *g = &a->s.gpus[i];
        for (int k = 0; k < a->nplugins; k++)
            if (a->plugins[k].p->on_sample)
                a->plugins[k].p->on_sample(a->plugins[k].ctx, i, g->have_info ? &g->info : NULL, smp);
    }
    for (int i = 0; i < a->s.count; i++)
        read_processes(a, i, procbuf);
    publish_round(a, (double)(gw_mono_us() - t0) / 1e6);
    uint64_t now = gw_now_us();
    for (int k = 0; k < a->nplugins; k++)
        if (a->plugins[k].p->on_tick)
            a->plugins[k].p->on_tick(a->plugins[k].ctx, now);
    agent_deliver_events(a);
}

static void *sampler_main(void *arg)
{
    agent *a = arg;
    gpu_sample *smp = malloc(sizeof *smp);
    gpu_proc *procbuf = malloc(AGENT_MAX_PROCS * sizeof *procbuf);
    if (!smp || !procbuf) {
        gw_log(GW_LOG_ERROR, "out of memory", NULL);
        free(smp);
        free(procbuf);
        return NULL;
    }
    while (open_backend(a) != 0)
        if (wait_until(a, gw_mono_us() + (uint64_t)(OPEN_RETRY_S * 1e6)))
            goto out;
    uint64_t next = gw_mono_us();
    for (;;) {
        sample_round(a, smp, procbuf);
        uint64_t step = (uint64_t)(agent_interval(a) * 1e6);
        next += step;
        uint64_t now = gw_mono_us();
        if (next <= now) {
            /* Overran (a slow or hanging backend): skip the missed ticks, keep the phase. */
            uint64_t missed = (now - next) / step + 1;
            next += missed * step;
            gw_log(GW_LOG_DEBUG, "sampling overran its interval", "missed=%llu", (unsigned long long)missed);
        }
        if (wait_until(a, next))
            break;
    }
out:
    free(smp);
    free(procbuf);
    return NULL;
}

int sampler_thread_start(agent *a)
{
    if (pthread_create(&a->sampler_thread, NULL, sampler_main, a) != 0)
        return -1;
    pthread_setname_np(a->sampler_thread, "gw-sampler");
    a->sampler_running = 1;
    return 0;
}

void sampler_thread_stop(agent *a)
{
    if (!a->sampler_running)
        return;
    pthread_mutex_lock(&a->state_lock);
    a->stopping = 1;
    pthread_cond_broadcast(&a->wake);
    pthread_mutex_unlock(&a->state_lock);
    pthread_join(a->sampler_thread, NULL);
    a->sampler_running = 0;
}
