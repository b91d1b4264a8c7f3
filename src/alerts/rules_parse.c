/* rules_parse.c - reading rule files (Prometheus-like groups/rules, conditions over catalog fields). */
#include "rules.h"
#include "condition.h"
#include "rdoc.h"
#include "util.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const reduce_names[] = {"last", "avg", "min", "max", "p95", "increase", "rate", "changes"};
static const char *const cmp_names[] = {">", ">=", "<", "<=", "==", "!="};

const char *reduce_name(reduce_kind r)
{
    return reduce_names[r];
}
const char *cmp_name(cmp_op op)
{
    return cmp_names[op];
}

int rules_parse_duration(const char *s, int64_t *us)
{
    static const struct {
        const char *unit;
        int64_t us;
    } units[] = {{"ms", 1000},         {"s", 1000000},        {"m", 60000000LL},      {"h", 3600000000LL},
                 {"d", 86400000000LL}, {"w", 604800000000LL}, {"y", 31536000000000LL}};
    if (!s || !*s)
        return -1;
    if (strcmp(s, "0") == 0) {
        *us = 0;
        return 0;
    }
    int64_t total = 0;
    const char *p = s;
    while (*p) {
        if (!isdigit((unsigned char)*p))
            return -1;
        char *end;
        long long n = strtoll(p, &end, 10);
        p = end;
        size_t best = 0;
        int64_t mult = 0;
        for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
            size_t l = strlen(units[i].unit);
            if (strncmp(p, units[i].unit, l) == 0 && l > best && !(l == 1 && *p == 'm' && p[1] == 's')) {
                best = l;
                mult = units[i].us;
            }
        }
        if (!best || n > INT64_MAX / mult)
            return -1;
        total += n * mult;
        p += best;
    }
    *us = total;
    return 0;
}

typedef struct parser {
    rdoc d;
    int errors_before;
} parser;

static char *xstrdup(const char *s)
{
    char *d = strdup(s);
    if (!d)
        abort();
    return d;
}

static int get_duration(parser *p, const yaml_node_t *n, const char *what, int64_t *out)
{
    const char *s = rdoc_scalar(&p->d, n, what);
    if (!s)
        return -1;
    if (rules_parse_duration(s, out) != 0) {
        rdoc_err(&p->d, n, "%s: bad duration '%s' (e.g. 30s, 5m, 1h30m)", what, s);
        return -1;
    }
    return 0;
}

static int get_operand(parser *p, const yaml_node_t *n, const char *what, operand *o)
{
    const char *s = rdoc_scalar(&p->d, n, what);
    if (!s)
        return -1;
    char err[400];
    if (operand_parse(o, s, err, sizeof err) != 0) {
        rdoc_err(&p->d, n, "%s: %s", what, err);
        return -1;
    }
    return 0;
}

static void parse_cond(parser *p, const yaml_node_t *n, cond *c, int depth);

static void parse_combo(parser *p, const yaml_node_t *list, cond *c, int kind, int depth)
{
    int count;
    yaml_node_item_t *it = rdoc_items(&p->d, list, kind == COND_ALL ? "all" : "any", &count);
    c->kind = kind;
    if (!it)
        return;
    if (count == 0)
        rdoc_err(&p->d, list, "%s needs at least one condition", kind == COND_ALL ? "all" : "any");
    c->kids = calloc((size_t)(count ? count : 1), sizeof *c->kids);
    if (!c->kids)
        abort();
    c->nkids = count;
    for (int i = 0; i < count; i++)
        parse_cond(p, rdoc_node(&p->d, it[i]), &c->kids[i], depth + 1);
}

static void parse_leaf(parser *p, const yaml_node_t *n, cond *c)
{
    rdoc *d = &p->d;
    c->kind = COND_LEAF;
    yaml_node_t *metric = rdoc_get(d, n, "metric"), *op = rdoc_get(d, n, "op"), *thr = rdoc_get(d, n, "threshold"),
                *red = rdoc_get(d, n, "reduce"), *win = rdoc_get(d, n, "window");
    if (!metric)
        rdoc_err(d, n, "condition needs 'metric'");
    else
        get_operand(p, metric, "metric", &c->metric);
    if (!op) {
        rdoc_err(d, n, "condition needs 'op' (one of > >= < <= == !=)");
    } else {
        const char *s = rdoc_scalar(d, op, "op");
        int found = -1;
        for (int i = 0; s && i < 6; i++)
            if (strcmp(s, cmp_names[i]) == 0)
                found = i;
        if (s && found < 0)
            rdoc_err(d, op, "op '%s' must be one of > >= < <= == !=", s);
        c->op = found < 0 ? CMP_GT : (cmp_op)found;
    }
    if (!thr)
        rdoc_err(d, n, "condition needs 'threshold' (a number, a metric or A / B)");
    else
        get_operand(p, thr, "threshold", &c->threshold);
    c->reduce = RED_LAST;
    if (red) {
        const char *s = rdoc_scalar(d, red, "reduce");
        int found = -1;
        for (int i = 0; s && i < 8; i++)
            if (strcmp(s, reduce_names[i]) == 0)
                found = i;
        if (s && found < 0)
            rdoc_err(d, red, "reduce '%s' must be one of last avg min max p95 increase rate changes", s);
        c->reduce = found < 0 ? RED_LAST : (reduce_kind)found;
    }
    if (win && get_duration(p, win, "window", &c->window_us) == 0 && c->window_us == 0)
        rdoc_err(d, win, "window must be longer than 0");
    if (c->reduce != RED_LAST && !win)
        rdoc_err(d, red, "reduce: %s needs a window (e.g. window: 5m)", reduce_names[c->reduce]);
    if (metric && c->reduce != RED_LAST && operand_is_instant(&c->metric))
        rdoc_err(d, metric, "'%s' is known only now: use reduce: last", c->metric.text);
    if (thr && operand_uses_process(&c->threshold))
        rdoc_err(d, thr, "a threshold cannot use process.* values");
}

static void parse_cond(parser *p, const yaml_node_t *n, cond *c, int depth)
{
    static const char *const keys[] = {"metric", "reduce", "window", "op", "threshold", "all", "any", NULL};
    memset(c, 0, sizeof *c);
    if (depth > 8) {
        rdoc_err(&p->d, n, "conditions nested too deeply");
        return;
    }
    if (rdoc_check_map(&p->d, n, "condition", keys) != 0)
        return;
    yaml_node_t *all = rdoc_get(&p->d, n, "all"), *any = rdoc_get(&p->d, n, "any");
    if (all && any)
        rdoc_err(&p->d, n, "a condition has either 'all' or 'any', not both");
    if ((all || any) && rdoc_get(&p->d, n, "metric"))
        rdoc_err(&p->d, n, "'metric' cannot be combined with 'all'/'any' in one condition");
    if (all)
        parse_combo(p, all, c, COND_ALL, depth);
    else if (any)
        parse_combo(p, any, c, COND_ANY, depth);
    else
        parse_leaf(p, n, c);
}

static int cond_uses_process(const cond *c)
{
    if (c->kind == COND_LEAF)
        return operand_uses_process(&c->metric);
    for (int i = 0; i < c->nkids; i++)
        if (cond_uses_process(&c->kids[i]))
            return 1;
    return 0;
}

static void parse_kv(parser *p, const yaml_node_t *m, const char *what, labels *out, int sorted)
{
    if (rdoc_check_map(&p->d, m, what, NULL) != 0)
        return;
    for (yaml_node_pair_t *kv = m->data.mapping.pairs.start; kv < m->data.mapping.pairs.top; kv++) {
        const char *k = rdoc_scalar(&p->d, rdoc_node(&p->d, kv->key), what);
        const char *v = rdoc_scalar(&p->d, rdoc_node(&p->d, kv->value), what);
        if (!k || !v)
            continue;
        int ok = *k && !isdigit((unsigned char)*k);
        for (const char *c = k; *c; c++)
            ok &= isalnum((unsigned char)*c) || *c == '_';
        if (!ok) {
            rdoc_err(&p->d, rdoc_node(&p->d, kv->key), "%s name '%s' must match [a-zA-Z_][a-zA-Z0-9_]*", what, k);
            continue;
        }
        if (sorted)
            labels_set(out, k, v);
        else
            labels_append(out, k, v);
    }
}

static void parse_gpus(parser *p, const yaml_node_t *n, rule *r)
{
    r->has_gpus = 1;
    if (n->type == YAML_SCALAR_NODE) {
        const char *s = (const char *)n->data.scalar.value;
        if (gw_parse_index_list(s, r->gpus, RULES_MAX_GPUS) != 0)
            rdoc_err(&p->d, n, "gpus: '%s' must be indexes like 0,2,4-7", s);
        return;
    }
    int count;
    yaml_node_item_t *it = rdoc_items(&p->d, n, "gpus", &count);
    for (int i = 0; it && i < count; i++) {
        yaml_node_t *g = rdoc_node(&p->d, it[i]);
        const char *s = rdoc_scalar(&p->d, g, "gpus item");
        char *end;
        long v = s ? strtol(s, &end, 10) : -1;
        if (!s || *end || v < 0 || v >= RULES_MAX_GPUS)
            rdoc_err(&p->d, g, "gpus: '%s' is not a GPU index", s ? s : "?");
        else
            r->gpus[v] = 1;
    }
}

static void parse_annotations(parser *p, const yaml_node_t *m, rule *r)
{
    parse_kv(p, m, "annotations", &r->annotations, 0);
    r->tmpls = calloc((size_t)(r->annotations.n ? r->annotations.n : 1), sizeof *r->tmpls);
    if (!r->tmpls)
        abort();
    for (int i = 0; i < r->annotations.n; i++) {
        char err[300];
        int off = 0;
        if (tmpl_compile(&r->tmpls[i], r->annotations.v[i].value, err, sizeof err, &off) != 0) {
            /* Point at the annotation's value (plain scalars: the column of the bad action). */
            yaml_node_t *v = rdoc_get(&p->d, m, r->annotations.v[i].name);
            yaml_node_t at = *v;
            if (v->data.scalar.style == YAML_PLAIN_SCALAR_STYLE ||
                v->data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE ||
                v->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE) {
                int quoted = v->data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
                if (v->start_mark.line == v->end_mark.line)
                    at.start_mark.column += (size_t)(off + quoted);
            }
            rdoc_err(&p->d, &at, "annotation %s: %s", r->annotations.v[i].name, err);
        }
    }
}

static void parse_rule(parser *p, const yaml_node_t *n, rule *r)
{
    static const char *const keys[] = {"alert",           "condition", "all",         "any",  "for",
                                       "keep_firing_for", "labels",    "annotations", "gpus", "scope",
                                       "record",          "expr",      NULL};
    rdoc *d = &p->d;
    r->line = (int)n->start_mark.line + 1;
    if (rdoc_check_map(d, n, "rule", keys) != 0)
        return;
    yaml_node_t *v;
    if (rdoc_get(d, n, "record") || rdoc_get(d, n, "expr"))
        rdoc_err(d, n,
                 "'record'/'expr' (PromQL) rules are for Prometheus: use deploy/prometheus/; gpuwatch rules use "
                 "'condition'");
    if (!(v = rdoc_get(d, n, "alert"))) {
        rdoc_err(d, n, "rule needs 'alert' (its name)");
    } else {
        const char *s = rdoc_scalar(d, v, "alert");
        if (s && !*s)
            rdoc_err(d, v, "alert name is empty");
        r->alert = xstrdup(s ? s : "");
    }
    yaml_node_t *c = rdoc_get(d, n, "condition"), *all = rdoc_get(d, n, "all"), *any = rdoc_get(d, n, "any");
    if (!!c + !!all + !!any != 1)
        rdoc_err(d, n, "rule needs exactly one of 'condition', 'all' or 'any'");
    if (c)
        parse_cond(p, c, &r->cond, 0);
    else if (all)
        parse_combo(p, all, &r->cond, COND_ALL, 0);
    else if (any)
        parse_combo(p, any, &r->cond, COND_ANY, 0);
    if ((v = rdoc_get(d, n, "for")))
        get_duration(p, v, "for", &r->for_us);
    if ((v = rdoc_get(d, n, "keep_firing_for")))
        get_duration(p, v, "keep_firing_for", &r->keep_firing_us);
    if ((v = rdoc_get(d, n, "labels")))
        parse_kv(p, v, "labels", &r->labels, 1);
    if (labels_get(&r->labels, "alertname"))
        rdoc_err(d, v, "the label 'alertname' is set from 'alert'");
    if ((v = rdoc_get(d, n, "annotations")))
        parse_annotations(p, v, r);
    if ((v = rdoc_get(d, n, "gpus")))
        parse_gpus(p, v, r);
    if ((v = rdoc_get(d, n, "scope"))) {
        const char *s = rdoc_scalar(d, v, "scope");
        if (s && strcmp(s, "process") == 0)
            r->scope_process = 1;
        else if (s && strcmp(s, "gpu") != 0)
            rdoc_err(d, v, "scope '%s' must be gpu or process", s);
    }
    if (!r->scope_process && cond_uses_process(&r->cond))
        rdoc_err(d, n, "process.memory / process.sm need 'scope: process'");
}

static void parse_group(parser *p, const yaml_node_t *n, rule_group *g, const char *path)
{
    static const char *const keys[] = {"name", "interval", "rules", "labels", NULL};
    rdoc *d = &p->d;
    g->file = xstrdup(path);
    if (rdoc_check_map(d, n, "group", keys) != 0)
        return;
    yaml_node_t *v = rdoc_get(d, n, "name");
    const char *name = v ? rdoc_scalar(d, v, "name") : NULL;
    if (!v)
        rdoc_err(d, n, "group needs a 'name'");
    g->name = xstrdup(name ? name : "");
    if ((v = rdoc_get(d, n, "interval")) && get_duration(p, v, "interval", &g->interval_us) == 0 && g->interval_us == 0)
        rdoc_err(d, v, "interval must be longer than 0");
    labels group_labels = {0};
    if ((v = rdoc_get(d, n, "labels")))
        parse_kv(p, v, "labels", &group_labels, 1);
    int count = 0;
    yaml_node_item_t *it = NULL;
    if (!(v = rdoc_get(d, n, "rules")))
        rdoc_err(d, n, "group needs 'rules'");
    else
        it = rdoc_items(d, v, "rules", &count);
    if (it) {
        g->rules = calloc((size_t)(count ? count : 1), sizeof *g->rules);
        if (!g->rules)
            abort();
        g->nrules = count;
        for (int i = 0; i < count; i++) {
            parse_rule(p, rdoc_node(d, it[i]), &g->rules[i]);
            for (int k = 0; k < group_labels.n; k++) /* a rule's own labels win */
                if (!labels_get(&g->rules[i].labels, group_labels.v[k].name))
                    labels_set(&g->rules[i].labels, group_labels.v[k].name, group_labels.v[k].value);
        }
    }
    labels_free(&group_labels);
}

static void group_free(rule_group *g)
{
    for (int i = 0; i < g->nrules; i++) {
        rule *r = &g->rules[i];
        free(r->alert);
        labels_free(&r->labels);
        for (int k = 0; r->tmpls && k < r->annotations.n; k++)
            tmpl_free(&r->tmpls[k]);
        free(r->tmpls);
        labels_free(&r->annotations);
        cond_free(&r->cond);
    }
    free(g->rules);
    free(g->name);
    free(g->file);
}

int rules_load_string(ruleset *rs, const char *path, const char *text, errlist *errs)
{
    parser p = {.errors_before = errs->n};
    if (rdoc_load(&p.d, path, text, errs) != 0)
        return errs->n - p.errors_before;
    rdoc *d = &p.d;
    yaml_node_t *root = rdoc_root(d);
    static const char *const keys[] = {"groups", NULL};
    int count = 0;
    yaml_node_item_t *it = NULL;
    if (rdoc_check_map(d, root, "a rule file", keys) == 0) {
        yaml_node_t *groups = rdoc_get(d, root, "groups");
        if (!groups)
            rdoc_err(d, root, "a rule file needs 'groups'");
        else
            it = rdoc_items(d, groups, "groups", &count);
    }
    rule_group *gs = calloc((size_t)(count ? count : 1), sizeof *gs);
    if (!gs)
        abort();
    for (int i = 0; it && i < count; i++) {
        parse_group(&p, rdoc_node(d, it[i]), &gs[i], path);
        for (int k = 0; k < i; k++)
            if (strcmp(gs[k].name, gs[i].name) == 0)
                rdoc_err(d, rdoc_node(d, it[i]), "group name '%s' is used twice in this file", gs[i].name);
    }
    rdoc_free(d);
    int nerr = errs->n - p.errors_before;
    if (nerr == 0) {
        rule_group *all = realloc(rs->groups, (size_t)(rs->ngroups + count + 1) * sizeof *all);
        if (!all)
            abort();
        memcpy(all + rs->ngroups, gs, (size_t)count * sizeof *gs);
        rs->groups = all;
        rs->ngroups += count;
    } else {
        for (int i = 0; i < count; i++)
            group_free(&gs[i]);
    }
    free(gs);
    return nerr;
}

int rules_load_file(ruleset *rs, const char *path, errlist *errs)
{
    return rules_load_string(rs, path, NULL, errs);
}

int ruleset_count(const ruleset *rs)
{
    int n = 0;
    for (int i = 0; i < rs->ngroups; i++)
        n += rs->groups[i].nrules;
    return n;
}

void ruleset_free(ruleset *rs)
{
    for (int i = 0; i < rs->ngroups; i++)
        group_free(&rs->groups[i]);
    free(rs->groups);
    rs->groups = NULL;
    rs->ngroups = 0;
}
