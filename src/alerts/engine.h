/* engine.h - the engine's per-alert state, shared by engine.c (state machine) and engine_view.c
 * (snapshots, /metrics, JSON). Not for use outside src/alerts. */
#ifndef GPUWATCH_ENGINE_H
#define GPUWATCH_ENGINE_H

#include <pthread.h>
#include "alerts.h"
#include "engine_window.h"
#include "rules.h"

#define ALERT_RESOLVED_RETENTION_US (15LL * 60 * 1000000) /* resolved alerts kept and resent */
#define ALERT_RESEND_DELAY_US (60LL * 1000000)            /* Prometheus' --rules.alert.resend-delay */
#define ALERT_DEFAULT_INTERVAL_US (15LL * 1000000)

typedef struct active_alert {
    labels labels;      /* identity, alertname included */
    labels annotations; /* expanded */
    alert_state state;
    double value;
    int64_t active_at, fired_at, resolved_at, keep_firing_since, last_sent_at, valid_until;
    int seen;    /* in the current evaluation's result */
    int changed; /* became firing, or resolved, in the current evaluation */
} active_alert;

typedef struct rule_rt {
    active_alert *a;
    int n, cap;
} rule_rt;

typedef struct group_rt {
    int64_t next_due; /* 0: at the first evaluation */
    rule_rt *rules;
} group_rt;

struct alert_engine {
    pthread_mutex_t mu;
    ruleset rs;
    group_rt *rt; /* parallel to rs.groups */
    int64_t default_interval;
    labels external;
    notifier *notifier;
    alert_listener listener;
    void *listener_arg;
    engine_window win;     /* the rules' operands' recent values per GPU */
    int win_planned;       /* win matches rs (a load or a threshold change plans it again) */
    sample_source win_src; /* the source win was filled from (another one starts it over) */
    int oom_logged;        /* out of memory was logged; no more until an evaluation goes through */
    gpu_proc *procs;       /* MAX_PROCS processes of a GPU, for the source to fill (allocated once) */
};

/* Fills v from an alert (copies strings); ends_at is set by the caller. Returns 0, or -1 when out of
 * memory (v is empty). */
int alert_view_fill(alert_view *v, const active_alert *a);

#endif
