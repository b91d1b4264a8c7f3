/* alerts.h - the alerting API the agent uses: load rules, evaluate them on recent samples,
 * notify receivers, and expose alerts to /metrics and /api/v1/alerts.
 *
 * Time is always given by the caller (`now_us`, CLOCK_REALTIME microseconds): the engine never
 * reads a clock, so tests drive it with synthetic timestamps. Thread safety: one thread calls
 * alert_engine_eval; any thread may call the *_write_metrics / *_json readers at the same time.
 *
 * Out of memory is an error like any other: a rule file is refused ("out of memory" among its
 * errors), an evaluation of a group is skipped (its alerts stay as they were; the next call evaluates
 * it again), a notification is dropped (counted at the receivers), a reader fails. */
#ifndef GPUWATCH_ALERTS_H
#define GPUWATCH_ALERTS_H

#include <stdint.h>
#include <stdio.h>
#include "alert_record.h"
#include "sample_source.h"

typedef enum { ALERT_INACTIVE, ALERT_PENDING, ALERT_FIRING } alert_state;

/* One alert as receivers and readers see it (a snapshot; strings owned by the snapshot). */
typedef struct alert_view {
    char *alertname;
    int nlabels, nannotations;
    char **label_names, **label_values; /* sorted by name, alertname included */
    char **annotation_names, **annotation_values;
    alert_state state;    /* ALERT_INACTIVE = resolved */
    int64_t active_at_us; /* startsAt */
    int64_t fired_at_us;
    int64_t resolved_at_us; /* 0 while not resolved */
    int64_t ends_at_us;     /* for Alertmanager: resolved_at, or now + 4 x resend interval */
    double value;
    int changed; /* in a dispatch: became firing, or resolved, in this evaluation */
    int due;     /* in a dispatch: to be (re)sent to Alertmanager now */
} alert_view;

typedef struct alert_list {
    alert_view *v;
    int n;
} alert_list;
void alert_list_free(alert_list *l);
void alert_view_free(alert_view *v);
const char *alert_state_name(alert_state s); /* "inactive", "pending", "firing" */

typedef struct alert_engine alert_engine;
typedef struct notifier notifier;

alert_engine *alert_engine_new(void); /* NULL when out of memory */
void alert_engine_free(alert_engine *e);
/* Loads a rule file (appends its groups). On errors (out of memory too), writes them to err (one per
 * line, FILE:LINE:COL) and returns their count (at least 1); the file's rules are not added then. */
int alert_engine_load(alert_engine *e, const char *path, FILE *err);
/* Where the shipped default rules are: $GPUWATCH_DEFAULT_RULES, next to the program
 * (../share/gpuwatch/rules/), /usr/share/gpuwatch/rules/, or the source tree. NULL if none. */
char *alerts_default_rules_path(void);
/* Same from text in memory (path names it in messages). */
int alert_engine_load_text(alert_engine *e, const char *path, const char *text, FILE *err);
int alert_engine_rule_count(const alert_engine *e);
/* Evaluation interval for groups that do not set one (default 15 s). */
void alert_engine_set_default_interval(alert_engine *e, int64_t us);
/* Labels added to every alert (e.g. Hostname). Returns 0, or -1 when out of memory (not added). */
int alert_engine_set_external_label(alert_engine *e, const char *name, const char *value);
/* Replaces the numeric threshold of every single-condition rule named alertname; returns how many. */
int alert_engine_set_threshold(alert_engine *e, const char *alertname, double threshold);
/* The diagnosis finding of detector on gpu is active at level (1 info, 2 warning, 3 critical), or
 * cleared (level 0): what finding.DETECTOR and finding.any read in conditions. Until the first call,
 * those terms are 0 (no finding). Returns 0, or -1 when out of memory (nothing changed). */
int alert_engine_set_finding(alert_engine *e, int gpu, const char *detector, int level);
/* Notifications of state changes and resends go to n (may be NULL). */
void alert_engine_set_notifier(alert_engine *e, notifier *n);
/* Also calls fn after each evaluation with the alerts that changed state or are due for sending
 * (alert_view.changed / .due), e.g. to record events in the history. fn must not call the engine. */
typedef void (*alert_listener)(const alert_list *alerts, int64_t now_us, void *arg);
void alert_engine_set_listener(alert_engine *e, alert_listener fn, void *arg);

/* ---- state across a reload and a restart (engine_carry.c; docs/alerts.md, "Reload and restart") ---- */

typedef struct alert_carry_counts {
    int rules_kept, rules_changed, rules_new, rules_removed;
    int alerts_kept;     /* pending and firing alerts that went on as they were */
    int alerts_resolved; /* firing alerts of rules that changed or went away: resolved once */
} alert_carry_counts;
/* A reload: to (just loaded, not evaluated yet) takes from from the alerts of every rule whose
 * identity did not change (group, name, condition, for, labels, scope, target GPUs: rule_key),
 * with their states, active and sent times; duplicates are matched in order. The firing alerts of
 * the other rules of from are resolved now and sent as such at to's next evaluation (pending ones
 * are dropped); resolved ones are kept and resent as any resolved alert. to also takes from's
 * findings and retired alerts. Returns 0 (c filled), or -1 when out of memory: neither engine
 * changed. */
int alert_engine_take_over(alert_engine *to, alert_engine *from, int64_t now_us, alert_carry_counts *c);

/* The state to keep for a restart: every pending and firing alert, every finding. Returns 0, or -1
 * when out of memory (out is empty). */
int alert_engine_records(alert_engine *e, alert_records *out);
/* 1 when an alert changed state or a finding changed since the last call (the records are worth
 * keeping again), then 0 until the next change. */
int alert_engine_take_changes(alert_engine *e);

typedef struct alert_restore {
    int64_t now_us;              /* the time of the restart */
    int64_t last_seen_us;        /* when the agent that kept the records was last known running (0: unknown) */
    int64_t outage_tolerance_us; /* a longer outage restores nothing */
    int64_t grace_us;            /* a restored pending alert and a restored finding: see alert_engine_restore */
} alert_restore;
typedef struct alert_restore_counts {
    int firing, pending; /* restored */
    int resolved;        /* firing alerts not restored (rule changed or gone, or too long an outage) */
    int dropped;         /* pending alerts not restored */
    int invalid;         /* records that could not be read */
    int findings;        /* findings restored */
    int too_long;        /* the outage was longer than the tolerance (or its length is unknown) */
} alert_restore_counts;
/* A restart: e (just loaded, not evaluated yet) takes back the records kept by the agent that ran
 * before, when it was down less than the outage tolerance. A firing alert of a rule whose identity
 * is unchanged goes on firing with its times (not sent as new); a pending one keeps the time it was
 * pending before the outage (not the outage itself), but needs at least the grace period (or its
 * for, if shorter) after the restart, as Prometheus' --rules.alert.for-grace-period. A finding
 * counts for the rules until the diagnosis reports on it, at most the grace period. The other firing
 * alerts are resolved now and sent as such at the next evaluation. Returns 0 (c filled), or -1 when
 * out of memory (e may hold part of the records). */
int alert_engine_restore(alert_engine *e, const alert_records *saved, const alert_restore *how,
                         alert_restore_counts *c);

/* The most samples per GPU the source keeps (a ring's capacity; 0, the default: no bound). The engine
 * keeps its rules' operands' recent values between evaluations (engine_window.c); told the source's
 * capacity, it keeps no more than the source holds, so that a ring shorter than a rule's window gives
 * the same results as before. Otherwise it keeps each rule's whole window. */
void alert_engine_set_source_capacity(alert_engine *e, int samples);

/* Evaluates the groups that are due at now_us (all groups when force). Returns how many were evaluated,
 * or -1 when a group could not be for lack of memory: its alerts are as they were and it stays due, so
 * that the next call evaluates it (logged once until an evaluation goes through). Notifications that
 * cannot be built are dropped and counted at every receiver (notifier_drop). */
int alert_engine_eval(alert_engine *e, const sample_source *src, int64_t now_us, int force);
/* The earliest time a group is due (for the caller's sleep). */
int64_t alert_engine_next_due(const alert_engine *e);

/* Pending, firing and recently resolved alerts (resolved ones are kept 15 minutes). Returns 0, or -1
 * when out of memory (out is empty). */
int alert_engine_snapshot(alert_engine *e, alert_list *out);
/* Prometheus text: gpuwatch_alert{alertname,gpu,severity,alertstate} 1 per pending/firing alert.
 * Returns 0, or -1 when out of memory or f has an error (nothing, or part, written). */
int alert_engine_write_metrics(alert_engine *e, FILE *f);
/* /api/v1/alerts body, Prometheus-shaped JSON; malloc'ed (caller frees), NULL when out of memory. */
char *alert_engine_json(alert_engine *e);

#endif
