/* notify.h - receivers of alert notifications (exec, webhook, alertmanager), each with its own
 * worker thread and bounded queue, so a slow receiver never delays the engine or the others. */
#ifndef GPUWATCH_NOTIFY_H
#define GPUWATCH_NOTIFY_H

#include <stdatomic.h>
#include <stdio.h>
#include "alerts.h"

typedef enum { RCV_EXEC, RCV_WEBHOOK, RCV_ALERTMANAGER } receiver_kind;

#define RCV_MAX_ARGS 32
#define RCV_MAX_URLS 8
#define RCV_MAX_HEADERS 16

/* A receiver's settings (from the agent's config `alerts.receivers`). */
typedef struct receiver_config {
    char name[64];
    receiver_kind kind;
    double timeout_s;  /* per attempt (default 10 s) */
    int max_retries;   /* webhook/alertmanager: extra attempts (default 3) */
    double backoff_s;  /* first back-off, doubled each retry (default 1 s) */
    int send_resolved; /* exec/webhook: also notify resolutions (default 1) */
    int queue_size;    /* pending notifications kept; the oldest is dropped (default 64) */
    /* exec */
    char *argv[RCV_MAX_ARGS + 1]; /* program and arguments, never a shell string */
    /* webhook / alertmanager */
    char *urls[RCV_MAX_URLS];
    int nurls;
    char *headers[RCV_MAX_HEADERS]; /* "Name: value" (e.g. Authorization: Bearer ...) */
    int nheaders;
    char *basic_user, *basic_password;
    char *ca_file, *cert_file, *key_file;
    int insecure_skip_verify;
} receiver_config;

notifier *notifier_new(void);
/* Adds 1 to *changes each time a receiver's counters (delivered, failed, dropped) change, so a
 * cached copy of notifier_write_metrics' text knows when it is out of date. changes must outlive n;
 * call before notifier_add. */
void notifier_watch(notifier *n, atomic_uint_least64_t *changes);
/* Stops the workers (waiting at most for their current attempt) and frees everything. */
void notifier_free(notifier *n);
/* Adds a receiver and starts its worker; the config's strings are copied. Returns 0 or -1. */
int notifier_add(notifier *n, const receiver_config *cfg);
/* Hands the alerts of one evaluation to the receivers (never blocks). The engine calls this. A
 * notification that cannot be built (out of memory) is dropped and counted (dropped, failed). */
void notifier_dispatch(notifier *n, const alert_list *alerts, int64_t now_us);
/* Counts count notifications the engine could not build (out of memory) as dropped (and failed) at
 * every receiver. */
void notifier_drop(notifier *n, int count);
/* gpuwatch_notifications_{total,failed_total,dropped_total}{receiver} in Prometheus text. */
void notifier_write_metrics(notifier *n, FILE *f);
/* Waits until every queue is empty and no send is in progress, or timeout; 0 when idle (for tests). */
int notifier_flush(notifier *n, double timeout_s);
/* Delivered and failed counts of the receiver called name (0 when there is none). */
void notifier_counts(notifier *n, const char *name, unsigned long long *sent, unsigned long long *failed);
void receiver_config_free(receiver_config *c);

#endif
