/* event_text.c - events as the history's file keeps them: a kind and a detail text, written from
 * the typed event (event.h) and read back into one. The texts are those the file has always held
 * ("xid=79", "alertname=... state=firing ..."): files of every version read the same. */
#include "hist_internal.h"
#include "history_read.h"
#include "util.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A throttle reason's short name: the catalog field after its last dot ("sw_power_cap"). */
static const char *reason_name(metric_id id)
{
    const metric_def *d = catalog_get(id);
    const char *dot = strrchr(d->field, '.');
    return dot ? dot + 1 : d->field;
}

static int is_reason(metric_id id)
{
    if (id < M_STR_END || id >= M_COUNT)
        return 0;
    const metric_def *d = catalog_get(id);
    return (d->flags & MF_BIT) && d->parent == M_CER_ACTIVE;
}

int history_event_text(const gw_event *ev, char *detail, size_t n)
{
    char value[40];
    switch (ev->kind) {
    case EV_XID:
        if (ev->xid.code > 0)
            snprintf(detail, n, "xid=%d", ev->xid.code);
        else
            snprintf(detail, n, "xid=unknown");
        return 0;
    case EV_GPU_LOST:
    case EV_GPU_BACK: snprintf(detail, n, "%s", ""); return 0;
    case EV_THROTTLE_START:
    case EV_THROTTLE_END:
        if (!is_reason(ev->throttle.reason))
            return -1;
        snprintf(detail, n, "%s", reason_name(ev->throttle.reason));
        return 0;
    case EV_ALERT:
        gw_format_number(ev->alert.value, value, sizeof value);
        snprintf(detail, n, "alertname=%s state=%s severity=%s value=%s summary=\"%s\"", ev->alert.name,
                 ev->alert.firing ? "firing" : "resolved", ev->alert.severity ? ev->alert.severity : "", value,
                 ev->alert.summary ? ev->alert.summary : "");
        return 0;
    case EV_FINDING:
        snprintf(detail, n, "detector=%s severity=%s state=%s summary=\"%s\"", ev->finding.detector,
                 diag_severity_name(ev->finding.severity), ev->finding.active ? "active" : "resolved",
                 ev->finding.summary ? ev->finding.summary : "");
        return 0;
    default: return -1; /* ecc_dbe, alert_states (kept apart), diagnosis: not in the events table */
    }
}

/* The XID of an "xid=79" detail; 0 for "xid=unknown" or a text that is not one. */
static int xid_of(const char *detail)
{
    if (strncmp(detail, "xid=", 4) != 0)
        return 0;
    char *end;
    errno = 0;
    long v = strtol(detail + 4, &end, 10);
    return errno == 0 && end != detail + 4 && v > 0 && v <= 1000000 ? (int)v : 0;
}

int history_event_parse(uint64_t t_us, int gpu, const char *kind, const char *detail, gw_event *out)
{
    memset(out, 0, sizeof *out);
    out->t_us = t_us;
    out->gpu = gpu;
    detail = detail ? detail : "";
    if (strcmp(kind, "xid") == 0) {
        out->kind = EV_XID;
        out->xid.code = xid_of(detail);
        out->xid.count = 1;
        return 0;
    }
    if (strcmp(kind, "gpu_lost") == 0 || strcmp(kind, "gpu_back") == 0) {
        out->kind = kind[4] == 'l' ? EV_GPU_LOST : EV_GPU_BACK;
        return 0;
    }
    int start = strcmp(kind, "throttle_start") == 0;
    if (start || strcmp(kind, "throttle_end") == 0) {
        for (int m = M_STR_END; m < M_COUNT; m++)
            if (is_reason((metric_id)m) && strcmp(reason_name((metric_id)m), detail) == 0) {
                out->kind = start ? EV_THROTTLE_START : EV_THROTTLE_END;
                out->throttle.reason = (metric_id)m;
                return 0;
            }
    }
    return -1;
}
