/* work_queue.h - one thread running jobs from a bounded FIFO. The HTTP thread hands it whatever may
 * be slow (bcrypt checks, API queries over the ring or the history), so that scrapes, which are
 * answered on the HTTP thread from the cached page, are never held up behind them. */
#ifndef GPUWATCH_WORK_QUEUE_H
#define GPUWATCH_WORK_QUEUE_H

typedef struct wq_job wq_job;
struct wq_job {
    /* Runs on the queue's thread; cancelled: the queue is stopping, answer without the slow work.
     * The queue does not touch the job once run returns (its owner may free it from run on). */
    void (*run)(wq_job *job, int cancelled);
    wq_job *next;
};

typedef struct work_queue work_queue;

/* name: the thread's name and the logs' (at most 15 characters). */
work_queue *wq_start(const char *name, int queue_max);
/* 0: queued. -1: the queue is full or stopped; the job will not run. */
int wq_submit(work_queue *q, wq_job *job);
/* Finishes the job in progress, runs the queued ones cancelled, joins the thread; submit refuses
 * from then on. wq_free stops (if needed) and frees. */
void wq_stop(work_queue *q);
void wq_free(work_queue *q);
/* Jobs run and submissions refused since the start. */
void wq_counts(work_queue *q, unsigned long *ran, unsigned long *refused);

#endif
