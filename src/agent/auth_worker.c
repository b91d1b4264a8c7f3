/* auth_worker.c - one thread doing the slow bcrypt checks from a bounded FIFO (see auth_worker.h). */
#include "auth_worker.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"

struct auth_worker {
    auth *a;
    void (*done)(void *ctx);
    pthread_mutex_t lock;
    pthread_cond_t wake;
    pthread_t thread;
    auth_job *head, *tail;
    int queued, queue_max, stopping, joined;
    unsigned long checked, refused;
    uint64_t last_refusal_log_us;
};

static void *run(void *arg)
{
    auth_worker *w = arg;
    pthread_mutex_lock(&w->lock);
    for (;;) {
        while (!w->head && !w->stopping)
            pthread_cond_wait(&w->wake, &w->lock);
        auth_job *j = w->head;
        if (!j)
            break;   /* stopping and nothing left */
        w->head = j->next;
        if (!w->head)
            w->tail = NULL;
        w->queued--;
        int stopping = w->stopping;
        pthread_mutex_unlock(&w->lock);
        if (stopping) {
            explicit_bzero(&j->cred, sizeof j->cred);
            j->result = AUTH_JOB_DENIED;
        } else {
            j->result = auth_check_slow(w->a, &j->cred) ? AUTH_JOB_ALLOWED : AUTH_JOB_DENIED;
        }
        pthread_mutex_lock(&w->lock);
        w->checked++;
        pthread_mutex_unlock(&w->lock);
        w->done(j->ctx);   /* last use of j: its owner may free it from here on */
        pthread_mutex_lock(&w->lock);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

auth_worker *auth_worker_start(auth *a, int queue_max, void (*done)(void *ctx))
{
    auth_worker *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->a = a;
    w->done = done;
    w->queue_max = queue_max > 0 ? queue_max : 1;
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->wake, NULL);
    if (pthread_create(&w->thread, NULL, run, w) != 0) {
        pthread_cond_destroy(&w->wake);
        pthread_mutex_destroy(&w->lock);
        free(w);
        return NULL;
    }
    pthread_setname_np(w->thread, "gw-auth");
    return w;
}

int auth_worker_submit(auth_worker *w, auth_job *job)
{
    job->next = NULL;
    pthread_mutex_lock(&w->lock);
    if (w->stopping || w->queued >= w->queue_max) {
        w->refused++;
        uint64_t now = gw_mono_us();
        int log = now - w->last_refusal_log_us > 10 * 1000000ull || !w->last_refusal_log_us;
        if (log)
            w->last_refusal_log_us = now;
        unsigned long refused = w->refused;
        pthread_mutex_unlock(&w->lock);
        if (log)
            gw_log(GW_LOG_WARN, "too many password checks waiting; answering 429", "refused_total=%lu queue=%d",
                   refused, w->queue_max);
        explicit_bzero(&job->cred, sizeof job->cred);
        job->result = AUTH_JOB_BUSY;
        return -1;
    }
    if (w->tail)
        w->tail->next = job;
    else
        w->head = job;
    w->tail = job;
    w->queued++;
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->lock);
    return 0;
}

void auth_worker_stop(auth_worker *w)
{
    if (!w)
        return;
    pthread_mutex_lock(&w->lock);
    int joined = w->joined;
    w->stopping = 1;
    w->joined = 1;
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->lock);
    if (!joined)
        pthread_join(w->thread, NULL);
}

void auth_worker_free(auth_worker *w)
{
    if (!w)
        return;
    auth_worker_stop(w);
    pthread_cond_destroy(&w->wake);
    pthread_mutex_destroy(&w->lock);
    free(w);
}

void auth_worker_counts(auth_worker *w, unsigned long *checked, unsigned long *refused)
{
    pthread_mutex_lock(&w->lock);
    *checked = w->checked;
    *refused = w->refused;
    pthread_mutex_unlock(&w->lock);
}
