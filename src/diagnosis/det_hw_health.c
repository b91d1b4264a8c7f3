/* det_hw_health.c - hw_health: the GPU, its memory, its links or its driver failed: hardware XIDs
 * (ECC, fallen off the bus, NVLink, GSP, micro-controller, ...) grouped into bursts (one incident
 * each), new uncorrectable ECC errors, the GPU lost. The advice leads with the immediate action
 * NVIDIA's XID catalog gives for the strongest XID (reset the GPU, power-cycle the node, check the
 * power cables, ...), then what to do when an XID recurs across bursts. Application XIDs are
 * app_fault's (those inside a hardware burst are its consequence and are listed here), row
 * remapping and page retirement row_remap's. */
#include "diag_internal.h"
#include "diag_xid.h"
#include <stdio.h>
#include <string.h>

typedef struct {
    diag_bursts hw;
    diag_xid_set sympathetic; /* application XIDs inside the hardware bursts */
    int remap_xid;            /* XID 63 or 64 in the window: the 48's workflow drains and resets */
    int dbe, lost_times, lost_now;
    double lost_s;
    uint64_t from, to;
} health;

static void span(uint64_t *from, uint64_t *to, uint64_t t)
{
    if (*from == 0 || t < *from)
        *from = t;
    if (t > *to)
        *to = t;
}

static void gather(const diag_ctx *c, int gpu, health *h)
{
    uint64_t gap = (uint64_t)(c->cfg->hw_health.burst_gap_s * 1e6);
    if (diag_xid_bursts(c, gpu, 1u << XID_HARDWARE | 1u << XID_UNKNOWN, gap, NULL, &h->hw) > 0) {
        span(&h->from, &h->to, h->hw.from);
        span(&h->from, &h->to, h->hw.to);
    }
    uint64_t lost_at = 0;
    for (int i = 0; i < c->w->n_events; i++) {
        const diag_event *e = &c->w->events[i];
        if (e->gpu != gpu)
            continue;
        switch (e->kind) {
        case DIAG_EV_XID: {
            int cls = diag_xid_class_of(e->code);
            h->remap_xid |= cls == XID_REMAP;
            if (cls == XID_APP && diag_in_bursts(&h->hw, e->t_us, gap))
                diag_xid_set_add(&h->sympathetic, e->code, e->count);
            break;
        }
        case DIAG_EV_ECC_DBE:
            h->dbe = diag_count_add(h->dbe, e->count);
            span(&h->from, &h->to, e->t_us);
            break;
        case DIAG_EV_GPU_LOST:
            lost_at = e->t_us;
            h->lost_times++;
            span(&h->from, &h->to, e->t_us);
            break;
        case DIAG_EV_GPU_BACK:
            if (lost_at)
                h->lost_s += (double)(e->t_us - lost_at) / 1e6;
            lost_at = 0;
            span(&h->from, &h->to, e->t_us);
            break;
        default: break;
        }
    }
    if (lost_at && c->to_us > lost_at) {
        h->lost_s += (double)(c->to_us - lost_at) / 1e6;
        h->lost_now = 1;
        span(&h->from, &h->to, c->to_us);
    }
}

/* The strongest immediate action of what happened, and the XID it is for (0: none). */
static xid_action strongest(const health *h, int *code)
{
    xid_action a = XA_IGNORE;
    *code = 0;
    for (int i = 0; i < h->hw.all.n; i++) {
        const diag_xid *x = diag_xid_lookup(h->hw.all.code[i]);
        xid_action xa = x ? x->action : XA_RESET_GPU; /* unknown: reset, the catalog's common case */
        if (*code == 0 || xa > a) {
            a = xa;
            *code = h->hw.all.code[i];
        }
    }
    if (h->dbe && a < XA_WORKFLOW_XID_48)
        a = XA_WORKFLOW_XID_48;
    if (h->lost_times && a < XA_RESTART_BM && h->lost_now)
        a = XA_RESTART_BM; /* still unreachable: only a power cycle brings it back */
    if (h->lost_times && a < XA_RESET_GPU)
        a = XA_RESET_GPU;
    return a;
}

static void summary(const health *h, int gpu, diag_finding *f)
{
    char xids[sizeof f->summary], what[sizeof f->summary] = "";
    size_t len = 0;
    diag_xid_meanings(&h->hw.all, xids, sizeof xids);
    if (h->hw.all.n)
        len += (size_t)snprintf(what, sizeof what, "%s", xids);
    if (h->hw.n > 1 && len < sizeof what)
        len += (size_t)snprintf(what + len, sizeof what - len, " in %d bursts", h->hw.n);
    if (h->lost_times && len < sizeof what)
        len += (size_t)snprintf(what + len, sizeof what - len, "%slost %d time(s), %.0f s in all%s", len ? "; " : "",
                                h->lost_times, h->lost_s, h->lost_now ? ", still lost" : "");
    if (h->dbe && len < sizeof what)
        snprintf(what + len, sizeof what - len, "%s%d uncorrectable ECC error(s)", len ? "; " : "", h->dbe);
    diag_finding_summary(f, "GPU %d hardware error: %s", gpu, what);
}

static void advise(const health *h, int gpu, xid_action a, int code, diag_finding *f)
{
    if (code)
        diag_finding_advice(f, "NVIDIA's action for XID %d (%s): %s (GPU %d)", code, diag_xid_action_name(a),
                            diag_xid_action_text(a), gpu);
    else
        diag_finding_advice(f, "Action (%s): %s (GPU %d)", diag_xid_action_name(a), diag_xid_action_text(a), gpu);
    if (a == XA_WORKFLOW_XID_48 && h->remap_xid)
        diag_finding_advice(f, "XID 48 with a row remap (XID 63/64): drain the GPU before the reset that applies it");
    for (int i = 0; i < h->hw.all.n; i++) {
        int code_i = h->hw.all.code[i], in = diag_xid_recurring(&h->hw, code_i);
        if (in >= 2) {
            diag_finding_advice(
                f,
                "XID %d recurred in %d bursts: after the reset run `dcgmi diag -r 3`; if it comes back, "
                "contact the vendor (RMA)",
                code_i, in);
            break;
        }
    }
    if (h->dbe)
        diag_finding_advice(f, "Uncorrectable memory errors: the running job's data may be corrupt; restart it from a "
                               "checkpoint after the reset");
    if (h->lost_times)
        diag_finding_advice(f, "The GPU left the bus: check dmesg, PCIe seating, power cables and temperatures; RMA if "
                               "it recurs");
}

static void report(diag_ctx *c, int gpu, const health *h)
{
    int code;
    xid_action a = strongest(h, &code);
    int critical = diag_xid_action_drains(a) || h->dbe > 0 || h->lost_times > 0;
    diag_finding *f = diag_emit(c, "hw_health", critical ? DIAG_CRITICAL : DIAG_WARNING, gpu, h->from, h->to);
    if (!f)
        return;
    f->score = 10.0 * h->lost_times + h->dbe + (double)h->hw.all.total + a; /* counts held at INT_MAX */
    char list[sizeof(((diag_evidence *)0)->str)];
    if (h->hw.all.n) {
        diag_xid_codes(&h->hw.all, list, sizeof list);
        diag_finding_str(f, "xids", "%s", list);
        diag_finding_num(f, "xid", code ? code : h->hw.all.code[0], "");
        diag_finding_num(f, "bursts", h->hw.n, "");
        char last[40];
        diag_format_time(h->hw.b[h->hw.n - 1].from, last, sizeof last);
        diag_xid_codes(&h->hw.b[h->hw.n - 1].x, list, sizeof list);
        diag_finding_str(f, "last_burst", "%s: %s", last, list);
    }
    diag_finding_str(f, "action", "%s", diag_xid_action_name(a));
    if (h->sympathetic.n) {
        diag_xid_codes(&h->sympathetic, list, sizeof list);
        diag_finding_str(f, "sympathetic_xids", "%s", list);
    }
    if (h->dbe)
        diag_finding_num(f, "ecc_uncorrectable", h->dbe, "");
    if (h->lost_times) {
        diag_finding_num(f, "lost_times", h->lost_times, "");
        diag_finding_num(f, "lost_s", h->lost_s, "s");
    }
    summary(h, gpu, f);
    advise(h, gpu, a, code, f);
}

void det_hw_health(diag_ctx *c)
{
    for (int g = 0; g < c->n_views; g++) {
        if (!c->views[g].g->known)
            continue;
        health h;
        memset(&h, 0, sizeof h);
        gather(c, g, &h);
        if (h.hw.all.total || h.dbe || h.lost_times)
            report(c, g, &h);
    }
}
