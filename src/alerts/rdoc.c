/* rdoc.c - YAML document loading and node access with line:column errors (see rdoc.h). */
#include "rdoc.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int rdoc_load(rdoc *d, const char *file, const char *text, errlist *errs)
{
    memset(d, 0, sizeof *d);
    d->file = file;
    d->errs = errs;
    yaml_parser_t p;
    if (!yaml_parser_initialize(&p))
        return -1;
    FILE *f = NULL;
    if (text) {
        yaml_parser_set_input_string(&p, (const unsigned char *)text, strlen(text));
    } else {
        f = fopen(file, "rb");
        if (!f) {
            errlist_add(errs, file, 0, 0, "cannot open: %m");
            yaml_parser_delete(&p);
            return -1;
        }
        yaml_parser_set_input_file(&p, f);
    }
    int ok = yaml_parser_load(&p, &d->doc);
    if (!ok) {
        const yaml_mark_t *m = p.problem ? &p.problem_mark : &p.context_mark;
        errlist_add(errs, file, (int)m->line + 1, (int)m->column + 1, "YAML: %s%s%s",
                    p.problem ? p.problem : "syntax error", p.context ? " " : "", p.context ? p.context : "");
    } else if (!yaml_document_get_root_node(&d->doc)) {
        errlist_add(errs, file, 0, 0, "empty file");
        yaml_document_delete(&d->doc);
        ok = 0;
    }
    yaml_parser_delete(&p);
    if (f)
        fclose(f);
    d->loaded = ok;
    return ok ? 0 : -1;
}

void rdoc_free(rdoc *d)
{
    if (d->loaded)
        yaml_document_delete(&d->doc);
    d->loaded = 0;
}

yaml_node_t *rdoc_root(rdoc *d)
{
    return yaml_document_get_root_node(&d->doc);
}
yaml_node_t *rdoc_node(rdoc *d, int id)
{
    return yaml_document_get_node(&d->doc, id);
}

void rdoc_err(rdoc *d, const yaml_node_t *n, const char *fmt, ...)
{
    char text[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (n)
        errlist_add(d->errs, d->file, (int)n->start_mark.line + 1, (int)n->start_mark.column + 1, "%s", text);
    else
        errlist_add(d->errs, d->file, 0, 0, "%s", text);
}

const char *rdoc_scalar(rdoc *d, const yaml_node_t *n, const char *what)
{
    if (!n || n->type != YAML_SCALAR_NODE) {
        rdoc_err(d, n, "%s must be a single value", what);
        return NULL;
    }
    return (const char *)n->data.scalar.value;
}

yaml_node_t *rdoc_get(rdoc *d, const yaml_node_t *m, const char *key)
{
    if (!m || m->type != YAML_MAPPING_NODE)
        return NULL;
    for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
        yaml_node_t *k = rdoc_node(d, p->key);
        if (k && k->type == YAML_SCALAR_NODE && strcmp((const char *)k->data.scalar.value, key) == 0)
            return rdoc_node(d, p->value);
    }
    return NULL;
}

int rdoc_check_map(rdoc *d, const yaml_node_t *m, const char *what, const char *const *allowed)
{
    if (!m || m->type != YAML_MAPPING_NODE) {
        rdoc_err(d, m, "%s must be a mapping (key: value)", what);
        return -1;
    }
    for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
        yaml_node_t *k = rdoc_node(d, p->key);
        const char *name = k && k->type == YAML_SCALAR_NODE ? (const char *)k->data.scalar.value : NULL;
        int known = 0;
        for (int i = 0; name && allowed && allowed[i]; i++)
            known |= strcmp(allowed[i], name) == 0;
        if (!known && allowed)
            rdoc_err(d, k, "unknown key '%s' in %s", name ? name : "?", what);
    }
    return 0;
}

yaml_node_item_t *rdoc_items(rdoc *d, const yaml_node_t *n, const char *what, int *count)
{
    if (!n || n->type != YAML_SEQUENCE_NODE) {
        rdoc_err(d, n, "%s must be a list", what);
        *count = 0;
        return NULL;
    }
    *count = (int)(n->data.sequence.items.top - n->data.sequence.items.start);
    return n->data.sequence.items.start;
}
