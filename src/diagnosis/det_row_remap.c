/* det_row_remap.c - row_remap: the GPU's memory repairs itself and needs a hand. On Ampere and later
 * a faulty row is remapped to a spare one at the next reset: a remap pending (work goes on meanwhile,
 * its page kept out of use, but the repair needs the reset), a remap that failed (no repair left: RMA), rows remapped during the window,
 * banks without a spare row left. On Volta and older faulty pages are retired: pages pending
 * retirement, pages retired during the window, and DCGM's limits (63 retired pages; more than 15
 * double-bit ones still rising). XIDs 63 and 64 are the same events in the driver's log. */
#include "diag_internal.h"
#include "diag_xid.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    double first, last, max;
    uint64_t changed; /* when it first moved in the window (0: never) */
    int have;
} track;

typedef struct {
    track cor, unc, pend, fail, none, sbe, dbe, rpend;
    diag_bursts xids;
    uint64_t from;
} memory;

static void read_track(const diag_series *s, track *t)
{
    memset(t, 0, sizeof *t);
    if (s->n == 0)
        return;
    t->have = 1;
    t->first = t->last = t->max = s->v[0];
    for (int i = 1; i < s->n; i++) {
        if (s->v[i] != t->last && !t->changed)
            t->changed = s->t[i];
        t->last = s->v[i];
        t->max = fmax(t->max, s->v[i]);
    }
}

static double rise(const track *t)
{
    return t->have && t->last > t->first ? t->last - t->first : 0;
}

static void earliest(uint64_t *from, uint64_t t)
{
    if (t && (*from == 0 || t < *from))
        *from = t;
}

/* What the window says of one GPU's memory repairs. */
typedef struct {
    memory m;
    int failed, pending, retire_pending, retired_limit, dbe_growing, no_spare, unc_pending;
    double new_rows, new_pages, retired;
} verdict;

/* GPU g's tracks and XIDs read, and judged. Returns 1 when there is something to say. */
static int judge(diag_ctx *c, int g, verdict *v)
{
    const diag_config *cfg = c->cfg;
    const diag_gpu *gp = c->views[g].g;
    memory *m = &v->m;
    memset(v, 0, sizeof *v);
    read_track(&gp->s[DS_REMAP_COR], &m->cor);
    read_track(&gp->s[DS_REMAP_UNC], &m->unc);
    read_track(&gp->s[DS_REMAP_PEND], &m->pend);
    read_track(&gp->s[DS_REMAP_FAIL], &m->fail);
    read_track(&gp->s[DS_REMAP_NONE], &m->none);
    read_track(&gp->s[DS_RETIRED_SBE], &m->sbe);
    read_track(&gp->s[DS_RETIRED_DBE], &m->dbe);
    read_track(&gp->s[DS_RETIRED_PEND], &m->rpend);
    diag_xid_bursts(c, g, 1u << XID_REMAP, (uint64_t)(cfg->hw_health.burst_gap_s * 1e6), NULL, &m->xids);
    v->failed = m->fail.max >= 0.5 || diag_xid_recurring(&m->xids, 64) > 0;
    v->pending = m->pend.last >= 0.5;
    v->retire_pending = m->rpend.last >= 0.5;
    v->new_rows = rise(&m->cor) + rise(&m->unc);
    v->new_pages = rise(&m->sbe) + rise(&m->dbe);
    v->retired = (m->sbe.have ? m->sbe.last : 0) + (m->dbe.have ? m->dbe.last : 0);
    v->retired_limit = v->retired >= cfg->row_remap.retired_max;
    v->dbe_growing = m->dbe.have && m->dbe.last > cfg->row_remap.retired_dbe_soft && rise(&m->dbe) > 0;
    v->no_spare = m->none.have && m->none.last > 0;
    /* an uncorrectable error behind the pending remap: it stopped a job, and the memory heals only at the reset */
    v->unc_pending = v->pending && (m->unc.last > 0 || rise(&m->unc) > 0);
    return v->failed || v->pending || v->retire_pending || v->new_rows > 0 || v->new_pages > 0 || v->retired_limit ||
           v->no_spare || m->xids.all.total > 0;
}

static void summarize(diag_finding *f, int g, const verdict *v)
{
    char what[sizeof f->summary] = "";
    size_t len = 0;
#define SAY(...) (len += len < sizeof what ? (size_t)snprintf(what + len, sizeof what - len, __VA_ARGS__) : 0)
    if (v->failed)
        SAY("%srow remapping failed", len ? "; " : "");
    if (v->pending)
        SAY("%sa row remap is pending (%s)", len ? "; " : "",
            v->unc_pending ? "for an uncorrectable error" : "correctable");
    if (v->new_rows > 0)
        SAY("%s%.0f row(s) remapped in the window", len ? "; " : "", v->new_rows);
    if (v->no_spare)
        SAY("%s%.0f bank(s) without a spare row", len ? "; " : "", v->m.none.last);
    if (v->retire_pending)
        SAY("%spages wait to be retired", len ? "; " : "");
    if (v->new_pages > 0)
        SAY("%s%.0f page(s) retired in the window", len ? "; " : "", v->new_pages);
    if (v->retired_limit || v->dbe_growing)
        SAY("%s%.0f pages retired in all (%.0f double-bit)", len ? "; " : "", v->retired, v->m.dbe.last);
    if (!len)
        SAY("XID %d", v->m.xids.all.code[0]);
#undef SAY
    diag_finding_summary(f, "GPU %d memory repair: %s", g, what);
}

static void evidence(diag_finding *f, const verdict *v)
{
    const memory *m = &v->m;
    if (m->cor.have)
        diag_finding_num(f, "remapped_correctable", m->cor.last, "");
    if (m->unc.have)
        diag_finding_num(f, "remapped_uncorrectable", m->unc.last, "");
    if (m->cor.have || m->unc.have)
        diag_finding_num(f, "remapped_in_window", v->new_rows, "");
    if (m->pend.have || m->fail.have) {
        diag_finding_num(f, "remap_pending", v->pending, "");
        diag_finding_num(f, "remap_failure", v->failed, "");
    }
    if (m->none.have)
        diag_finding_num(f, "banks_without_spare", m->none.last, "");
    if (m->sbe.have || m->dbe.have) {
        diag_finding_num(f, "retired_sbe", m->sbe.last, "");
        diag_finding_num(f, "retired_dbe", m->dbe.last, "");
        diag_finding_num(f, "retired_in_window", v->new_pages, "");
        diag_finding_num(f, "retire_pending", v->retire_pending, "");
    }
    if (m->xids.all.n) {
        char list[sizeof(((diag_evidence *)0)->str)];
        diag_xid_codes(&m->xids.all, list, sizeof list);
        diag_finding_str(f, "xids", "%s", list);
    }
}

static void advise(diag_finding *f, int g, const verdict *v, const diag_config *cfg)
{
    if (v->failed)
        diag_finding_advice(f, "Row remapping failed: the GPU cannot repair this memory any more: drain it and "
                               "contact the vendor (RMA)");
    if (v->pending)
        diag_finding_advice(f,
                            "A row remap waits for a reset: drain the GPU and reset it (nvidia-smi -r -i %d) to "
                            "apply it; work goes on meanwhile (the page is kept out of use)",
                            g);
    if (v->retire_pending)
        diag_finding_advice(f, "Pages wait to be retired: drain the GPU and reload the driver (or reboot) to retire "
                               "them");
    if (v->retired_limit || v->dbe_growing)
        diag_finding_advice(f,
                            "%.0f retired pages (%.0f double-bit): past DCGM's limits (%.0f pages, or more than "
                            "%.0f double-bit still rising): RMA",
                            v->retired, v->m.dbe.last, cfg->row_remap.retired_max, cfg->row_remap.retired_dbe_soft);
    if (v->no_spare)
        diag_finding_advice(f, "Banks without a spare row cannot remap their next error: plan an RMA");
    if (v->new_rows > 0 || v->new_pages > 0)
        diag_finding_advice(f, "Watch how fast rows are remapped or pages retired (nvidia-smi -q -d "
                               "ROW_REMAPPER,PAGE_RETIREMENT); after the reset run `dcgmi diag -r 3`");
}

void det_row_remap(diag_ctx *c)
{
    for (int g = 0; g < c->n_views; g++) {
        verdict v;
        if (!c->views[g].g->known || !judge(c, g, &v))
            continue;
        memory *m = &v.m;
        int critical =
            v.failed || v.retired_limit || v.dbe_growing || v.unc_pending || (v.retire_pending && rise(&m->dbe) > 0);
        earliest(&m->from, m->xids.from);
        track *all[] = {&m->cor, &m->unc, &m->pend, &m->fail, &m->none, &m->sbe, &m->dbe, &m->rpend};
        for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
            earliest(&m->from, all[i]->changed);
        uint64_t from = m->from ? m->from : c->from_us;
        diag_finding *f = diag_emit(c, "row_remap", critical ? DIAG_CRITICAL : DIAG_WARNING, g, from, c->to_us);
        if (!f)
            continue;
        f->score = 4 * v.failed + 2 * (v.retired_limit || v.dbe_growing) + v.unc_pending + v.pending + v.new_rows +
                   v.new_pages;
        summarize(f, g, &v);
        evidence(f, &v);
        advise(f, g, &v, c->cfg);
    }
}
