/* rule_key.c - a rule's identity across reloads and restarts: what makes its alerts what they are
 * (group, name, condition, for, labels, scope and target GPUs; not its annotations, interval or
 * keep_firing_for), as "DIGEST/GROUP/ALERT", DIGEST a 64-bit FNV-1a of the definition written out
 * field by field, with metrics by name (catalog ids may change between versions; names do not). */
#include "rules.h"
#include <stdio.h>
#include <string.h>

typedef struct digest {
    uint64_t h;
} digest;

static void put_byte(digest *d, unsigned char c)
{
    d->h = (d->h ^ c) * 1099511628211ull;
}

static void put_i64(digest *d, int64_t v)
{
    for (int i = 0; i < 8; i++)
        put_byte(d, (unsigned char)((uint64_t)v >> (8 * i)));
}

/* Strings with their length, so that ("ab", "c") and ("a", "bc") differ. */
static void put_str(digest *d, const char *s)
{
    size_t n = strlen(s);
    put_i64(d, (int64_t)n);
    for (size_t i = 0; i < n; i++)
        put_byte(d, (unsigned char)s[i]);
}

static void put_num(digest *d, double v)
{
    char t[40];
    snprintf(t, sizeof t, "%.17g", v);
    put_str(d, t);
}

static void put_term(digest *d, const term *t)
{
    put_i64(d, t->kind);
    switch (t->kind) {
    case TERM_CONST: put_num(d, t->c); break;
    case TERM_METRIC: put_str(d, catalog_get((metric_id)t->id)->field); break;
    case TERM_PSEUDO: put_str(d, pseudo_name(t->id)); break;
    case TERM_FINDING: put_str(d, t->detector); break;
    }
}

static void put_operand(digest *d, const operand *o)
{
    put_term(d, &o->a);
    put_i64(d, o->op);
    if (o->op)
        put_term(d, &o->b);
}

static void put_cond(digest *d, const cond *c)
{
    put_i64(d, c->kind);
    if (c->kind == COND_LEAF) {
        put_operand(d, &c->metric);
        put_i64(d, c->reduce);
        put_i64(d, c->window_us);
        put_i64(d, c->op);
        put_operand(d, &c->threshold);
        return;
    }
    put_i64(d, c->nkids);
    for (int i = 0; i < c->nkids; i++)
        put_cond(d, &c->kids[i]);
}

void rule_key(const rule_group *g, const rule *r, char *out, size_t n)
{
    digest d = {1469598103934665603ull};
    put_str(&d, g->name);
    put_str(&d, r->alert);
    put_cond(&d, &r->cond);
    put_i64(&d, r->for_us);
    put_i64(&d, r->scope_process);
    put_i64(&d, r->labels.n);
    for (int i = 0; i < r->labels.n; i++) {
        put_str(&d, r->labels.v[i].name);
        put_str(&d, r->labels.v[i].value);
    }
    put_i64(&d, r->has_gpus);
    for (int i = 0; r->has_gpus && i < RULES_MAX_GPUS; i++)
        if (r->gpus[i])
            put_i64(&d, i);
    snprintf(out, n, "%016llx/%s/%s", (unsigned long long)d.h, g->name, r->alert);
}
