/* doc.c - YAML documents within limits, and their typed accessors (see doc.h).
 *
 * The document is built from libyaml's events rather than with yaml_parser_load, so that the
 * limits hold while parsing: nesting deeper than DOC_MAX_DEPTH stops the parse at once (libyaml's
 * own loader has no limit, and very deep input takes it minutes), and an anchor is usable only once
 * its node is complete (no cycles) and only while the nodes reachable through aliases stay under
 * DOC_MAX_NODES (no "billion laughs" for the readers that walk the tree). */
#include "doc.h"
#include "files.h"
#include "util.h"
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct anchor {
    char *name;
    int id;
    size_t size; /* nodes reachable from it, aliases expanded */
} anchor;

typedef struct frame {
    int id;
    int key;     /* a mapping's key waiting for its value, or 0 */
    size_t size; /* nodes reachable so far */
    char *anchor;
} frame;

typedef struct builder {
    gw_doc *d;
    frame stack[DOC_MAX_DEPTH];
    int depth;
    anchor *anchors;
    int nanchors;
    size_t total; /* nodes reachable from the root, aliases expanded */
} builder;

int doc_error(gw_doc *d, const doc_node *n, const char *fmt, ...)
{
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    const char *name = d->name ? d->name : "-";
    if (n)
        errlist_add(d->errs, name, (int)n->start_mark.line + 1, (int)n->start_mark.column + 1, "%s", text);
    else
        errlist_add(d->errs, name, 0, 0, "%s", text);
    return -1;
}

static int error_at(gw_doc *d, yaml_mark_t m, const char *fmt, const char *a, const char *b)
{
    errlist_add(d->errs, d->name, (int)m.line + 1, (int)m.column + 1, fmt, a, b);
    return -1;
}

static int remember_anchor(builder *b, char *name, int id, size_t size)
{
    anchor *grown = realloc(b->anchors, (size_t)(b->nanchors + 1) * sizeof *grown);
    if (!grown) {
        free(name);
        return -1;
    }
    b->anchors = grown;
    b->anchors[b->nanchors++] = (anchor){name, id, size};
    return 0;
}

/* Hands a complete node (id, reaching size nodes) to the node being built above it. */
static int attach(builder *b, int id, size_t size, yaml_mark_t mark)
{
    b->total += size;
    if (b->total > DOC_MAX_NODES)
        return error_at(b->d, mark, "YAML: more than %s nodes%s (aliases counted each time they are used)", "1000000",
                        "");
    if (b->depth == 0)
        return 0; /* the root: node 1 */
    frame *f = &b->stack[b->depth - 1];
    f->size += size;
    doc_node *parent = yaml_document_get_node(&b->d->y, f->id);
    if (parent->type == YAML_SEQUENCE_NODE)
        return yaml_document_append_sequence_item(&b->d->y, f->id, id) ? 0 : -1;
    if (!f->key) {
        f->key = id;
        return 0;
    }
    int ok = yaml_document_append_mapping_pair(&b->d->y, f->id, f->key, id);
    f->key = 0;
    return ok ? 0 : -1;
}

static void set_marks(builder *b, int id, const yaml_event_t *ev)
{
    doc_node *n = yaml_document_get_node(&b->d->y, id);
    n->start_mark = ev->start_mark;
    n->end_mark = ev->end_mark;
}

static char *take_anchor(yaml_char_t *a)
{
    return a ? strdup((const char *)a) : NULL;
}

/* One event into the document. Returns 1 at the document's end, 0 to go on, -1 on error. */
static int on_event(builder *b, yaml_event_t *ev)
{
    yaml_document_t *y = &b->d->y;
    int id;
    switch (ev->type) {
    case YAML_STREAM_START_EVENT:
    case YAML_DOCUMENT_START_EVENT:
    case YAML_NO_EVENT: return 0;
    case YAML_DOCUMENT_END_EVENT:
    case YAML_STREAM_END_EVENT: return 1;
    case YAML_SCALAR_EVENT: {
        id = yaml_document_add_scalar(y, ev->data.scalar.tag, ev->data.scalar.value, (int)ev->data.scalar.length,
                                      ev->data.scalar.style);
        if (!id)
            return -1;
        set_marks(b, id, ev);
        if (ev->data.scalar.anchor && remember_anchor(b, take_anchor(ev->data.scalar.anchor), id, 1) != 0)
            return -1;
        return attach(b, id, 1, ev->start_mark);
    }
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT: {
        if (b->depth == DOC_MAX_DEPTH)
            return error_at(b->d, ev->start_mark, "YAML: nested more than %s levels deep%s", "64", "");
        int seq = ev->type == YAML_SEQUENCE_START_EVENT;
        id = seq ? yaml_document_add_sequence(y, ev->data.sequence_start.tag, ev->data.sequence_start.style)
                 : yaml_document_add_mapping(y, ev->data.mapping_start.tag, ev->data.mapping_start.style);
        if (!id)
            return -1;
        set_marks(b, id, ev);
        yaml_char_t *a = seq ? ev->data.sequence_start.anchor : ev->data.mapping_start.anchor;
        b->stack[b->depth++] = (frame){id, 0, 1, take_anchor(a)};
        return 0;
    }
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT: {
        frame f = b->stack[--b->depth];
        yaml_document_get_node(y, f.id)->end_mark = ev->end_mark;
        if (f.anchor && remember_anchor(b, f.anchor, f.id, f.size) != 0)
            return -1;
        /* the children were counted into total as they came; the node itself once more */
        b->total -= f.size - 1;
        return attach(b, f.id, f.size, ev->start_mark);
    }
    case YAML_ALIAS_EVENT: {
        const char *name = (const char *)ev->data.alias.anchor;
        for (int i = b->nanchors - 1; i >= 0; i--)
            if (strcmp(b->anchors[i].name, name) == 0)
                return attach(b, b->anchors[i].id, b->anchors[i].size, ev->start_mark);
        return error_at(b->d, ev->start_mark, "YAML: alias *%s names no complete anchor before it%s", name, "");
    }
    }
    return 0;
}

static int load(gw_doc *d, const char *text, size_t len)
{
    if (len > DOC_MAX_BYTES) {
        errlist_add(d->errs, d->name, 0, 0, "larger than %u bytes", DOC_MAX_BYTES);
        return -1;
    }
    yaml_parser_t p;
    if (!yaml_parser_initialize(&p)) {
        errlist_add(d->errs, d->name, 0, 0, "out of memory");
        return -1;
    }
    yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
    yaml_document_initialize(&d->y, NULL, NULL, NULL, 1, 1);
    d->loaded = 1;
    builder b = {.d = d};
    int rc = 0;
    while (rc == 0) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&p, &ev)) {
            const yaml_mark_t *m = p.problem ? &p.problem_mark : &p.context_mark;
            errlist_add(d->errs, d->name, (int)m->line + 1, (int)m->column + 1, "YAML: %s%s%s",
                        p.problem ? p.problem : "syntax error", p.context ? " " : "", p.context ? p.context : "");
            rc = -1;
            break;
        }
        rc = on_event(&b, &ev);
        yaml_event_delete(&ev);
    }
    for (int i = 0; i < b.depth; i++)
        free(b.stack[i].anchor);
    for (int i = 0; i < b.nanchors; i++)
        free(b.anchors[i].name);
    free(b.anchors);
    yaml_parser_delete(&p);
    if (rc < 0) {
        if (d->errs->n == 0)
            errlist_add(d->errs, d->name, 0, 0, "out of memory");
        doc_free(d);
        return -1;
    }
    return 0;
}

static int set_name(gw_doc *d, const char *name, errlist *errs)
{
    memset(d, 0, sizeof *d);
    d->errs = errs;
    d->name = strdup(name ? name : "-");
    if (!d->name) {
        errlist_add(errs, name, 0, 0, "out of memory");
        return -1;
    }
    return 0;
}

int doc_load_text(gw_doc *d, const char *name, const char *text, size_t len, errlist *errs)
{
    if (set_name(d, name, errs) != 0)
        return -1;
    return load(d, text, len);
}

int doc_load_file(gw_doc *d, const char *path, errlist *errs)
{
    if (set_name(d, path, errs) != 0)
        return -1;
    char why[128];
    size_t len;
    char *text = gw_read_file(path, DOC_MAX_BYTES, &len, why, sizeof why);
    if (!text) {
        errlist_add(errs, path, 0, 0, "cannot read: %s", why);
        doc_free(d);
        return -1;
    }
    int rc = load(d, text, len);
    free(text);
    return rc;
}

const char *doc_overridden(const gw_doc *d, const char *section, const char *key)
{
    for (int i = 0; i < d->noverrides; i++)
        if (strcmp(d->overrides[i].section, section) == 0 && strcmp(d->overrides[i].key, key) == 0)
            return d->overrides[i].value;
    return NULL;
}

void doc_free(gw_doc *d)
{
    if (d->loaded)
        yaml_document_delete(&d->y);
    d->loaded = 0;
    free(d->name);
    d->name = NULL;
}

doc_node *doc_root(gw_doc *d)
{
    return d->loaded ? yaml_document_get_root_node(&d->y) : NULL;
}

/* ---- shapes ---- */

int doc_is_null(const doc_node *n)
{
    if (!n)
        return 1;
    if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return 0;
    const char *s = (const char *)n->data.scalar.value;
    return !*s || strcmp(s, "~") == 0 || strcmp(s, "null") == 0;
}

int doc_is_map(const doc_node *n)
{
    return n && n->type == YAML_MAPPING_NODE;
}

int doc_is_seq(const doc_node *n)
{
    return n && n->type == YAML_SEQUENCE_NODE;
}

const char *doc_text(const doc_node *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* ---- mappings and sequences ---- */

int doc_map_len(const doc_node *m)
{
    return doc_is_map(m) ? (int)(m->data.mapping.pairs.top - m->data.mapping.pairs.start) : 0;
}

doc_node *doc_map_key(gw_doc *d, const doc_node *m, int i)
{
    return yaml_document_get_node(&d->y, m->data.mapping.pairs.start[i].key);
}

doc_node *doc_map_value(gw_doc *d, const doc_node *m, int i)
{
    return yaml_document_get_node(&d->y, m->data.mapping.pairs.start[i].value);
}

doc_node *doc_get(gw_doc *d, const doc_node *m, const char *key)
{
    for (int i = 0; i < doc_map_len(m); i++) {
        const char *k = doc_text(doc_map_key(d, m, i));
        if (k && strcmp(k, key) == 0)
            return doc_map_value(d, m, i);
    }
    return NULL;
}

doc_node *doc_path(gw_doc *d, const char *dotted)
{
    doc_node *n = doc_root(d);
    char key[128];
    for (const char *p = dotted; n && p && *p;) {
        const char *dot = strchr(p, '.');
        size_t len = dot ? (size_t)(dot - p) : strlen(p);
        if (len >= sizeof key)
            return NULL;
        memcpy(key, p, len);
        key[len] = 0;
        n = doc_get(d, n, key);
        p = dot ? dot + 1 : NULL;
    }
    return n;
}

static void join(const char *const *list, char *out, size_t n)
{
    size_t used = 0;
    out[0] = 0;
    for (int i = 0; list[i]; i++) {
        int k = snprintf(out + used, n - used, "%s%s", i ? ", " : "", list[i]);
        if (k < 0 || (size_t)k >= n - used)
            break;
        used += (size_t)k;
    }
}

int doc_check_map(gw_doc *d, const doc_node *m, const char *what, const char *const *allowed)
{
    char keys[512]; /* the allowed keys, joined only for a message */
    if (!doc_is_map(m)) {
        if (!allowed)
            return doc_error(d, m, "%s: expected a mapping of keys", what);
        join(allowed, keys, sizeof keys);
        return doc_error(d, m, "%s: expected a mapping of keys (%s)", what, keys);
    }
    for (int i = 0; i < doc_map_len(m); i++) {
        doc_node *kn = doc_map_key(d, m, i);
        const char *k = doc_text(kn);
        if (!k) {
            doc_error(d, kn, "%s: keys must be plain text", what);
            continue;
        }
        int repeated = 0;
        for (int j = 0; j < i && !repeated; j++) {
            const char *other = doc_text(doc_map_key(d, m, j));
            repeated = other && strcmp(other, k) == 0;
        }
        if (repeated) {
            doc_error(d, kn, "duplicate key '%s' in %s", k, what);
            continue;
        }
        int known = !allowed;
        for (int j = 0; allowed && allowed[j] && !known; j++)
            known = strcmp(allowed[j], k) == 0;
        if (!known) {
            join(allowed, keys, sizeof keys);
            doc_error(d, kn, "unknown key '%s' in %s (expected one of: %s)", k, what, keys);
        }
    }
    return 0;
}

int doc_seq_len(const doc_node *s)
{
    return doc_is_seq(s) ? (int)(s->data.sequence.items.top - s->data.sequence.items.start) : 0;
}

doc_node *doc_seq_at(gw_doc *d, const doc_node *s, int i)
{
    return yaml_document_get_node(&d->y, s->data.sequence.items.start[i]);
}

int doc_check_seq(gw_doc *d, const doc_node *s, const char *what)
{
    return doc_is_seq(s) ? 0 : doc_error(d, s, "%s: expected a list", what);
}

/* ---- typed scalars ---- */

/* "WHAT: " before a message, or nothing when what is NULL. */
#define WHAT(w) (w) ? (w) : "", (w) ? ": " : ""

const char *doc_string(gw_doc *d, const doc_node *n, const char *what)
{
    const char *s = doc_text(n);
    if (!s)
        doc_error(d, n, "%s%sexpected a single value", WHAT(what));
    return s;
}

int doc_copy(gw_doc *d, const doc_node *n, const char *what, char *out, size_t outlen)
{
    const char *s = doc_string(d, n, what);
    if (!s)
        return -1;
    size_t len = strlen(s);
    if (len >= outlen)
        return doc_error(d, n, "%s%stoo long (at most %zu characters)", WHAT(what), outlen - 1);
    memcpy(out, s, len + 1);
    return 0;
}

int doc_number(gw_doc *d, const doc_node *n, const char *what, double *out)
{
    const char *s = doc_text(n);
    if (!s)
        return doc_error(d, n, "%s%sexpected a number", WHAT(what));
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (!*s || end == s || *end || errno || !isfinite(v))
        return doc_error(d, n, "%s%sexpected a number, got '%s'", WHAT(what), s);
    *out = v;
    return 0;
}

int doc_int(gw_doc *d, const doc_node *n, const char *what, long min, long max, long *out)
{
    double v;
    if (doc_number(d, n, what, &v) != 0)
        return -1;
    if (v != floor(v) || v < (double)min || v > (double)max)
        return doc_error(d, n, "%s%sexpected an integer from %ld to %ld, got '%s'", WHAT(what), min, max, doc_text(n));
    *out = (long)v;
    return 0;
}

int doc_bool(gw_doc *d, const doc_node *n, const char *what, int *out)
{
    const char *s = doc_text(n);
    static const char *const yes[] = {"true", "yes", "on", "True", "TRUE"};
    static const char *const no[] = {"false", "no", "off", "False", "FALSE"};
    for (size_t i = 0; s && i < sizeof yes / sizeof yes[0]; i++) {
        if (strcmp(s, yes[i]) == 0) {
            *out = 1;
            return 0;
        }
        if (strcmp(s, no[i]) == 0) {
            *out = 0;
            return 0;
        }
    }
    return doc_error(d, n, "%s%sexpected true or false, got '%s'", WHAT(what), s ? s : "");
}

static int doc_duration_us(gw_doc *d, const doc_node *n, const char *what, int64_t *us)
{
    const char *s = doc_text(n);
    if (!s || gw_parse_duration_us(s, us) != 0)
        return doc_error(d, n, "%s%sexpected a duration (e.g. 500ms, 10s, 1.5m, 1h30m), got '%s'", WHAT(what),
                         s ? s : "");
    return 0;
}

int doc_duration(gw_doc *d, const doc_node *n, const char *what, double *seconds)
{
    int64_t us;
    if (doc_duration_us(d, n, what, &us) != 0)
        return -1;
    *seconds = (double)us / 1e6;
    return 0;
}

int doc_size(gw_doc *d, const doc_node *n, const char *what, uint64_t *bytes)
{
    const char *s = doc_text(n);
    if (!s || gw_parse_size(s, bytes) != 0)
        return doc_error(d, n, "%s%sexpected a size (e.g. 500MB, 2GiB), got '%s'", WHAT(what), s ? s : "");
    return 0;
}

/* ---- optional keys ---- */

/* The value of an optional key (NULL: absent or null) and its name for messages. */
static doc_node *opt(gw_doc *d, const doc_node *m, const char *section, const char *key, char *what, size_t n)
{
    snprintf(what, n, "%s%s%s", section ? section : "", section ? "." : "", key);
    doc_node *v = doc_get(d, m, key);
    return doc_is_null(v) ? NULL : v;
}

int doc_opt_string(gw_doc *d, const doc_node *m, const char *section, const char *key, const char **out)
{
    char what[160];
    doc_node *v = opt(d, m, section, key, what, sizeof what);
    if (!v)
        return 0;
    const char *s = doc_string(d, v, what);
    if (!s)
        return -1;
    *out = s;
    return 0;
}

int doc_opt_bool(gw_doc *d, const doc_node *m, const char *section, const char *key, int *out)
{
    char what[160];
    doc_node *v = opt(d, m, section, key, what, sizeof what);
    return v ? doc_bool(d, v, what, out) : 0;
}

int doc_opt_number(gw_doc *d, const doc_node *m, const char *section, const char *key, double *out)
{
    char what[160];
    doc_node *v = opt(d, m, section, key, what, sizeof what);
    return v ? doc_number(d, v, what, out) : 0;
}

int doc_opt_int(gw_doc *d, const doc_node *m, const char *section, const char *key, long min, long max, long *out)
{
    char what[160];
    doc_node *v = opt(d, m, section, key, what, sizeof what);
    return v ? doc_int(d, v, what, min, max, out) : 0;
}

int doc_opt_duration(gw_doc *d, const doc_node *m, const char *section, const char *key, double *seconds)
{
    char what[160];
    doc_node *v = opt(d, m, section, key, what, sizeof what);
    return v ? doc_duration(d, v, what, seconds) : 0;
}

int doc_opt_size(gw_doc *d, const doc_node *m, const char *section, const char *key, uint64_t *bytes)
{
    char what[160];
    doc_node *v = opt(d, m, section, key, what, sizeof what);
    return v ? doc_size(d, v, what, bytes) : 0;
}
