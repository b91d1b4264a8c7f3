/* notify.c - the notification dispatcher: per-receiver worker threads, bounded queues, retries
 * with back-off, and the failure counters. The sending itself is in notify_{exec,webhook,alertmanager}.c. */
#include "notify.h"
#include "notify_impl.h"
#include "util.h"
#include "lazy_curl.h"
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct notifier {
    pthread_mutex_t mu;
    receiver **r;
    int n;
    atomic_uint_least64_t *changes; /* see notifier_watch */
};

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static void curl_init(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
}

notifier *notifier_new(void)
{
    notifier *n = calloc(1, sizeof *n);
    if (n)
        pthread_mutex_init(&n->mu, NULL);
    return n;
}

void notifier_watch(notifier *n, atomic_uint_least64_t *changes)
{
    n->changes = changes;
}

/* After a counter of r changed (called with r->mu held). */
static void counted(receiver *r)
{
    if (r->changes)
        atomic_fetch_add(r->changes, 1);
}

void notify_job_free(notify_job *j)
{
    free(j->body);
    for (int i = 0; j->env && j->env[i]; i++)
        free(j->env[i]);
    free(j->env);
    memset(j, 0, sizeof *j);
}

/* Sleeps up to seconds, waking early when the receiver is stopped. Called with r->mu held. On the
 * monotonic clock (r->cv's): a step of the wall clock (NTP setting a fresh machine's date) neither
 * stretches nor cuts a back-off. */
static void wait_or_stop(receiver *r, double seconds)
{
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    long long ns = until.tv_nsec + (long long)(seconds * 1e9);
    until.tv_sec += (time_t)(ns / 1000000000LL);
    until.tv_nsec = (long)(ns % 1000000000LL);
    while (!r->stop && pthread_cond_timedwait(&r->cv, &r->mu, &until) != ETIMEDOUT) {
    }
}

static void deliver(receiver *r, notify_job *j)
{
    double backoff = r->cfg.backoff_s > 0 ? r->cfg.backoff_s : 1;
    int attempts = 1 + (r->cfg.kind == RCV_EXEC ? 0 : r->cfg.max_retries);
    char err[300] = "";
    for (int a = 0; a < attempts; a++) {
        err[0] = 0;
        if (r->send(r, j, err, sizeof err) == 0) {
            pthread_mutex_lock(&r->mu);
            r->sent++;
            counted(r);
            pthread_mutex_unlock(&r->mu);
            return;
        }
        gw_log(GW_LOG_WARN, "notification attempt failed", "receiver=%s attempt=%d error=\"%s\"", r->cfg.name, a + 1,
               err);
        pthread_mutex_lock(&r->mu);
        int stop = r->stop;
        if (!stop && a + 1 < attempts)
            wait_or_stop(r, backoff);
        stop = r->stop;
        pthread_mutex_unlock(&r->mu);
        backoff *= 2;
        if (stop)
            break;
    }
    pthread_mutex_lock(&r->mu);
    r->failed++;
    counted(r);
    pthread_mutex_unlock(&r->mu);
    gw_log(GW_LOG_ERROR, "notification failed", "receiver=%s error=\"%s\"", r->cfg.name, err);
}

static void *worker(void *arg)
{
    receiver *r = arg;
    sigset_t block; /* stop signals go to the main thread; a closed pipe is an error */
    sigemptyset(&block);
    sigaddset(&block, SIGPIPE);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &block, NULL);
    pthread_mutex_lock(&r->mu);
    for (;;) {
        while (!r->stop && r->count == 0)
            pthread_cond_wait(&r->cv, &r->mu);
        if (r->stop)
            break;
        notify_job j = r->q[r->head];
        r->head = (r->head + 1) % r->cap;
        r->count--;
        r->busy = 1;
        pthread_mutex_unlock(&r->mu);
        deliver(r, &j);
        notify_job_free(&j);
        pthread_mutex_lock(&r->mu);
        r->busy = 0;
        pthread_cond_broadcast(&r->cv);
    }
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

/* Counts n notifications r will never send (called with r->mu held). */
static void count_dropped(receiver *r, int n)
{
    r->dropped += (unsigned)n;
    r->failed += (unsigned)n;
    counted(r);
}

/* Queues a job (taking ownership); when the queue is full the oldest job is dropped and counted. */
void notify_enqueue(receiver *r, notify_job *j)
{
    pthread_mutex_lock(&r->mu);
    if (r->count == r->cap) {
        notify_job_free(&r->q[r->head]);
        r->head = (r->head + 1) % r->cap;
        r->count--;
        count_dropped(r, 1);
        gw_log(GW_LOG_WARN, "notification queue full, oldest dropped", "receiver=%s", r->cfg.name);
    }
    r->q[(r->head + r->count) % r->cap] = *j;
    r->count++;
    memset(j, 0, sizeof *j);
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
}

void notify_drop(receiver *r)
{
    pthread_mutex_lock(&r->mu);
    count_dropped(r, 1);
    pthread_mutex_unlock(&r->mu);
    gw_log(GW_LOG_WARN, "notification dropped: out of memory", "receiver=%s", r->cfg.name);
}

void notifier_drop(notifier *n, int count)
{
    pthread_mutex_lock(&n->mu);
    for (int i = 0; i < n->n; i++) {
        pthread_mutex_lock(&n->r[i]->mu);
        count_dropped(n->r[i], count);
        pthread_mutex_unlock(&n->r[i]->mu);
    }
    pthread_mutex_unlock(&n->mu);
}

/* *d = a copy of s (NULL stays NULL). Returns 0, or -1 when out of memory. */
static int dup_opt(char **d, const char *s)
{
    *d = s ? strdup(s) : NULL;
    return s && !*d ? -1 : 0;
}

/* Returns 0, or -1 when out of memory (d holds what was copied: receiver_config_free frees it). */
static int config_copy(receiver_config *d, const receiver_config *s)
{
    *d = *s;
    memset(d->argv, 0, sizeof d->argv);
    memset(d->urls, 0, sizeof d->urls);
    memset(d->headers, 0, sizeof d->headers);
    int bad = 0;
    for (int i = 0; !bad && i < RCV_MAX_ARGS && s->argv[i]; i++)
        bad = dup_opt(&d->argv[i], s->argv[i]);
    for (int i = 0; !bad && i < s->nurls; i++)
        bad = dup_opt(&d->urls[i], s->urls[i]);
    for (int i = 0; !bad && i < s->nheaders; i++)
        bad = dup_opt(&d->headers[i], s->headers[i]);
    d->basic_user = d->basic_password = d->ca_file = d->cert_file = d->key_file = NULL;
    bad = bad || dup_opt(&d->basic_user, s->basic_user) || dup_opt(&d->basic_password, s->basic_password) ||
          dup_opt(&d->ca_file, s->ca_file) || dup_opt(&d->cert_file, s->cert_file) ||
          dup_opt(&d->key_file, s->key_file);
    if (d->timeout_s <= 0)
        d->timeout_s = 10;
    if (d->queue_size <= 0)
        d->queue_size = 64;
    if (d->max_retries < 0)
        d->max_retries = 0;
    return bad ? -1 : 0;
}

void receiver_config_free(receiver_config *c)
{
    for (int i = 0; i < RCV_MAX_ARGS && c->argv[i]; i++)
        free(c->argv[i]);
    for (int i = 0; i < c->nurls; i++)
        free(c->urls[i]);
    for (int i = 0; i < c->nheaders; i++)
        free(c->headers[i]);
    free(c->basic_user);
    free(c->basic_password);
    free(c->ca_file);
    free(c->cert_file);
    free(c->key_file);
    memset(c, 0, sizeof *c);
}

int notifier_add(notifier *n, const receiver_config *cfg)
{
    if ((cfg->kind == RCV_EXEC && !cfg->argv[0]) || (cfg->kind != RCV_EXEC && cfg->nurls == 0))
        return -1;
    receiver *r = calloc(1, sizeof *r);
    if (!r)
        return -1;
    if (config_copy(&r->cfg, cfg) != 0) {
        receiver_config_free(&r->cfg);
        free(r);
        return -1;
    }
    r->cap = r->cfg.queue_size;
    r->q = calloc((size_t)r->cap, sizeof *r->q);
    if (cfg->kind != RCV_EXEC)
        pthread_once(&curl_once, curl_init); /* libcurl is loaded only for HTTP receivers */
    r->send = cfg->kind == RCV_EXEC      ? notify_exec_send
              : cfg->kind == RCV_WEBHOOK ? notify_webhook_send
                                         : notify_am_send;
    r->changes = n->changes;
    pthread_mutex_init(&r->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&r->cv, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_lock(&n->mu);
    receiver **all = realloc(n->r, (size_t)(n->n + 1) * sizeof *all);
    if (!r->q || !all || pthread_create(&r->thread, NULL, worker, r) != 0) {
        if (all)
            n->r = all;
        pthread_mutex_unlock(&n->mu);
        receiver_config_free(&r->cfg);
        free(r->q);
        free(r);
        return -1;
    }
    n->r = all;
    n->r[n->n++] = r;
    pthread_mutex_unlock(&n->mu);
    return 0;
}

void notifier_free(notifier *n)
{
    if (!n)
        return;
    for (int i = 0; i < n->n; i++) {
        receiver *r = n->r[i];
        pthread_mutex_lock(&r->mu);
        r->stop = 1;
        pthread_cond_broadcast(&r->cv);
        pthread_mutex_unlock(&r->mu);
        pthread_join(r->thread, NULL);
        while (r->count) {
            notify_job_free(&r->q[r->head]);
            r->head = (r->head + 1) % r->cap;
            r->count--;
        }
        free(r->q);
        receiver_config_free(&r->cfg);
        pthread_mutex_destroy(&r->mu);
        pthread_cond_destroy(&r->cv);
        free(r);
    }
    free(n->r);
    pthread_mutex_destroy(&n->mu);
    free(n);
}

void notifier_dispatch(notifier *n, const alert_list *alerts, int64_t now_us)
{
    (void)now_us; /* the engine already decided what is due (Prometheus' schedule) */
    pthread_mutex_lock(&n->mu);
    for (int i = 0; i < n->n; i++) {
        receiver *r = n->r[i];
        if (r->cfg.kind == RCV_EXEC)
            notify_exec_queue(r, alerts);
        else if (r->cfg.kind == RCV_WEBHOOK)
            notify_webhook_queue(r, alerts);
        else
            notify_am_queue(r, alerts);
    }
    pthread_mutex_unlock(&n->mu);
}

void notifier_write_metrics(notifier *n, FILE *f)
{
    static const char *const what[] = {"total", "failed_total", "dropped_total"};
    static const char *const help[] = {"Notifications delivered",
                                       "Notifications that failed (after retries) or were dropped",
                                       "Notifications dropped: the receiver's queue was full, or out of memory"};
    pthread_mutex_lock(&n->mu);
    for (int k = 0; k < 3 && n->n; k++) {
        fprintf(f, "# HELP gpuwatch_notifications_%s %s, per receiver.\n# TYPE gpuwatch_notifications_%s counter\n",
                what[k], help[k], what[k]);
        for (int i = 0; i < n->n; i++) {
            receiver *r = n->r[i];
            pthread_mutex_lock(&r->mu);
            unsigned long long v = k == 0 ? r->sent : k == 1 ? r->failed : r->dropped;
            pthread_mutex_unlock(&r->mu);
            fprintf(f, "gpuwatch_notifications_%s{receiver=\"%s\"} %llu\n", what[k], r->cfg.name, v);
        }
    }
    pthread_mutex_unlock(&n->mu);
}

int notifier_flush(notifier *n, double timeout_s)
{
    uint64_t until = gw_mono_us() + (uint64_t)(timeout_s * 1e6);
    for (;;) {
        int idle = 1;
        pthread_mutex_lock(&n->mu);
        for (int i = 0; i < n->n; i++) {
            pthread_mutex_lock(&n->r[i]->mu);
            idle &= n->r[i]->count == 0 && !n->r[i]->busy;
            pthread_mutex_unlock(&n->r[i]->mu);
        }
        pthread_mutex_unlock(&n->mu);
        if (idle)
            return 0;
        if (gw_mono_us() > until)
            return -1;
        gw_sleep_us(10000);
    }
}

/* Receiver counters for tests and the API. */
void notifier_counts(notifier *n, const char *name, unsigned long long *sent, unsigned long long *failed)
{
    *sent = *failed = 0;
    pthread_mutex_lock(&n->mu);
    for (int i = 0; i < n->n; i++)
        if (strcmp(n->r[i]->cfg.name, name) == 0) {
            pthread_mutex_lock(&n->r[i]->mu);
            *sent = n->r[i]->sent;
            *failed = n->r[i]->failed;
            pthread_mutex_unlock(&n->r[i]->mu);
        }
    pthread_mutex_unlock(&n->mu);
}
