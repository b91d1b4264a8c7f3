/* metric_expr.c - parses arithmetic over catalog fields (recursive descent into postfix code) and
 * evaluates it on one sample's values. */
#include "metric_expr.h"
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct parser {
    const char *s; /* the text as given */
    size_t pos;
    metric_expr *e;
    char *err;
    size_t errlen;
    int depth;
} parser;

static int fail(parser *p, const char *what)
{
    snprintf(p->err, p->errlen, "metric expression '%s': %s at character %zu", p->s, what, p->pos + 1);
    return -1;
}

static int put(parser *p, char op, int arg, double num)
{
    if (p->e->ncode >= MEXPR_MAX_CODE)
        return fail(p, "too long");
    p->e->code[p->e->ncode++] = (mexpr_op){op, arg, num};
    return 0;
}

static int expr(parser *p);

/* The next character that is not a space. */
static char peek(parser *p)
{
    while (isspace((unsigned char)p->s[p->pos]))
        p->pos++;
    return p->s[p->pos];
}

static int field(parser *p)
{
    size_t start = p->pos;
    while (isalnum((unsigned char)p->s[p->pos]) || p->s[p->pos] == '_' || p->s[p->pos] == '.')
        p->pos++;
    char name[MEXPR_MAX_TEXT];
    snprintf(name, sizeof name, "%.*s", (int)(p->pos - start), p->s + start);
    const metric_def *d = catalog_find(name);
    if (!d || metric_is_string(d->id)) {
        char best[GW_SUGGEST_LEN] = "";
        if (!d)
            catalog_suggest(name, best, sizeof best);
        snprintf(p->err, p->errlen,
                 "metric expression '%s': unknown metric '%s' at character %zu (numeric catalog field names)%s%s%s",
                 p->s, name, start + 1, best[0] ? " \xe2\x80\x94 did you mean '" : "", best, best[0] ? "'?" : "");
        return -1;
    }
    metric_expr *e = p->e;
    int k = 0;
    while (k < e->nmetrics && e->metrics[k] != d->id)
        k++;
    if (k == e->nmetrics) {
        if (k == MEXPR_MAX_METRICS)
            return fail(p, "too many fields");
        e->metrics[e->nmetrics++] = d->id;
    }
    return put(p, 'm', k, 0);
}

/* number | field | ( expr ) | - primary */
static int primary(parser *p)
{
    char c = peek(p);
    if (c == '-' || c == '+') {
        p->pos++;
        if (primary(p) != 0)
            return -1;
        return c == '-' ? put(p, '~', 0, 0) : 0;
    }
    if (c == '(') {
        if (++p->depth > 32)
            return fail(p, "too deeply nested");
        p->pos++;
        if (expr(p) != 0)
            return -1;
        if (peek(p) != ')')
            return fail(p, "expected ')'");
        p->pos++;
        p->depth--;
        return 0;
    }
    if (isdigit((unsigned char)c) || c == '.') {
        char *end;
        double v = strtod(p->s + p->pos, &end);
        if (end == p->s + p->pos || !isfinite(v))
            return fail(p, "bad number");
        p->pos = (size_t)(end - p->s);
        return put(p, 'n', 0, v);
    }
    if (isalpha((unsigned char)c) || c == '_')
        return field(p);
    return fail(p, c ? "expected a metric, a number or '('" : "unexpected end");
}

static int term(parser *p)
{
    if (primary(p) != 0)
        return -1;
    while (peek(p) == '*' || p->s[p->pos] == '/') {
        char op = p->s[p->pos++];
        if (primary(p) != 0 || put(p, op, 0, 0) != 0)
            return -1;
    }
    return 0;
}

static int expr(parser *p)
{
    if (term(p) != 0)
        return -1;
    while (peek(p) == '+' || p->s[p->pos] == '-') {
        char op = p->s[p->pos++];
        if (term(p) != 0 || put(p, op, 0, 0) != 0)
            return -1;
    }
    return 0;
}

int mexpr_parse(const char *text, metric_expr *e, char *err, size_t errlen)
{
    memset(e, 0, sizeof *e);
    size_t k = 0;
    for (const char *c = text; *c; c++) {
        if (isspace((unsigned char)*c))
            continue;
        if (k + 1 >= sizeof e->text) {
            snprintf(err, errlen, "metric expression too long (at most %d characters)", MEXPR_MAX_TEXT - 1);
            return -1;
        }
        e->text[k++] = *c;
    }
    e->text[k] = 0;
    parser p = {.s = text, .e = e, .err = err, .errlen = errlen};
    if (expr(&p) != 0)
        return -1;
    if (peek(&p))
        return fail(&p, "unexpected character");
    if (!e->nmetrics)
        return fail(&p, "no metric in it");
    return 0;
}

int mexpr_is_field(const metric_expr *e)
{
    return e->ncode == 1 && e->code[0].op == 'm';
}

double mexpr_eval(const metric_expr *e, const double *vals)
{
    double st[MEXPR_MAX_CODE];
    int n = 0;
    for (int i = 0; i < e->ncode; i++) {
        const mexpr_op *o = &e->code[i];
        switch (o->op) {
        case 'n': st[n++] = o->num; break;
        case 'm': st[n++] = vals[o->arg]; break;
        case '~': st[n - 1] = -st[n - 1]; break;
        default: {
            double b = st[--n], a = st[n - 1];
            st[n - 1] = o->op == '+' ? a + b : o->op == '-' ? a - b : o->op == '*' ? a * b : b != 0 ? a / b : NAN;
        }
        }
    }
    return n == 1 && isfinite(st[0]) ? st[0] : NAN;
}
