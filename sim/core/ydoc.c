/* ydoc.c - YAML document loading and typed, position-reporting accessors (see ydoc.h). */
#include "ydoc.h"
#include "util.h"
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ydoc_load(ydoc *d, const char *file, const char *text, size_t len, char *err, size_t errlen)
{
    memset(d, 0, sizeof *d);
    d->file = file;
    d->err = err;
    d->errlen = errlen;
    if (err && errlen)
        err[0] = 0;
    yaml_parser_t p;
    if (!yaml_parser_initialize(&p)) {
        snprintf(err, errlen, "%s: out of memory", file);
        return -1;
    }
    yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
    int ok = yaml_parser_load(&p, &d->doc);
    if (!ok) {
        yaml_mark_t m = p.problem_mark;
        snprintf(err, errlen, "%s:%zu:%zu: %s%s%s", file, m.line + 1, m.column + 1,
                 p.problem ? p.problem : "YAML syntax error", p.context ? " " : "", p.context ? p.context : "");
        yaml_parser_delete(&p);
        return -1;
    }
    yaml_parser_delete(&p);
    d->loaded = 1;
    if (!yaml_document_get_root_node(&d->doc)) {
        snprintf(err, errlen, "%s:1:1: empty scenario (expected a mapping with 'gpus')", file);
        return -1;
    }
    return 0;
}

void ydoc_free(ydoc *d)
{
    if (d->loaded)
        yaml_document_delete(&d->doc);
    d->loaded = 0;
}

yaml_node_t *ydoc_root(ydoc *d)
{
    return yaml_document_get_root_node(&d->doc);
}

int yerr(ydoc *d, const yaml_node_t *n, const char *fmt, ...)
{
    if (d->failed || !d->err || !d->errlen) {
        d->failed = 1;
        return -1;
    }
    d->failed = 1;
    size_t line = n ? n->start_mark.line + 1 : 1, col = n ? n->start_mark.column + 1 : 1;
    int k = snprintf(d->err, d->errlen, "%s:%zu:%zu: ", d->file, line, col);
    if (k < 0 || (size_t)k >= d->errlen)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->err + k, d->errlen - (size_t)k, fmt, ap);
    va_end(ap);
    return -1;
}

const char *yscalar(const yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

int yis_map(const yaml_node_t *n)
{
    return n && n->type == YAML_MAPPING_NODE;
}
int yis_seq(const yaml_node_t *n)
{
    return n && n->type == YAML_SEQUENCE_NODE;
}

int yseq_len(const yaml_node_t *n)
{
    return yis_seq(n) ? (int)(n->data.sequence.items.top - n->data.sequence.items.start) : 0;
}

yaml_node_t *yseq_at(ydoc *d, const yaml_node_t *n, int i)
{
    return yaml_document_get_node(&d->doc, n->data.sequence.items.start[i]);
}

int ymap_len(const yaml_node_t *n)
{
    return yis_map(n) ? (int)(n->data.mapping.pairs.top - n->data.mapping.pairs.start) : 0;
}

yaml_node_t *ymap_key(ydoc *d, const yaml_node_t *n, int i)
{
    return yaml_document_get_node(&d->doc, n->data.mapping.pairs.start[i].key);
}

yaml_node_t *ymap_val(ydoc *d, const yaml_node_t *n, int i)
{
    return yaml_document_get_node(&d->doc, n->data.mapping.pairs.start[i].value);
}

yaml_node_t *ymap_get(ydoc *d, const yaml_node_t *n, const char *key)
{
    for (int i = 0; i < ymap_len(n); i++) {
        const char *k = yscalar(ymap_key(d, n, i));
        if (k && strcmp(k, key) == 0)
            return ymap_val(d, n, i);
    }
    return NULL;
}

static void join_keys(const char *const *allowed, char *out, size_t n)
{
    size_t used = 0;
    out[0] = 0;
    for (int i = 0; allowed[i]; i++) {
        int k = snprintf(out + used, n - used, "%s%s", i ? ", " : "", allowed[i]);
        if (k < 0 || (size_t)k >= n - used)
            break;
        used += (size_t)k;
    }
}

int ymap_check(ydoc *d, const yaml_node_t *n, const char *what, const char *const *allowed)
{
    char list[512]; /* the allowed keys, joined only for an error message */
    if (!yis_map(n)) {
        join_keys(allowed, list, sizeof list);
        return yerr(d, n, "expected a mapping for %s (keys: %s)", what, list);
    }
    for (int i = 0; i < ymap_len(n); i++) {
        yaml_node_t *kn = ymap_key(d, n, i);
        const char *k = yscalar(kn);
        if (!k)
            return yerr(d, kn, "expected a plain key in %s", what);
        int found = 0;
        for (int j = 0; allowed[j] && !found; j++)
            found = strcmp(allowed[j], k) == 0;
        if (!found) {
            join_keys(allowed, list, sizeof list);
            return yerr(d, kn, "unknown key '%s' in %s (expected one of: %s)", k, what, list);
        }
        for (int j = 0; j < i; j++)
            if (strcmp(yscalar(ymap_key(d, n, j)) ? yscalar(ymap_key(d, n, j)) : "", k) == 0)
                return yerr(d, kn, "duplicate key '%s' in %s", k, what);
    }
    return 0;
}

/* strtod over the whole text (no trailing junk, finite). */
static int full_number(const char *s, double *out)
{
    if (!s || !*s)
        return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

int ynumber(ydoc *d, const yaml_node_t *n, double *out)
{
    const char *s = yscalar(n);
    if (!s)
        return yerr(d, n, "expected a number");
    if (full_number(s, out) != 0)
        return yerr(d, n, "expected a number, got '%s'", s);
    return 0;
}

int yint(ydoc *d, const yaml_node_t *n, long min, long max, long *out)
{
    double v;
    if (ynumber(d, n, &v) != 0)
        return -1;
    if (v != floor(v) || v < (double)min || v > (double)max)
        return yerr(d, n, "expected an integer from %ld to %ld, got '%s'", min, max, yscalar(n));
    *out = (long)v;
    return 0;
}

int parse_duration_text(const char *s, double *out)
{
    return gw_parse_duration(s, out);
}

int yduration(ydoc *d, const yaml_node_t *n, double *out)
{
    const char *s = yscalar(n);
    if (!s)
        return yerr(d, n, "expected a duration (e.g. 500ms, 10s, 5m, 1h)");
    if (parse_duration_text(s, out) != 0)
        return yerr(d, n, "expected a duration (e.g. 500ms, 10s, 5m, 1h), got '%s'", s);
    return 0;
}

int ystring(ydoc *d, const yaml_node_t *n, char *out, size_t outlen)
{
    const char *s = yscalar(n);
    if (!s)
        return yerr(d, n, "expected a string");
    if (strlen(s) >= outlen)
        return yerr(d, n, "string too long (at most %zu characters)", outlen - 1);
    memcpy(out, s, strlen(s) + 1);
    return 0;
}
