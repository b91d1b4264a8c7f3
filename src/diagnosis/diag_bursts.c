/* diag_bursts.c - a GPU's XIDs in the window grouped into bursts: the events of one incident (an
 * XID and the ones it drags along) come within seconds or minutes of each other, and a burst ends
 * after gap of silence. hw_health and app_fault report bursts, not single events. */
#include "diag_internal.h"
#include "diag_xid.h"
#include <stdio.h>
#include <string.h>

void diag_xid_set_add(diag_xid_set *s, int code, int count)
{
    s->total = diag_count_add(s->total, count);
    for (int i = 0; i < s->n; i++)
        if (s->code[i] == code) {
            s->count[i] = diag_count_add(s->count[i], count);
            return;
        }
    if (s->n < DIAG_MAX_CODES) {
        s->code[s->n] = code;
        s->count[s->n++] = count;
    }
}

int diag_xid_class_of(int code)
{
    const diag_xid *x = diag_xid_lookup(code);
    return x ? (int)x->cls : (int)XID_UNKNOWN;
}

/* XID 45 (preemptive cleanup) is the teardown of a job another XID stopped, on this GPU or another
 * of the node: the catalog says to follow that XID. */
static int follows_another(const diag_ctx *c, const diag_event *e, uint64_t gap_us)
{
    for (int i = 0; i < c->w->n_events; i++) {
        const diag_event *o = &c->w->events[i];
        if (o->kind == DIAG_EV_XID && o->code != 45 && o->t_us + gap_us >= e->t_us && o->t_us <= e->t_us + gap_us)
            return 1;
    }
    return 0;
}

int diag_xid_bursts(const diag_ctx *c, int gpu, unsigned classes, uint64_t gap_us, const diag_bursts *except,
                    diag_bursts *out)
{
    memset(out, 0, sizeof *out);
    int n = 0;
    for (int i = 0; i < c->w->n_events; i++) {
        const diag_event *e = &c->w->events[i];
        if (e->gpu != gpu || e->kind != DIAG_EV_XID || !(classes & (1u << diag_xid_class_of(e->code))) ||
            (except && diag_in_bursts(except, e->t_us, gap_us)) ||
            ((classes & DIAG_XID_SOLO_45) && e->code == 45 && follows_another(c, e, gap_us)))
            continue;
        diag_burst *b = out->n ? &out->b[out->n - 1] : NULL;
        if (!b || (e->t_us > b->to + gap_us && out->n < DIAG_MAX_BURSTS)) {
            b = &out->b[out->n++];
            b->from = e->t_us;
        }
        b->to = e->t_us;
        diag_xid_set_add(&b->x, e->code, e->count);
        diag_xid_set_add(&out->all, e->code, e->count);
        if (n == 0)
            out->from = e->t_us;
        out->to = e->t_us;
        n++;
    }
    return n;
}

int diag_in_bursts(const diag_bursts *b, uint64_t t, uint64_t gap_us)
{
    for (int i = 0; i < b->n; i++)
        if (t + gap_us >= b->b[i].from && t <= b->b[i].to + gap_us)
            return 1;
    return 0;
}

int diag_xid_recurring(const diag_bursts *b, int code)
{
    int in = 0;
    for (int i = 0; i < b->n; i++)
        for (int k = 0; k < b->b[i].x.n; k++)
            in += b->b[i].x.code[k] == code;
    return in;
}

void diag_xid_codes(const diag_xid_set *s, char *out, size_t n)
{
    size_t len = 0;
    out[0] = 0;
    for (int i = 0; i < s->n && len < n; i++)
        len += (size_t)snprintf(out + len, n - len, "%s%d x%d", i ? ", " : "", s->code[i], s->count[i]);
}

void diag_xid_meanings(const diag_xid_set *s, char *out, size_t n)
{
    size_t len = 0;
    out[0] = 0;
    for (int i = 0; i < s->n && len < n; i++) {
        const diag_xid *x = diag_xid_lookup(s->code[i]);
        const char *meaning = x ? x->meaning : (s->code[i] ? "not in the XID table" : "code not read");
        len += (size_t)snprintf(out + len, n - len, "%sXID %d (%s)%s", i ? "; " : "", s->code[i], meaning,
                                s->count[i] > 1 ? " repeated" : "");
    }
}
