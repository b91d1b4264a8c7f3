/* auth_worker.h - runs bcrypt checks on one thread of their own, with a bounded queue, so that
 * password guessing (each guess costs bcrypt's deliberate ~50 ms) never holds the HTTP threads
 * that answer scrapes: at most one core is spent on it, and guesses beyond the queue are refused. */
#ifndef GPUWATCH_AUTH_WORKER_H
#define GPUWATCH_AUTH_WORKER_H

#include "auth.h"

typedef struct auth_worker auth_worker;

enum { AUTH_JOB_DENIED = 0, AUTH_JOB_ALLOWED = 1, AUTH_JOB_BUSY = 2 };

typedef struct auth_job {
    auth_cred cred;        /* wiped once checked */
    void *ctx;             /* handed to the done callback (the suspended connection) */
    int result;            /* AUTH_JOB_* once done */
    struct auth_job *next;
} auth_job;

/* done(ctx) is called on the worker thread once job->result is set; the job is not touched after. */
auth_worker *auth_worker_start(auth *a, int queue_max, void (*done)(void *ctx));
/* 0: queued. -1: the queue is full or the worker stopped (job->result = AUTH_JOB_BUSY, done not called). */
int auth_worker_submit(auth_worker *w, auth_job *job);
/* Finishes the check in progress, denies the queued ones (done called for each) and joins the
 * thread; submit refuses from then on. auth_worker_free stops (if needed) and frees. */
void auth_worker_stop(auth_worker *w);
void auth_worker_free(auth_worker *w);
/* Counters since start, for logs and tests. */
void auth_worker_counts(auth_worker *w, unsigned long *checked, unsigned long *refused);

#endif
