/* alert_record.h - the alert engine's state in the form the layers hand to each other: every
 * pending and firing alert, and the diagnosis findings its rules read. The alert engine makes
 * them, the agent's events carry them, the history keeps the latest set in its file, and the engine
 * of a restarted agent takes them back (docs/alerts.md, "Reload and restart"). Only the alert engine
 * reads the JSON strings; the others copy and store them as they are, or read the display fields. */
#ifndef GPUWATCH_ALERT_RECORD_H
#define GPUWATCH_ALERT_RECORD_H

#include <stdint.h>

#define ALERT_RECORD_FINDING_MAX 32 /* a detector's id, NUL included */

typedef struct alert_record {
    char *rule;        /* the rule's identity (its group, name and a digest of its definition) */
    char *labels;      /* the alert's label set, its identity (a JSON object) */
    char *annotations; /* its expanded annotations (a JSON object) */
    int firing;        /* 1 firing, 0 pending */
    int64_t active_at_us, fired_at_us, last_sent_at_us, valid_until_us, keep_firing_since_us;
    double value;
    /* What a screen shows of it, read by field (top's alert panel): its alertname, severity label
     * and summary annotation, its gpu label (-1 none) and its rule's `for`. Filled by the engine;
     * the history's file does not keep them (a record read back from it has them empty, gpu -1). */
    char *name, *severity, *summary;
    int gpu;
    int64_t for_us;
} alert_record;

/* A diagnosis finding active on a GPU, as the rules' finding.DETECTOR reads it. */
typedef struct finding_record {
    int gpu;
    char detector[ALERT_RECORD_FINDING_MAX];
    int level; /* 1 info, 2 warning, 3 critical */
} finding_record;

typedef struct alert_records {
    alert_record *alerts;
    int nalerts;
    finding_record *findings;
    int nfindings;
} alert_records;

/* dst (uninitialised) becomes a copy of src. Returns 0, or -1 when out of memory (dst is empty). */
int alert_records_copy(alert_records *dst, const alert_records *src);
/* Frees what r holds and empties it. */
void alert_records_free(alert_records *r);

#endif
