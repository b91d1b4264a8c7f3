/* rules_parse.c - reading rule files (Prometheus-like groups/rules, conditions over catalog fields). */
#include "rules.h"
#include "condition.h"
#include "doc.h"
#include "util.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const reduce_names[] = {"last", "avg", "min", "max", "p95", "increase", "rate", "changes"};
static const char *const cmp_names[] = {">", ">=", "<", "<=", "==", "!="};

typedef struct parser {
    gw_doc d;
    int errors_before;
    int oom; /* an allocation failed: the file is refused with "out of memory" (checked once, at the end) */
} parser;

static char *dup_str(parser *p, const char *s)
{
    char *d = strdup(s);
    if (!d)
        p->oom = 1;
    return d;
}

static int get_duration(parser *p, const yaml_node_t *n, const char *what, int64_t *out)
{
    const char *s = doc_string(&p->d, n, what);
    if (!s)
        return -1;
    if (gw_parse_duration_us(s, out) != 0) {
        doc_error(&p->d, n, "%s: bad duration '%s' (e.g. 30s, 5m, 1h30m)", what, s);
        return -1;
    }
    return 0;
}

static int get_operand(parser *p, const yaml_node_t *n, const char *what, operand *o)
{
    const char *s = doc_string(&p->d, n, what);
    if (!s)
        return -1;
    char err[400];
    if (operand_parse(o, s, err, sizeof err) != 0) {
        doc_error(&p->d, n, "%s: %s", what, err);
        return -1;
    }
    return 0;
}

static void parse_cond(parser *p, const yaml_node_t *n, cond *c, int depth);

static void parse_combo(parser *p, const yaml_node_t *list, cond *c, int kind, int depth)
{
    c->kind = kind;
    if (doc_check_seq(&p->d, list, kind == COND_ALL ? "all" : "any") != 0)
        return;
    int count = doc_seq_len(list);
    if (count == 0)
        doc_error(&p->d, list, "%s needs at least one condition", kind == COND_ALL ? "all" : "any");
    c->kids = calloc((size_t)(count ? count : 1), sizeof *c->kids);
    if (!c->kids) {
        p->oom = 1;
        return;
    }
    c->nkids = count;
    for (int i = 0; i < count; i++)
        parse_cond(p, doc_seq_at(&p->d, list, i), &c->kids[i], depth + 1);
}

static void parse_leaf(parser *p, const yaml_node_t *n, cond *c)
{
    gw_doc *d = &p->d;
    c->kind = COND_LEAF;
    yaml_node_t *metric = doc_get(d, n, "metric"), *op = doc_get(d, n, "op"), *thr = doc_get(d, n, "threshold"),
                *red = doc_get(d, n, "reduce"), *win = doc_get(d, n, "window");
    if (!metric)
        doc_error(d, n, "condition needs 'metric'");
    else
        get_operand(p, metric, "metric", &c->metric);
    if (!op) {
        doc_error(d, n, "condition needs 'op' (one of > >= < <= == !=)");
    } else {
        const char *s = doc_string(d, op, "op");
        int found = -1;
        for (int i = 0; s && i < 6; i++)
            if (strcmp(s, cmp_names[i]) == 0)
                found = i;
        if (s && found < 0)
            doc_error(d, op, "op '%s' must be one of > >= < <= == !=", s);
        c->op = found < 0 ? CMP_GT : (cmp_op)found;
    }
    if (!thr)
        doc_error(d, n, "condition needs 'threshold' (a number, a metric or A / B)");
    else
        get_operand(p, thr, "threshold", &c->threshold);
    c->reduce = RED_LAST;
    if (red) {
        const char *s = doc_string(d, red, "reduce");
        int found = -1;
        for (int i = 0; s && i < 8; i++)
            if (strcmp(s, reduce_names[i]) == 0)
                found = i;
        if (s && found < 0)
            doc_error(d, red, "reduce '%s' must be one of last avg min max p95 increase rate changes", s);
        c->reduce = found < 0 ? RED_LAST : (reduce_kind)found;
    }
    if (win && get_duration(p, win, "window", &c->window_us) == 0 && c->window_us == 0)
        doc_error(d, win, "window must be longer than 0");
    if (c->reduce != RED_LAST && !win)
        doc_error(d, red, "reduce: %s needs a window (e.g. window: 5m)", reduce_names[c->reduce]);
    if (metric && c->reduce != RED_LAST && operand_is_instant(&c->metric))
        doc_error(d, metric, "'%s' is known only now: use reduce: last", c->metric.text);
    if (thr && operand_uses_process(&c->threshold))
        doc_error(d, thr, "a threshold cannot use process.* values");
}

static void parse_cond(parser *p, const yaml_node_t *n, cond *c, int depth)
{
    static const char *const keys[] = {"metric", "reduce", "window", "op", "threshold", "all", "any", NULL};
    memset(c, 0, sizeof *c);
    if (depth > 8) {
        doc_error(&p->d, n, "conditions nested too deeply");
        return;
    }
    if (doc_check_map(&p->d, n, "condition", keys) != 0)
        return;
    yaml_node_t *all = doc_get(&p->d, n, "all"), *any = doc_get(&p->d, n, "any");
    if (all && any)
        doc_error(&p->d, n, "a condition has either 'all' or 'any', not both");
    if ((all || any) && doc_get(&p->d, n, "metric"))
        doc_error(&p->d, n, "'metric' cannot be combined with 'all'/'any' in one condition");
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
    if (doc_check_map(&p->d, m, what, NULL) != 0)
        return;
    for (int i = 0; i < doc_map_len(m); i++) {
        doc_node *kn = doc_map_key(&p->d, m, i);
        const char *k = doc_string(&p->d, kn, what);
        const char *v = doc_string(&p->d, doc_map_value(&p->d, m, i), what);
        if (!k || !v)
            continue;
        int ok = *k && !isdigit((unsigned char)*k);
        for (const char *c = k; *c; c++)
            ok &= isalnum((unsigned char)*c) || *c == '_';
        if (!ok) {
            doc_error(&p->d, kn, "%s name '%s' must match [a-zA-Z_][a-zA-Z0-9_]*", what, k);
            continue;
        }
        if ((sorted ? labels_set(out, k, v) : labels_append(out, k, v)) != 0)
            p->oom = 1;
    }
}

static void parse_gpus(parser *p, const yaml_node_t *n, rule *r)
{
    r->has_gpus = 1;
    if (n->type == YAML_SCALAR_NODE) {
        const char *s = (const char *)n->data.scalar.value;
        if (gw_parse_index_list(s, r->gpus, RULES_MAX_GPUS) != 0)
            doc_error(&p->d, n, "gpus: '%s' must be indexes like 0,2,4-7", s);
        return;
    }
    int count = doc_check_seq(&p->d, n, "gpus") == 0 ? doc_seq_len(n) : 0;
    for (int i = 0; i < count; i++) {
        yaml_node_t *g = doc_seq_at(&p->d, n, i);
        const char *s = doc_string(&p->d, g, "gpus item");
        char *end;
        long v = s ? strtol(s, &end, 10) : -1;
        if (!s || *end || v < 0 || v >= RULES_MAX_GPUS)
            doc_error(&p->d, g, "gpus: '%s' is not a GPU index", s ? s : "?");
        else
            r->gpus[v] = 1;
    }
}

static void parse_annotations(parser *p, const yaml_node_t *m, rule *r)
{
    parse_kv(p, m, "annotations", &r->annotations, 0);
    r->tmpls = calloc((size_t)(r->annotations.n ? r->annotations.n : 1), sizeof *r->tmpls);
    if (!r->tmpls) {
        p->oom = 1;
        return;
    }
    for (int i = 0; i < r->annotations.n; i++) {
        char err[300];
        int off = 0;
        if (tmpl_compile(&r->tmpls[i], r->annotations.v[i].value, err, sizeof err, &off) == 0)
            continue;
        if (off < 0) {
            p->oom = 1;
        } else {
            /* Point at the annotation's value (plain scalars: the column of the bad action). */
            yaml_node_t *v = doc_get(&p->d, m, r->annotations.v[i].name);
            yaml_node_t at = *v;
            if (v->data.scalar.style == YAML_PLAIN_SCALAR_STYLE ||
                v->data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE ||
                v->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE) {
                int quoted = v->data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
                if (v->start_mark.line == v->end_mark.line)
                    at.start_mark.column += (size_t)(off + quoted);
            }
            doc_error(&p->d, &at, "annotation %s: %s", r->annotations.v[i].name, err);
        }
    }
}

static void parse_rule(parser *p, const yaml_node_t *n, rule *r)
{
    static const char *const keys[] = {"alert",           "condition", "all",         "any",  "for",
                                       "keep_firing_for", "labels",    "annotations", "gpus", "scope",
                                       "record",          "expr",      NULL};
    gw_doc *d = &p->d;
    r->line = (int)n->start_mark.line + 1;
    if (doc_check_map(d, n, "rule", keys) != 0)
        return;
    yaml_node_t *v;
    if (doc_get(d, n, "record") || doc_get(d, n, "expr"))
        doc_error(d, n,
                  "'record'/'expr' (PromQL) rules are for Prometheus: use deploy/prometheus/; gpuwatch rules use "
                  "'condition'");
    if (!(v = doc_get(d, n, "alert"))) {
        doc_error(d, n, "rule needs 'alert' (its name)");
    } else {
        const char *s = doc_string(d, v, "alert");
        if (s && !*s)
            doc_error(d, v, "alert name is empty");
        r->alert = dup_str(p, s ? s : "");
    }
    yaml_node_t *c = doc_get(d, n, "condition"), *all = doc_get(d, n, "all"), *any = doc_get(d, n, "any");
    if (!!c + !!all + !!any != 1)
        doc_error(d, n, "rule needs exactly one of 'condition', 'all' or 'any'");
    if (c)
        parse_cond(p, c, &r->cond, 0);
    else if (all)
        parse_combo(p, all, &r->cond, COND_ALL, 0);
    else if (any)
        parse_combo(p, any, &r->cond, COND_ANY, 0);
    if ((v = doc_get(d, n, "for")))
        get_duration(p, v, "for", &r->for_us);
    if ((v = doc_get(d, n, "keep_firing_for")))
        get_duration(p, v, "keep_firing_for", &r->keep_firing_us);
    if ((v = doc_get(d, n, "labels")))
        parse_kv(p, v, "labels", &r->labels, 1);
    if (labels_get(&r->labels, "alertname"))
        doc_error(d, v, "the label 'alertname' is set from 'alert'");
    if ((v = doc_get(d, n, "annotations")))
        parse_annotations(p, v, r);
    if ((v = doc_get(d, n, "gpus")))
        parse_gpus(p, v, r);
    if ((v = doc_get(d, n, "scope"))) {
        const char *s = doc_string(d, v, "scope");
        if (s && strcmp(s, "process") == 0)
            r->scope_process = 1;
        else if (s && strcmp(s, "gpu") != 0)
            doc_error(d, v, "scope '%s' must be gpu or process", s);
    }
    if (!r->scope_process && cond_uses_process(&r->cond))
        doc_error(d, n, "process.memory / process.sm need 'scope: process'");
}

static void parse_group(parser *p, const yaml_node_t *n, rule_group *g, const char *path)
{
    static const char *const keys[] = {"name", "interval", "rules", "labels", NULL};
    gw_doc *d = &p->d;
    g->file = dup_str(p, path);
    if (doc_check_map(d, n, "group", keys) != 0)
        return;
    yaml_node_t *v = doc_get(d, n, "name");
    const char *name = v ? doc_string(d, v, "name") : NULL;
    if (!v)
        doc_error(d, n, "group needs a 'name'");
    g->name = dup_str(p, name ? name : "");
    if ((v = doc_get(d, n, "interval")) && get_duration(p, v, "interval", &g->interval_us) == 0 && g->interval_us == 0)
        doc_error(d, v, "interval must be longer than 0");
    labels group_labels = {0};
    if ((v = doc_get(d, n, "labels")))
        parse_kv(p, v, "labels", &group_labels, 1);
    int count = 0;
    if (!(v = doc_get(d, n, "rules")))
        doc_error(d, n, "group needs 'rules'");
    else if (doc_check_seq(d, v, "rules") == 0)
        count = doc_seq_len(v);
    if (count) {
        g->rules = calloc((size_t)(count ? count : 1), sizeof *g->rules);
        if (!g->rules) {
            p->oom = 1;
            count = 0;
        }
        g->nrules = count;
        for (int i = 0; i < count; i++) {
            parse_rule(p, doc_seq_at(d, v, i), &g->rules[i]);
            for (int k = 0; k < group_labels.n; k++) /* a rule's own labels win */
                if (!labels_get(&g->rules[i].labels, group_labels.v[k].name) &&
                    labels_set(&g->rules[i].labels, group_labels.v[k].name, group_labels.v[k].value) != 0)
                    p->oom = 1;
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
    int loaded = text ? doc_load_text(&p.d, path, text, strlen(text), errs) : doc_load_file(&p.d, path, errs);
    if (loaded != 0) {
        doc_free(&p.d); /* a load that fails before parsing (libyaml out of memory) keeps the name */
        /* at least one error, even when its message could not be kept (out of memory) */
        return errs->n > p.errors_before ? errs->n - p.errors_before : 1;
    }
    gw_doc *d = &p.d;
    yaml_node_t *root = doc_root(d), *groups = NULL;
    static const char *const keys[] = {"groups", NULL};
    int count = 0;
    if (doc_check_map(d, root, "a rule file", keys) == 0) {
        groups = doc_get(d, root, "groups");
        if (!groups)
            doc_error(d, root, "a rule file needs 'groups'");
        else if (doc_check_seq(d, groups, "groups") == 0)
            count = doc_seq_len(groups);
    }
    rule_group *gs = calloc((size_t)(count ? count : 1), sizeof *gs);
    if (!gs) {
        p.oom = 1;
        count = 0;
    }
    for (int i = 0; i < count; i++) {
        parse_group(&p, doc_seq_at(d, groups, i), &gs[i], path);
        for (int k = 0; k < i && gs[i].name; k++) /* a group that is not a mapping has no name */
            if (gs[k].name && strcmp(gs[k].name, gs[i].name) == 0)
                doc_error(d, doc_seq_at(d, groups, i), "group name '%s' is used twice in this file", gs[i].name);
    }
    int nerr = errs->n - p.errors_before;
    if (nerr == 0 && !p.oom) {
        rule_group *all = realloc(rs->groups, (size_t)(rs->ngroups + count + 1) * sizeof *all);
        if (all) {
            memcpy(all + rs->ngroups, gs, (size_t)count * sizeof *gs);
            rs->groups = all;
            rs->ngroups += count;
        } else {
            p.oom = 1;
        }
    }
    if (p.oom)
        doc_error(d, NULL, "out of memory");
    doc_free(d);
    if (p.oom || nerr)
        for (int i = 0; i < count; i++)
            group_free(&gs[i]);
    free(gs);
    nerr = errs->n - p.errors_before;
    return nerr ? nerr : p.oom; /* 1 when out of memory and even its message could not be kept */
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

void ruleset_truncate(ruleset *rs, int ngroups)
{
    while (rs->ngroups > ngroups)
        group_free(&rs->groups[--rs->ngroups]);
}

void ruleset_free(ruleset *rs)
{
    ruleset_truncate(rs, 0);
    free(rs->groups);
    rs->groups = NULL;
}
