/* notify_impl.h - what the dispatcher (notify.c) and the receiver kinds (notify_*.c) share. */
#ifndef GPUWATCH_NOTIFY_IMPL_H
#define GPUWATCH_NOTIFY_IMPL_H

#include <pthread.h>
#include "notify.h"

/* One notification for one receiver: a body (JSON) and, for exec, environment entries. */
typedef struct notify_job {
    char *body;
    char **env; /* NULL-terminated "NAME=value" list, or NULL */
} notify_job;

typedef struct receiver receiver;
struct receiver {
    receiver_config cfg;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    notify_job *q; /* ring of cap jobs from head */
    int head, count, cap;
    int busy, stop;
    unsigned long long sent, failed, dropped;
    atomic_uint_least64_t *changes; /* notifier_watch's counter, or NULL */
    /* One attempt; 0 on success, else -1 with a message in err. */
    int (*send)(receiver *r, const notify_job *j, char *err, size_t errlen);
};

void notify_enqueue(receiver *r, notify_job *j);
/* Counts a notification that could not be built (out of memory) as dropped and failed, and logs it. */
void notify_drop(receiver *r);
void notify_job_free(notify_job *j);

/* Per kind: which alerts of an evaluation make jobs (notify_drop for those that cannot be built), and
 * how one job is sent. */
void notify_exec_queue(receiver *r, const alert_list *alerts);
int notify_exec_send(receiver *r, const notify_job *j, char *err, size_t errlen);
void notify_webhook_queue(receiver *r, const alert_list *alerts);
int notify_webhook_send(receiver *r, const notify_job *j, char *err, size_t errlen);
void notify_am_queue(receiver *r, const alert_list *alerts);
int notify_am_send(receiver *r, const notify_job *j, char *err, size_t errlen);
/* POSTs body as JSON to url with the receiver's headers, auth, TLS and timeout (libcurl). */
int notify_http_post(const receiver_config *c, const char *url, const char *body, char *err, size_t errlen);

#endif
