/* event.c - events' names, and copies of them that own what they point to (see event.h). */
#include "event.h"
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[EV_KIND_COUNT] = {
    [EV_XID] = "xid",
    [EV_GPU_LOST] = "gpu_lost",
    [EV_GPU_BACK] = "gpu_back",
    [EV_THROTTLE_START] = "throttle_start",
    [EV_THROTTLE_END] = "throttle_end",
    [EV_ECC_DBE] = "ecc_dbe",
    [EV_ALERT] = "alert",
    [EV_FINDING] = "finding",
    [EV_ALERT_STATES] = "alert_states",
    [EV_DIAGNOSIS] = "diagnosis",
};

const char *event_kind_name(event_kind k)
{
    return k >= 0 && k < EV_KIND_COUNT ? kind_names[k] : "event";
}

/* *dst becomes a copy of src ("" for NULL); 0, or -1 when out of memory. */
static int dup_text(const char **dst, const char *src)
{
    *dst = strdup(src ? src : "");
    return *dst ? 0 : -1;
}

static int copy_report(const diag_report **dst, const diag_report *src)
{
    diag_report *r = calloc(1, sizeof *r);
    if (!r || diag_report_copy(r, src) != 0) {
        free(r);
        return -1;
    }
    *dst = r;
    return 0;
}

static int copy_records(const alert_records **dst, const alert_records *src)
{
    alert_records *r = malloc(sizeof *r);
    if (!r || alert_records_copy(r, src) != 0) {
        free(r);
        return -1;
    }
    *dst = r;
    return 0;
}

int event_copy(gw_event *dst, const gw_event *src)
{
    *dst = *src;
    int bad = 0;
    switch (src->kind) {
    case EV_ALERT:
        dst->alert.name = dst->alert.severity = dst->alert.summary = NULL;
        bad |= dup_text(&dst->alert.name, src->alert.name);
        bad |= dup_text(&dst->alert.severity, src->alert.severity);
        bad |= dup_text(&dst->alert.summary, src->alert.summary);
        break;
    case EV_FINDING:
        dst->finding.detector = dst->finding.summary = NULL;
        bad |= dup_text(&dst->finding.detector, src->finding.detector);
        bad |= dup_text(&dst->finding.summary, src->finding.summary);
        break;
    case EV_ALERT_STATES:
        dst->alert_states.records = NULL;
        bad |= src->alert_states.records && copy_records(&dst->alert_states.records, src->alert_states.records);
        break;
    case EV_DIAGNOSIS:
        dst->diagnosis.report = NULL;
        bad |= src->diagnosis.report && copy_report(&dst->diagnosis.report, src->diagnosis.report);
        break;
    default: break;
    }
    if (!bad)
        return 0;
    event_free(dst);
    return -1;
}

void event_free(gw_event *ev)
{
    switch (ev->kind) {
    case EV_ALERT:
        free((char *)ev->alert.name);
        free((char *)ev->alert.severity);
        free((char *)ev->alert.summary);
        break;
    case EV_FINDING:
        free((char *)ev->finding.detector);
        free((char *)ev->finding.summary);
        break;
    case EV_ALERT_STATES:
        if (ev->alert_states.records)
            alert_records_free((alert_records *)ev->alert_states.records);
        free((alert_records *)ev->alert_states.records);
        break;
    case EV_DIAGNOSIS:
        if (ev->diagnosis.report)
            diag_report_free((diag_report *)ev->diagnosis.report);
        free((diag_report *)ev->diagnosis.report);
        break;
    default: break;
    }
    memset(ev, 0, sizeof *ev);
}
