/* sampler_thread.c - the agent's sampler thread: opens the backend (retrying while it fails), then
 * at absolute deadlines has every GPU and its processes read by the GPUs' reader threads
 * (sampler_pool.h) and waits for them until half an interval, hands the samples and processes to
 * the pipeline (its ring, events and plugins), and publishes the state the HTTP side reads. It never
 * calls the backend itself once open: a GPU whose read hangs is marked hung and the others go on. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "agent.h"
#include "util.h"

#define OPEN_RETRY_S 5.0
#define POOL_STOP_US 500000u /* how long the stopping sampler waits for readers inside a read */

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
    pthread_mutex_lock(&a->state_lock);
    a->in_open = 1;
    pthread_mutex_unlock(&a->state_lock);
    /* identities are read by each GPU's reader: a call that hangs on one GPU holds up only it */
    backend_status st = sampler_open_deferred(&a->s, err, sizeof err);
    pthread_mutex_lock(&a->state_lock);
    a->in_open = 0;
    int stopping = a->stopping;
    pthread_mutex_unlock(&a->state_lock);
    if (stopping) {
        /* stopped while the open hung: agent_stop may have gone on without this thread */
        if (st == BK_OK)
            sampler_close(&a->s);
        return -1;
    }
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
    uint64_t *hung = calloc((size_t)(n ? n : 1), sizeof *hung);
    gpu_status *status = calloc((size_t)(n ? n : 1), sizeof *status);
    xid_tally *xids = calloc((size_t)(n ? n : 1), sizeof *xids);
    gpu_mig *mig = calloc((size_t)(n ? n : 1) * GW_MIG_MAX, sizeof *mig);
    int *nmig = calloc((size_t)(n ? n : 1), sizeof *nmig);
    /* the pipeline's GPUs are set once: a second open (never reached today) keeps them */
    int opened = pipeline_ring(a->pl) || pipeline_open(a->pl, n, capacity) == 0;
    sampler_pool *pool =
        opened && hung && status && xids && mig && nmig ? sampler_pool_start(&a->s, AGENT_MAX_PROCS) : NULL;
    if (!pool) {
        free(hung), free(status), free(xids), free(mig), free(nmig);
        sampler_close(&a->s);
        gw_log(GW_LOG_ERROR, "cannot start sampling: out of memory or threads", NULL);
        return -1;
    }
    pthread_mutex_lock(&a->state_lock);
    a->pool = pool;
    a->hung_since = hung;
    a->status = status;
    a->xids = xids;
    a->mig = mig;
    a->nmig = nmig;
    a->ngpus = n;
    a->backend_up = 1;
    a->simulated = a->s.versions.simulated;
    pipeline_host_fact(a->pl, "simulated", a->simulated ? "1" : "0");
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

/* One GPU's read to the pipeline (its sample, identity and processes); the GPU is no longer hung. */
static void publish_gpu(agent *a, int gpu, const pool_result *r, gpu_proc *buf)
{
    pthread_mutex_lock(&a->state_lock);
    a->hung_since[gpu] = 0;
    if (r->nmig >= 0) { /* read with the processes: the MIG devices as they are now */
        a->nmig[gpu] = r->nmig < GW_MIG_MAX ? r->nmig : GW_MIG_MAX;
        memcpy(&a->mig[(size_t)gpu * GW_MIG_MAX], r->mig, (size_t)a->nmig[gpu] * sizeof *r->mig);
    }
    pthread_mutex_unlock(&a->state_lock);
    pipeline_sample(a->pl, gpu, r->have_info ? &r->info : NULL, &r->sample);
    pipeline_processes(a->pl, gpu, gw_now_us(), buf, r->nprocs > 0 ? r->nprocs : 0);
}

static void publish_round(agent *a, double took_s)
{
    backend_error_count ec[AGENT_MAX_ERRORS];
    int ne = sampler_error_counts(&a->s, ec, AGENT_MAX_ERRORS);
    pthread_mutex_lock(&a->state_lock);
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

/* A GPU whose read is still in progress: hung once it has taken over max(2 intervals, 1 s). */
static void note_busy(agent *a, int gpu, uint64_t since, uint64_t now, double interval)
{
    double limit = 2 * interval > 1 ? 2 * interval : 1;
    if (a->hung_since[gpu] || (double)(now - since) / 1e6 <= limit)
        return;
    gw_log(GW_LOG_WARN, "gpu read hung; the other GPUs go on", "gpu=%d seconds=%.1f", gpu, (double)(now - since) / 1e6);
    pthread_mutex_lock(&a->state_lock);
    a->hung_since[gpu] = since;
    pthread_mutex_unlock(&a->state_lock);
}

static void note_done(agent *a, int gpu, const pool_result *r)
{
    gpu_status st = r->sample.status, was = a->status[gpu];
    if (a->hung_since[gpu])
        gw_log(GW_LOG_INFO, "gpu read returned", "gpu=%d seconds=%.1f", gpu, (double)r->took_us / 1e6);
    if (st == GPU_LOST && was != GPU_LOST)
        gw_log(GW_LOG_WARN, "gpu lost", "gpu=%d", gpu);
    else if (st != GPU_LOST && was == GPU_LOST)
        gw_log(GW_LOG_INFO, "gpu back", "gpu=%d", gpu);
    if (st == GPU_ERROR && was != GPU_ERROR)
        gw_log(GW_LOG_WARN, "gpu read failed", "gpu=%d", gpu);
    a->status[gpu] = st;
}

/* Takes what the readers have for the ring and the plugins; notes the GPUs still busy. */
static void take_results(agent *a, pool_result *res, gpu_proc *procbuf, double interval)
{
    for (int i = 0; i < a->s.count; i++) {
        pool_state st = sampler_pool_take(a->pool, i, res, procbuf);
        if (st == POOL_BUSY)
            note_busy(a, i, res->busy_since, gw_mono_us(), interval);
        if (st != POOL_DONE)
            continue;
        note_done(a, i, res);
        pthread_mutex_lock(&a->state_lock);
        xid_tally_add(&a->xids[i], &res->sample);
        pthread_mutex_unlock(&a->state_lock);
        publish_gpu(a, i, res, procbuf);
    }
}

static void sample_round(agent *a, pool_result *res, gpu_proc *procbuf)
{
    uint64_t t0 = gw_mono_us();
    double interval = agent_interval(a);
    /* Late answers of the last round first, so that their GPUs are asked again now. */
    take_results(a, res, procbuf, interval);
    /* Half an interval for the answers: a slower one is taken at the start of the next round. */
    sampler_pool_round(a->pool, t0 + (uint64_t)(interval * 0.5e6));
    double took_s = (double)(gw_mono_us() - t0) / 1e6;
    take_results(a, res, procbuf, interval);
    publish_round(a, took_s);
    pipeline_tick(a->pl, gw_now_us());
}

static void *sampler_main(void *arg)
{
    agent *a = arg;
    pool_result *res = malloc(sizeof *res);
    gpu_proc *procbuf = malloc(AGENT_MAX_PROCS * sizeof *procbuf);
    if (!res || !procbuf) {
        gw_log(GW_LOG_ERROR, "out of memory", NULL);
        goto out;
    }
    while (open_backend(a) != 0)
        if (wait_until(a, gw_mono_us() + (uint64_t)(OPEN_RETRY_S * 1e6)))
            goto out;
    uint64_t next = gw_mono_us();
    for (;;) {
        sample_round(a, res, procbuf);
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
    free(res);
    free(procbuf);
    pthread_mutex_lock(&a->state_lock);
    sampler_pool *pool = a->pool;
    a->pool = NULL;
    pthread_mutex_unlock(&a->state_lock);
    /* Readers inside a read get a moment; one inside a call that never returns is left there. */
    int left = sampler_pool_stop(pool, gw_mono_us() + POOL_STOP_US);
    if (left)
        gw_log(GW_LOG_WARN, "gpu readers left inside the backend", "readers=%d", left);
    pthread_mutex_lock(&a->state_lock);
    a->abandoned |= left > 0;
    a->sampler_exited = 1;
    pthread_cond_broadcast(&a->wake);
    pthread_mutex_unlock(&a->state_lock);
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

int sampler_thread_stop(agent *a, uint64_t deadline_us)
{
    if (!a->sampler_running)
        return 0;
    struct timespec ts = {(time_t)(deadline_us / 1000000u), (long)(deadline_us % 1000000u) * 1000L};
    pthread_mutex_lock(&a->state_lock);
    a->stopping = 1;
    pthread_cond_broadcast(&a->wake);
    if (a->pool)
        sampler_pool_interrupt(a->pool); /* a round waiting for answers ends now */
    while (!a->sampler_exited)
        if (pthread_cond_timedwait(&a->wake, &a->state_lock, &ts) == ETIMEDOUT)
            break;
    int exited = a->sampler_exited, in_open = a->in_open;
    if (!exited)
        a->abandoned = 1;
    pthread_mutex_unlock(&a->state_lock);
    a->sampler_running = 0;
    if (exited) {
        pthread_join(a->sampler_thread, NULL);
        return a->abandoned ? -1 : 0;
    }
    /* Inside the backend's open (a hung nvmlInit), or a plugin call that does not return. */
    gw_log(GW_LOG_WARN, "sampler thread did not stop in time; leaving it", "in_backend_open=%d", in_open);
    pthread_detach(a->sampler_thread);
    return -1;
}
