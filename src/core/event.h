/* event.h - something that happened, as the layers hand it to each other: a tagged struct read by
 * field, never formatted and parsed back. Events of a GPU's samples (an XID, the GPU lost or back,
 * a throttle reason, uncorrectable ECC errors) come from one derivation (event_derive); the others
 * are posted by the pipeline's plugins (an alert, a finding, the alert engine's state, a diagnosis
 * run). Only the history turns them into text, for its file (docs/history.md, "Events"). */
#ifndef GPUWATCH_EVENT_H
#define GPUWATCH_EVENT_H

#include <stdint.h>
#include "alert_record.h"
#include "diag_report.h"
#include "sample.h"

typedef enum {
    EV_XID,            /* xid: new XID errors */
    EV_GPU_LOST,       /* the GPU stopped answering */
    EV_GPU_BACK,       /* it answers again */
    EV_THROTTLE_START, /* throttle: a clock event reason became active */
    EV_THROTTLE_END,   /* throttle: it is no longer active */
    EV_ECC_DBE,        /* ecc: new uncorrectable (double-bit) ECC errors */
    EV_ALERT,          /* alert: an alert started firing or resolved */
    EV_FINDING,        /* finding: a diagnosis finding appeared, changed severity or cleared */
    EV_ALERT_STATES,   /* alert_states: the alert engine's whole state (every pending and firing alert) */
    EV_DIAGNOSIS,      /* diagnosis: a diagnosis run's whole report */
    EV_KIND_COUNT
} event_kind;

typedef struct gw_event {
    event_kind kind;
    uint64_t t_us; /* CLOCK_REALTIME */
    int gpu;       /* -1: not about one GPU */
    union {
        struct {
            int code;  /* the XID (xid.last); 0: not known */
            int count; /* how many new ones (xid.count's growth), at least 1 */
        } xid;
        struct {
            metric_id reason; /* a clocks_event_reasons.* bit metric of the catalog */
        } throttle;
        struct {
            int count; /* at least 1 */
        } ecc;
        struct {
            const char *name;     /* alertname */
            const char *severity; /* its severity label ("" none) */
            const char *summary;  /* its summary annotation ("" none) */
            double value;
            int firing; /* 1 started firing, 0 resolved */
        } alert;
        struct {
            const char *detector; /* a detector's id */
            const char *summary;  /* "" when cleared */
            diag_severity severity;
            int active; /* 1 appeared or changed severity, 0 cleared */
        } finding;
        struct {
            const alert_records *records;
            int changed; /* what a restart would restore changed (else only values and summaries) */
        } alert_states;
        struct {
            const diag_report *report; /* NULL: the run failed (out of memory) */
            uint64_t next_us;          /* when the next run is due (CLOCK_REALTIME) */
        } diagnosis;
    };
} gw_event;

/* The kind as the history's file and `gpuwatch events` name it: "xid", "gpu_lost", ... */
const char *event_kind_name(event_kind k);

/* dst becomes a copy of src that owns its strings, records and report (free it with event_free).
 * Returns 0, or -1 when out of memory (dst holds nothing to free). */
int event_copy(gw_event *dst, const gw_event *src);
/* Frees what a copy owns. */
void event_free(gw_event *ev);

/* ---- events from a GPU's samples ---- */

/* What the derivation keeps of a GPU's samples before the next one (zeroed: none seen yet). */
typedef struct event_deriver {
    int seen;    /* a sample was seen */
    int lost;    /* the latest sample said GPU_LOST */
    int last_ok; /* the latest sample was good (GPU_OK) */
    int has_good;
    /* the latest good sample's values (NAN: it had none) */
    double xid_count, xid_last, dbe_volatile, dbe_aggregate, reasons;
} event_deriver;

/* Derives the events between a GPU's previous samples and s (each GPU's samples in time order, one
 * deriver per GPU), and calls emit with each, at s's time:
 * - gpu_lost when s says GPU_LOST and the sample before did not (or s is the first), gpu_back when
 *   it did and s does not;
 * - on a good sample only, against the latest good one (an XID that came while the GPU could not be
 *   read is seen in the first good sample after): xid when xid.count grew (count: by how much; a
 *   counter that went down was reset, no event), or, without xid.count, when xid.last changed to
 *   another non-zero XID (count 1); ecc_dbe when the volatile uncorrectable ECC count grew (the
 *   aggregate one without it);
 * - throttle_start / throttle_end for each clocks_event_reasons.* bit (gpu_idle aside) that changed
 *   between two good samples in a row. */
void event_derive(event_deriver *d, int gpu, const gpu_sample *s, void (*emit)(const gw_event *ev, void *arg),
                  void *arg);

#endif
