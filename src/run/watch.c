/* watch.c - the sampling thread of gpuwatch run (watch.h). */
#include "watch.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "util.h"

#define MAX_PROCS 512

typedef struct round_buf {
    gpu_sample smp;
    gpu_proc procs[MAX_PROCS];
    int in_job[MAX_PROCS];
    pid_t tree[PROCTREE_MAX];
    gpu_proc mine[MAX_PROCS];
} round_buf;

static int in_tree(const pid_t *tree, int n, unsigned pid)
{
    for (int i = 0; i < n; i++)
        if ((unsigned)tree[i] == pid)
            return 1;
    return 0;
}

static void mark_job(round_buf *b, int n, const pid_t *tree, int ntree)
{
    for (int i = 0; i < n; i++)
        b->in_job[i] = in_tree(tree, ntree, b->procs[i].pid);
}

static void local_round(run_watch *w, round_buf *b, int ntree)
{
    for (int k = 0; k < w->ngpus; k++) {
        int g = w->gpus[k];
        double before = w->data->simulated ? sampler_sim_time(w->s) : -1;
        sampler_read(w->s, g, NULL, &b->smp);
        /* the reading's scenario time: the middle of the read (a few ms on gpusim) */
        double sim_t = w->data->simulated ? (before + sampler_sim_time(w->s)) / 2 : -1;
        const gpu_info *info = w->s->gpus[g].have_info ? &w->s->gpus[g].info : NULL;
        run_gpu *rg = run_data_gpu(w->data, g, info);
        if (!rg)
            continue;
        run_data_add_sample(w->data, rg, info, &b->smp, sim_t);
        if (w->hist)
            history_record_sample(w->hist, g, info, &b->smp);
        int n = sampler_read_processes(w->s, g, b->procs, MAX_PROCS);
        if (n < 0)
            continue;
        mark_job(b, n, b->tree, ntree);
        run_data_add_procs(w->data, g, (int64_t)b->smp.t_us, b->procs, n, b->in_job);
        if (w->hist)
            history_record_processes(w->hist, g, b->smp.t_us, b->procs, n);
    }
    if (w->hist)
        history_round_end(w->hist);
}

static const api_gpu *agent_gpu(const api_gpus *g, int index)
{
    for (int i = 0; i < g->n; i++)
        if (g->gpus[i].info.index == index)
            return &g->gpus[i];
    return NULL;
}

static void agent_round(run_watch *w, round_buf *b, int ntree)
{
    char err[256];
    api_gpus g;
    api_procs p;
    if (agent_client_gpus(w->agent, &g, err, sizeof err) != 0)
        return; /* the agent restarts or is slow: the next round tries again */
    int have_procs = agent_client_processes(w->agent, &p, err, sizeof err) == 0;
    for (int k = 0; k < w->ngpus; k++) {
        const api_gpu *ag = agent_gpu(&g, w->gpus[k]);
        if (!ag || !ag->s.t_us || ag->s.t_us == w->last_t[k])
            continue;
        w->last_t[k] = ag->s.t_us;
        run_gpu *rg = run_data_gpu(w->data, w->gpus[k], &ag->info);
        if (!rg)
            continue;
        run_data_add_sample(w->data, rg, &ag->info, &ag->s, -1);
        if (!have_procs)
            continue;
        int nm = 0;
        for (int i = 0; i < p.n && nm < MAX_PROCS; i++)
            if (p.p[i].gpu == w->gpus[k]) {
                b->in_job[nm] = in_tree(b->tree, ntree, p.p[i].pid);
                b->mine[nm++] = p.p[i];
            }
        run_data_add_procs(w->data, w->gpus[k], (int64_t)ag->s.t_us, b->mine, nm, b->in_job);
    }
    api_gpus_free(&g);
    if (have_procs)
        api_procs_free(&p);
}

static void one_round(run_watch *w, round_buf *b)
{
    run_host_point h;
    int ntree = proctree_read(&w->tree, w->root, b->tree, PROCTREE_MAX, &h);
    run_data_add_host(w->data, &h);
    if (w->agent)
        agent_round(w, b, ntree);
    else
        local_round(w, b, ntree);
}

static void *watch_main(void *arg)
{
    run_watch *w = arg;
    round_buf *b = malloc(sizeof *b);
    if (!b) {
        w->data->oom = 1;
        return NULL;
    }
    /* A GPU's first full read sets things up (GPM samples, process utilization): one read before the
     * first recorded round keeps that out of the readings' times. */
    for (int k = 0; w->s && k < w->ngpus; k++)
        sampler_read(w->s, w->gpus[k], NULL, &b->smp);
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    pthread_mutex_lock(&w->mu);
    while (!w->stop) {
        pthread_mutex_unlock(&w->mu);
        one_round(w, b);
        pthread_mutex_lock(&w->mu);
        long long ns = next.tv_nsec + (long long)(w->interval_s * 1e9);
        next.tv_sec += (time_t)(ns / 1000000000);
        next.tv_nsec = (long)(ns % 1000000000);
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec > next.tv_sec || (now.tv_sec == next.tv_sec && now.tv_nsec > next.tv_nsec))
            next = now; /* a slow round: skip, do not bunch */
        while (!w->stop && pthread_cond_timedwait(&w->cv, &w->mu, &next) != ETIMEDOUT) {
        }
    }
    pthread_mutex_unlock(&w->mu);
    one_round(w, b); /* the job's end */
    free(b);
    return NULL;
}

int watch_start(run_watch *w)
{
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, &ca);
    pthread_condattr_destroy(&ca);
    proctree_init(&w->tree);
    w->stop = 0;
    if (pthread_create(&w->th, NULL, watch_main, w) != 0)
        return -1;
    w->started = 1;
    return 0;
}

void watch_stop(run_watch *w)
{
    if (!w->started)
        return;
    pthread_mutex_lock(&w->mu);
    w->stop = 1;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->th, NULL);
    w->started = 0;
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->cv);
}
