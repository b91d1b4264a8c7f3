/* det_hw_health.c - hw_health: hardware trouble on a GPU: critical XIDs (ECC, row remapping,
 * fallen off the bus, NVLink, GSP, ...), new uncorrectable ECC errors, row remaps pending or
 * failed, the GPU lost. Application XIDs (13, 31, 43, 45, 68, ...) are the job's fault and get
 * their own, lower finding. Each XID is named with its meaning and action (diag_xid.c). */
#include "diag_internal.h"
#include "diag_xid.h"
#include <stdio.h>
#include <string.h>

#define MAX_CODES 16

typedef struct {
    int code[MAX_CODES], count[MAX_CODES], n;
    uint64_t from, to;
} xid_list;

typedef struct {
    xid_list hw, app;
    int dbe, remap_unc, pending, failure, lost_times;
    double lost_s;
    uint64_t from, to; /* the hardware events */
} health;

static void span(uint64_t *from, uint64_t *to, uint64_t t)
{
    if (*from == 0 || t < *from)
        *from = t;
    if (t > *to)
        *to = t;
}

static void xid_add(xid_list *l, int code, int count, uint64_t t)
{
    span(&l->from, &l->to, t);
    for (int i = 0; i < l->n; i++)
        if (l->code[i] == code) {
            l->count[i] += count;
            return;
        }
    if (l->n < MAX_CODES) {
        l->code[l->n] = code;
        l->count[l->n++] = count;
    }
}

static void gather(const diag_ctx *c, int gpu, health *h)
{
    uint64_t lost_at = 0;
    for (int i = 0; i < c->w->n_events; i++) {
        const diag_event *e = &c->w->events[i];
        if (e->gpu != gpu)
            continue;
        const diag_xid *x = e->kind == DIAG_EV_XID ? diag_xid_lookup(e->code) : NULL;
        if (e->kind == DIAG_EV_XID && x && x->cls == XID_APP) {
            xid_add(&h->app, e->code, e->count, e->t_us);
            continue;
        }
        span(&h->from, &h->to, e->t_us);
        switch (e->kind) {
        case DIAG_EV_XID: xid_add(&h->hw, e->code, e->count, e->t_us); break;
        case DIAG_EV_ECC_DBE: h->dbe += e->count; break;
        case DIAG_EV_REMAP_UNC: h->remap_unc += e->count; break;
        case DIAG_EV_REMAP_PENDING: h->pending = 1; break;
        case DIAG_EV_REMAP_FAILURE: h->failure = 1; break;
        case DIAG_EV_GPU_LOST:
            lost_at = e->t_us;
            h->lost_times++;
            break;
        case DIAG_EV_GPU_BACK:
            if (lost_at)
                h->lost_s += (double)(e->t_us - lost_at) / 1e6;
            lost_at = 0;
            break;
        }
    }
    if (lost_at && c->to_us > lost_at) {
        h->lost_s += (double)(c->to_us - lost_at) / 1e6;
        span(&h->from, &h->to, c->to_us);
    }
}

/* "48 x1, 63 x2": the codes and how often each came. */
static void codes(const xid_list *l, char *out, size_t n)
{
    size_t len = 0;
    out[0] = 0;
    for (int i = 0; i < l->n && len < n; i++)
        len += (size_t)snprintf(out + len, n - len, "%s%d x%d", i ? ", " : "", l->code[i], l->count[i]);
}

/* "XID 48 (double-bit ...); XID 63 (...) repeated" and the worst XID's criticality. */
static int describe(const xid_list *l, char *out, size_t n)
{
    size_t len = 0;
    int critical = 0;
    out[0] = 0;
    for (int i = 0; i < l->n && len < n; i++) {
        const diag_xid *x = diag_xid_lookup(l->code[i]);
        critical |= x && x->critical;
        const char *meaning = x ? x->meaning : (l->code[i] ? "not in the XID table" : "code not read");
        len += (size_t)snprintf(out + len, n - len, "%sXID %d (%s)%s", i ? "; " : "", l->code[i], meaning,
                                l->count[i] > 1 ? " repeated" : "");
    }
    return critical;
}

static void advise_xids(diag_finding *f, const xid_list *l)
{
    for (int i = 0; i < l->n; i++) {
        const diag_xid *x = diag_xid_lookup(l->code[i]);
        if (x)
            diag_finding_advice(f, "XID %d: %s", x->code, x->action);
        else
            diag_finding_advice(f, "XID %d: look it up in NVIDIA's XID catalog; reset the GPU if the job failed",
                                l->code[i]);
    }
}

static void report_hw(diag_ctx *c, int gpu, const health *h)
{
    char xids[sizeof(((diag_finding *)0)->summary)], list[sizeof(((diag_evidence *)0)->str)];
    int critical = describe(&h->hw, xids, sizeof xids) || h->dbe > 0 || h->failure || h->lost_times > 0;
    codes(&h->hw, list, sizeof list);
    diag_finding *f = diag_emit(c, "hw_health", critical ? DIAG_CRITICAL : DIAG_WARNING, gpu, h->from, h->to);
    if (!f)
        return;
    f->score = 10 * h->lost_times + h->dbe + h->hw.n + h->failure + h->pending;
    if (h->hw.n)
        diag_finding_str(f, "xids", "%s", list);
    if (h->hw.n)
        diag_finding_num(f, "xid", h->hw.code[0], "");
    if (h->dbe)
        diag_finding_num(f, "ecc_uncorrectable", h->dbe, "");
    if (h->remap_unc)
        diag_finding_num(f, "rows_remapped_uncorrectable", h->remap_unc, "");
    if (h->pending)
        diag_finding_num(f, "remap_pending", 1, "");
    if (h->failure)
        diag_finding_num(f, "remap_failure", 1, "");
    if (h->lost_times) {
        diag_finding_num(f, "lost_times", h->lost_times, "");
        diag_finding_num(f, "lost_s", h->lost_s, "s");
    }
    char what[sizeof(((diag_finding *)0)->summary)] = "";
    size_t len = 0;
    if (h->hw.n)
        len += (size_t)snprintf(what + len, sizeof what - len, "%s", xids);
    if (h->lost_times && len < sizeof what)
        len += (size_t)snprintf(what + len, sizeof what - len, "%slost %d time(s), %.0f s in all", len ? "; " : "",
                                h->lost_times, h->lost_s);
    if (h->dbe && len < sizeof what)
        len +=
            (size_t)snprintf(what + len, sizeof what - len, "%s%d uncorrectable ECC error(s)", len ? "; " : "", h->dbe);
    if (h->pending && len < sizeof what)
        len += (size_t)snprintf(what + len, sizeof what - len, "%srow remap pending", len ? "; " : "");
    if (h->failure && len < sizeof what)
        snprintf(what + len, sizeof what - len, "%srow remap failed", len ? "; " : "");
    diag_finding_summary(f, "GPU %d hardware error: %s", gpu, what);
    advise_xids(f, &h->hw);
    if (h->pending)
        diag_finding_advice(f, "A row remap waits for a reset: drain the GPU and reset it (nvidia-smi -r -i %d)", gpu);
    if (h->failure || h->dbe)
        diag_finding_advice(f,
                            "Uncorrectable memory errors: drain the GPU; after a reset run `dcgmi diag -r 3`; RMA if "
                            "errors recur or remapping failed");
    if (h->lost_times)
        diag_finding_advice(f, "The GPU left the bus: check dmesg, PCIe seating, power cables and temperatures; reset "
                               "or reboot; RMA if it recurs");
}

static void report_app(diag_ctx *c, int gpu, const health *h)
{
    char xids[sizeof(((diag_finding *)0)->summary)], list[sizeof(((diag_evidence *)0)->str)];
    describe(&h->app, xids, sizeof xids);
    codes(&h->app, list, sizeof list);
    diag_severity sev = c->cfg->hw_health.app_xids_warn >= 0.5 ? DIAG_WARNING : DIAG_INFO;
    diag_finding *f = diag_emit(c, "hw_health", sev, gpu, h->app.from, h->app.to);
    if (!f)
        return;
    f->score = h->app.n;
    diag_finding_str(f, "xids", "%s", list);
    diag_finding_num(f, "xid", h->app.code[0], "");
    diag_finding_str(f, "fault", "application");
    char who[160] = "";
    const diag_proc *p[1];
    if (diag_procs_in(c, gpu, h->app.from, h->app.to, p, 1) == 1) {
        char label[140];
        diag_proc_label(p[0], label, sizeof label);
        snprintf(who, sizeof who, " in %s", label);
    }
    diag_finding_summary(f, "GPU %d application error%s: %s; the job's fault, not the hardware's", gpu, who, xids);
    advise_xids(f, &h->app);
    diag_finding_advice(f, "The GPU needs no service for these; act only if hardware XIDs follow");
}

void det_hw_health(diag_ctx *c)
{
    for (int g = 0; g < c->n_views; g++) {
        if (!c->views[g].g->known)
            continue;
        health h;
        memset(&h, 0, sizeof h);
        gather(c, g, &h);
        if (h.hw.n || h.dbe || h.remap_unc || h.pending || h.failure || h.lost_times)
            report_hw(c, g, &h);
        if (h.app.n)
            report_app(c, g, &h);
    }
}
