/* work_queue.c - a thread and a bounded FIFO of jobs (see work_queue.h). */
#include "work_queue.h"
#include <pthread.h>
#include <stdlib.h>
#include "util.h"

struct work_queue {
    char name[16];
    pthread_mutex_t lock;
    pthread_cond_t wake;
    pthread_t thread;
    wq_job *head, *tail;
    int queued, queue_max, stopping, joined;
    unsigned long ran, refused;
    uint64_t last_refusal_log_us;
};

static void *run(void *arg)
{
    work_queue *q = arg;
    pthread_mutex_lock(&q->lock);
    for (;;) {
        while (!q->head && !q->stopping)
            pthread_cond_wait(&q->wake, &q->lock);
        wq_job *j = q->head;
        if (!j)
            break; /* stopping and nothing left */
        q->head = j->next;
        if (!q->head)
            q->tail = NULL;
        q->queued--;
        q->ran++;
        int cancelled = q->stopping;
        pthread_mutex_unlock(&q->lock);
        j->run(j, cancelled);
        pthread_mutex_lock(&q->lock);
    }
    pthread_mutex_unlock(&q->lock);
    return NULL;
}

work_queue *wq_start(const char *name, int queue_max)
{
    work_queue *q = calloc(1, sizeof *q);
    if (!q)
        return NULL;
    gw_strlcpy(q->name, name, sizeof q->name);
    q->queue_max = queue_max > 0 ? queue_max : 1;
    pthread_mutex_init(&q->lock, NULL);
    pthread_cond_init(&q->wake, NULL);
    if (pthread_create(&q->thread, NULL, run, q) != 0) {
        pthread_cond_destroy(&q->wake);
        pthread_mutex_destroy(&q->lock);
        free(q);
        return NULL;
    }
    pthread_setname_np(q->thread, q->name);
    return q;
}

int wq_submit(work_queue *q, wq_job *job)
{
    job->next = NULL;
    pthread_mutex_lock(&q->lock);
    if (q->stopping || q->queued >= q->queue_max) {
        q->refused++;
        uint64_t now = gw_mono_us();
        int log = !q->stopping && (!q->last_refusal_log_us || now - q->last_refusal_log_us > 10 * 1000000ull);
        if (log)
            q->last_refusal_log_us = now;
        unsigned long refused = q->refused;
        pthread_mutex_unlock(&q->lock);
        if (log)
            gw_log(GW_LOG_WARN, "work queue full; refusing requests", "queue=%s max=%d refused_total=%lu", q->name,
                   q->queue_max, refused);
        return -1;
    }
    if (q->tail)
        q->tail->next = job;
    else
        q->head = job;
    q->tail = job;
    q->queued++;
    pthread_cond_signal(&q->wake);
    pthread_mutex_unlock(&q->lock);
    return 0;
}

void wq_stop(work_queue *q)
{
    if (!q)
        return;
    pthread_mutex_lock(&q->lock);
    int joined = q->joined;
    q->stopping = 1;
    q->joined = 1;
    pthread_cond_signal(&q->wake);
    pthread_mutex_unlock(&q->lock);
    if (!joined)
        pthread_join(q->thread, NULL);
}

void wq_free(work_queue *q)
{
    if (!q)
        return;
    wq_stop(q);
    pthread_cond_destroy(&q->wake);
    pthread_mutex_destroy(&q->lock);
    free(q);
}

void wq_counts(work_queue *q, unsigned long *ran, unsigned long *refused)
{
    pthread_mutex_lock(&q->lock);
    *ran = q->ran;
    *refused = q->refused;
    pthread_mutex_unlock(&q->lock);
}
