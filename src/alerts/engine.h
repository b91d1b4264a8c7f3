/* engine.h - the engine's per-alert state, shared by engine.c (state machine) and engine_view.c
 * (snapshots, /metrics, JSON). Not for use outside src/alerts. */
#ifndef GPUWATCH_ENGINE_H
#define GPUWATCH_ENGINE_H

#include <pthread.h>
#include "alerts.h"
#include "condition.h"
#include "engine_window.h"
#include "rules.h"
#include "util.h"

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
    engine_window win;      /* the rules' operands' recent values per GPU */
    int win_planned;        /* win matches rs (a load or a threshold change plans it again) */
    sample_source win_src;  /* the source win was filled from (another one starts it over) */
    int oom_logged;         /* out of memory was logged; no more until an evaluation goes through */
    gpu_proc *procs;        /* MAX_PROCS processes of a GPU, for the source to fill (allocated once) */
    finding_facts findings; /* diagnosis findings now active (finding.* in conditions) */
    rule_rt retired;        /* alerts of rules that are gone (changed, removed, not restored): resolved ones,
                               sent and kept as any resolved alert (engine_carry.c) */
    int64_t retired_due;    /* when the retired alerts are looked at next (0: at the next evaluation) */
    int states_changed;     /* an alert or a finding changed since alert_engine_take_changes */
};

/* What engine.c shares with engine_carry.c (called with e->mu held where there is an e). */
void active_alert_free(active_alert *a);
/* Room for n alerts in rt. Returns 0, or -1 when out of memory. */
int rule_rt_reserve(rule_rt *rt, int n);
active_alert *rule_rt_find(rule_rt *rt, const labels *l);
/* The fact of detector on gpu; when there is none, a new one (level 0) if add, else NULL. NULL when
 * out of memory. */
finding_fact *finding_facts_get(finding_facts *ff, int gpu, const char *detector, int add);
/* The log line of a transition ("alert firing", "alert resolved"...). */
void alert_log_transition(const active_alert *a, const char *what, gw_log_level level);

/* Fills v from an alert (copies strings); ends_at is set by the caller. Returns 0, or -1 when out of
 * memory (v is empty). */
int alert_view_fill(alert_view *v, const active_alert *a);

#endif
