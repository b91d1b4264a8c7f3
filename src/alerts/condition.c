/* condition.c - operands over catalog fields, reductions over a window, comparisons, all/any. */
#include "condition.h"
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Engine facts that are not GPU metrics (so not in the catalog); indexed by pseudo_id. */
static const char *const pseudo_names[PS_COUNT] = {
    [PS_GPU_LOST] = "gpu.lost",           [PS_GPU_ERROR] = "gpu.error",           [PS_SAMPLE_AGE] = "sample.age",
    [PS_PROCS_COUNT] = "processes.count", [PS_PROCS_MEMORY] = "processes.memory", [PS_PROC_MEMORY] = "process.memory",
    [PS_PROC_SM] = "process.sm",
};

int pseudo_find(const char *name)
{
    for (int i = 0; i < PS_COUNT; i++)
        if (strcmp(pseudo_names[i], name) == 0)
            return i;
    return -1;
}

const char *pseudo_name(int id)
{
    return id >= 0 && id < PS_COUNT ? pseudo_names[id] : "";
}

static int term_parse(term *t, const char *s, size_t n, char *err, size_t errlen)
{
    char buf[128];
    while (n && isspace((unsigned char)*s)) {
        s++;
        n--;
    }
    while (n && isspace((unsigned char)s[n - 1]))
        n--;
    if (n == 0 || n >= sizeof buf) {
        snprintf(err, errlen, "empty or too long term");
        return -1;
    }
    memcpy(buf, s, n);
    buf[n] = 0;
    char *end;
    double c = strtod(buf, &end);
    if (end != buf && *end == 0 && isfinite(c)) {
        *t = (term){.kind = TERM_CONST, .c = c};
        return 0;
    }
    const metric_def *d = catalog_find(buf);
    if (d && !metric_is_string(d->id)) {
        *t = (term){.kind = TERM_METRIC, .id = (int)d->id};
        return 0;
    }
    if (d) {
        snprintf(err, errlen, "'%s' is a text field; conditions need a number", buf);
        return -1;
    }
    if (strncmp(buf, "finding.", 8) == 0) {
        const char *name = buf + 8;
        size_t len = strspn(name, "abcdefghijklmnopqrstuvwxyz_");
        if (len == 0 || name[len] || len >= FINDING_NAME_MAX) {
            snprintf(
                err, errlen,
                "'%s': a finding is finding.DETECTOR (input_stall, thermal, ...; docs/diagnosis.md) or finding.any",
                buf);
            return -1;
        }
        *t = (term){.kind = TERM_FINDING};
        if (strcmp(name, "any") != 0)
            memcpy(t->detector, name, len + 1);
        return 0;
    }
    int p = pseudo_find(buf);
    if (p >= 0) {
        *t = (term){.kind = TERM_PSEUDO, .id = p};
        return 0;
    }
    snprintf(err, errlen,
             "unknown metric '%s' (catalog fields: gpuwatch query --help-fields; "
             "also gpu.lost, gpu.error, sample.age, processes.count, processes.memory, "
             "process.memory, process.sm, finding.DETECTOR, finding.any)",
             buf);
    return -1;
}

/* The binary operator of "A op B": the first / * + - that is not a number's sign or exponent. */
static const char *find_op(const char *s)
{
    for (const char *p = s; *p; p++) {
        if (!strchr("/*+-", *p))
            continue;
        const char *q = p;
        while (q > s && isspace((unsigned char)q[-1]))
            q--;
        if (q == s)
            continue; /* leading sign */
        if ((*p == '+' || *p == '-') && (q[-1] == 'e' || q[-1] == 'E') && q - 1 > s && isdigit((unsigned char)q[-2]))
            continue; /* 1e-5 */
        return p;
    }
    return NULL;
}

int operand_parse(operand *o, const char *text, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    snprintf(o->text, sizeof o->text, "%s", text);
    const char *op = find_op(text);
    if (!op)
        return term_parse(&o->a, text, strlen(text), err, errlen);
    o->op = *op;
    if (term_parse(&o->a, text, (size_t)(op - text), err, errlen) != 0)
        return -1;
    if (find_op(op + 1)) {
        snprintf(err, errlen, "'%s': only one operator (A / B, A - B, A + B, A * B) is supported", text);
        return -1;
    }
    return term_parse(&o->b, op + 1, strlen(op + 1), err, errlen);
}

static int term_instant(const term *t)
{
    return t->kind == TERM_CONST || t->kind == TERM_FINDING ||
           (t->kind == TERM_PSEUDO && t->id != PS_GPU_LOST && t->id != PS_GPU_ERROR);
}

int operand_is_instant(const operand *o)
{
    return term_instant(&o->a) && (!o->op || term_instant(&o->b));
}

static int term_is_proc(const term *t)
{
    return t->kind == TERM_PSEUDO && (t->id == PS_PROC_MEMORY || t->id == PS_PROC_SM);
}

int operand_uses_process(const operand *o)
{
    return term_is_proc(&o->a) || (o->op && term_is_proc(&o->b));
}

static int pseudo_value(int id, const gpu_sample *s, const eval_ctx *x, double *out)
{
    switch (id) {
    case PS_GPU_LOST:
        if (!s)
            return 0;
        *out = s->status == GPU_LOST;
        return 1;
    case PS_GPU_ERROR:
        if (!s)
            return 0;
        *out = s->status == GPU_ERROR;
        return 1;
    case PS_SAMPLE_AGE:
        if (!x->latest_us)
            return 0;
        *out = (double)(x->now_us - x->latest_us) / 1e6;
        return 1;
    case PS_PROCS_COUNT: *out = x->nprocs; return 1;
    case PS_PROCS_MEMORY:
        *out = 0;
        for (int i = 0; i < x->nprocs; i++)
            if (x->procs[i].has_mem)
                *out += x->procs[i].mem_mib;
        return 1;
    case PS_PROC_MEMORY:
        if (!x->proc || !x->proc->has_mem)
            return 0;
        *out = x->proc->mem_mib;
        return 1;
    case PS_PROC_SM:
        if (!x->proc || !x->proc->has_sm)
            return 0;
        *out = x->proc->sm_util;
        return 1;
    }
    return 0;
}

/* The highest severity of the findings of t's detector (any, for "") on the GPU; 0 for none. */
static int finding_value(const term *t, const eval_ctx *x, double *out)
{
    if (!x->findings)
        return 0;
    int level = 0;
    for (int i = 0; i < x->findings->n; i++) {
        const finding_fact *f = &x->findings->v[i];
        if (f->until_us && x->now_us >= f->until_us)
            continue;
        if (f->gpu == x->gpu && (!t->detector[0] || strcmp(f->detector, t->detector) == 0) && f->level > level)
            level = f->level;
    }
    *out = level;
    return 1;
}

static int term_value(const term *t, const gpu_sample *s, const eval_ctx *x, double *out)
{
    switch (t->kind) {
    case TERM_CONST: *out = t->c; return 1;
    case TERM_METRIC: return s ? sample_get(s, (metric_id)t->id, out) : 0;
    case TERM_PSEUDO: return pseudo_value(t->id, s, x, out);
    case TERM_FINDING: return finding_value(t, x, out);
    }
    return 0;
}

/* The operand's value in one sample (s may be NULL for instant operands); 0 when absent. */
static int operand_value(const operand *o, const gpu_sample *s, const eval_ctx *x, double *out)
{
    double a, b;
    if (!term_value(&o->a, s, x, &a))
        return 0;
    if (!o->op) {
        *out = a;
        return 1;
    }
    if (!term_value(&o->b, s, x, &b))
        return 0;
    switch (o->op) {
    case '/':
        if (b == 0)
            return 0;
        *out = a / b;
        return 1;
    case '-': *out = a - b; return 1;
    case '+': *out = a + b; return 1;
    case '*': *out = a * b; return 1;
    }
    return 0;
}

static int term_keepable(const term *t)
{
    return t->kind == TERM_CONST || t->kind == TERM_METRIC ||
           (t->kind == TERM_PSEUDO && (t->id == PS_GPU_LOST || t->id == PS_GPU_ERROR));
}

int operand_keepable(const operand *o)
{
    return !operand_is_instant(o) && term_keepable(&o->a) && (!o->op || term_keepable(&o->b));
}

int operand_at(const operand *o, const gpu_sample *s, double *out)
{
    static const eval_ctx none;
    return operand_value(o, s, &none, out);
}

/* The operand's values in the window, oldest first. */
typedef struct series {
    const operand *o;
    const eval_ctx *x;
    int64_t from_us; /* exclusive */
    double *v;
    int64_t *t;
    int n, cap;
    int oom; /* a value could not be kept: the reduction fails */
} series;

static void collect(const gpu_sample *s, void *arg)
{
    series *w = arg;
    int64_t t = (int64_t)s->t_us;
    double v;
    if (w->oom || t <= w->from_us || t > w->x->now_us || !operand_value(w->o, s, w->x, &v))
        return;
    if (w->n == w->cap) {
        int cap = w->cap ? w->cap * 2 : 64;
        double *nv = realloc(w->v, (size_t)cap * sizeof *nv);
        if (nv)
            w->v = nv;
        int64_t *nt = realloc(w->t, (size_t)cap * sizeof *nt);
        if (nt)
            w->t = nt;
        if (!nv || !nt) {
            w->oom = 1;
            return;
        }
        w->cap = cap;
    }
    w->v[w->n] = v;
    w->t[w->n] = t;
    w->n++;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Quantile with linear interpolation between closest ranks (as quantile_over_time). */
static double quantile(double *v, int n, double q)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    double rank = q * (n - 1);
    int lo = (int)floor(rank), hi = (int)ceil(rank);
    return v[lo] + (v[hi] - v[lo]) * (rank - lo);
}

/* Counter increase over the values, a drop being a reset (the counter restarted from 0). */
static double increase(const double *v, int n)
{
    double inc = 0;
    for (int i = 1; i < n; i++)
        inc += v[i] >= v[i - 1] ? v[i] - v[i - 1] : v[i];
    return inc;
}

int reduce_values(reduce_kind r, double *v, int n, int64_t t_first, int64_t t_last, double *out)
{
    if (n == 0)
        return 0;
    double acc = v[0];
    switch (r) {
    case RED_LAST: *out = v[n - 1]; return 1;
    case RED_AVG:
        for (int i = 1; i < n; i++)
            acc += v[i];
        *out = acc / n;
        return 1;
    case RED_MIN:
        for (int i = 1; i < n; i++)
            if (v[i] < acc)
                acc = v[i];
        *out = acc;
        return 1;
    case RED_MAX:
        for (int i = 1; i < n; i++)
            if (v[i] > acc)
                acc = v[i];
        *out = acc;
        return 1;
    case RED_P95: *out = quantile(v, n, 0.95); return 1;
    case RED_INCREASE:
        if (n < 2)
            return 0;
        *out = increase(v, n);
        return 1;
    case RED_RATE:
        if (n < 2 || t_last == t_first)
            return 0;
        *out = increase(v, n) / ((double)(t_last - t_first) / 1e6);
        return 1;
    case RED_CHANGES: {
        int c = 0;
        for (int i = 1; i < n; i++)
            c += v[i] != v[i - 1];
        *out = c;
        return 1;
    }
    }
    return 0;
}

int operand_reduce(const operand *o, reduce_kind r, int64_t window_us, const eval_ctx *x, double *out)
{
    if (operand_is_instant(o))
        return operand_value(o, NULL, x, out);
    series w = {o, x, x->now_us - (window_us ? window_us : COND_LOOKBACK_US), NULL, NULL, 0, 0, 0};
    uint64_t since = w.from_us > 0 ? (uint64_t)w.from_us + 1 : 0;
    x->src->each(x->src->ctx, x->gpu, since, collect, &w);
    int ok =
        w.oom ? -1 : reduce_values(window_us ? r : RED_LAST, w.v, w.n, w.n ? w.t[0] : 0, w.n ? w.t[w.n - 1] : 0, out);
    free(w.v);
    free(w.t);
    return ok;
}

static int compare(double a, cmp_op op, double b)
{
    switch (op) {
    case CMP_GT: return a > b;
    case CMP_GE: return a >= b;
    case CMP_LT: return a < b;
    case CMP_LE: return a <= b;
    case CMP_EQ: return a == b;
    case CMP_NE: return a != b;
    }
    return 0;
}

/* operand_reduce through the engine's kept values when it has them. */
static int reduce_kept(const operand *o, int tap, reduce_kind r, int64_t window_us, const eval_ctx *x, double *out)
{
    if (tap && x->win) {
        int got = window_reduce(x->win, x->gpu, tap, r, window_us, x->now_us, out);
        if (got >= 0)
            return got;
    }
    return operand_reduce(o, r, window_us, x, out);
}

tri cond_eval(const cond *c, const eval_ctx *x, double *value)
{
    if (c->kind == COND_LEAF) {
        double a, b;
        int got = reduce_kept(&c->metric, c->tap_metric, c->reduce, c->window_us, x, &a);
        if (got <= 0)
            return got < 0 ? TRI_ERROR : TRI_UNKNOWN;
        *value = a;
        got = reduce_kept(&c->threshold, c->tap_threshold, RED_LAST, 0, x, &b);
        if (got <= 0)
            return got < 0 ? TRI_ERROR : TRI_UNKNOWN;
        return compare(a, c->op, b) ? TRI_TRUE : TRI_FALSE;
    }
    /* all: false if any is false, else unknown if any is unknown; any: true if any is true. */
    int any_unknown = 0, have_value = 0;
    for (int i = 0; i < c->nkids; i++) {
        double v = 0;
        tri r = cond_eval(&c->kids[i], x, &v);
        if (r == TRI_ERROR)
            return TRI_ERROR;
        if (r != TRI_UNKNOWN && !have_value) {
            *value = v;
            have_value = 1;
        }
        if (c->kind == COND_ALL && r == TRI_FALSE)
            return TRI_FALSE;
        if (c->kind == COND_ANY && r == TRI_TRUE) {
            *value = v;
            return TRI_TRUE;
        }
        any_unknown |= r == TRI_UNKNOWN;
    }
    if (any_unknown)
        return TRI_UNKNOWN;
    return c->kind == COND_ALL ? TRI_TRUE : TRI_FALSE;
}

void cond_free(cond *c)
{
    for (int i = 0; i < c->nkids; i++)
        cond_free(&c->kids[i]);
    free(c->kids);
    c->kids = NULL;
    c->nkids = 0;
}
