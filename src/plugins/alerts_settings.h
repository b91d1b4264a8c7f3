/* alerts_settings.h - the `alerts:` section of the agent's config (or top's settings), read into
 * settings (and checked). */
#ifndef GPUWATCH_ALERTS_SETTINGS_H
#define GPUWATCH_ALERTS_SETTINGS_H

#include "doc.h"
#include "labels.h"
#include "notify.h"

typedef struct alerts_threshold {
    char *alertname;
    double value;
    doc_node *node;
} alerts_threshold;

typedef struct alerts_settings {
    int enabled;              /* alerts.enabled (default true) */
    int default_rules;        /* alerts.default_rules (default true) */
    char *default_rules_file; /* found, or NULL */
    char **rule_files;        /* alerts.rule_files globs, expanded */
    doc_node **rule_nodes;    /* the config entry each came from (for errors) */
    int nrule_files;
    double interval_s;            /* alerts.evaluation_interval (default 15 s) */
    double outage_tolerance_s;    /* alerts.for_outage_tolerance (default 1 h): restore states after a shorter outage */
    double grace_period_s;        /* alerts.for_grace_period (default 10 m) */
    alerts_threshold *thresholds; /* alerts.thresholds: {ALERTNAME: number} */
    int nthresholds;
    labels external;            /* alerts.external_labels */
    receiver_config *receivers; /* alerts.receivers */
    int nreceivers;
} alerts_settings;

/* Reads the section of d; problems are added to d's error list. Returns the list's error count. */
int alerts_settings_read(gw_doc *d, alerts_settings *out);
void alerts_settings_free(alerts_settings *s);

#endif
