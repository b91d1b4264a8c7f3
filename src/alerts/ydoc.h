/* ydoc.h - a loaded YAML document (libyaml) with located errors: the reader of rule and test files. */
#ifndef GPUWATCH_YDOC_H
#define GPUWATCH_YDOC_H

#include <yaml.h>
#include "errlist.h"

typedef struct ydoc {
    yaml_document_t doc;
    const char *file;
    errlist *errs;
    int loaded;
} ydoc;

/* Parses text (or the file when text is NULL). Returns 0, or -1 with the error added to errs. */
int ydoc_load(ydoc *d, const char *file, const char *text, errlist *errs);
void ydoc_free(ydoc *d);
yaml_node_t *ydoc_root(ydoc *d);
yaml_node_t *ydoc_node(ydoc *d, int id);
/* Adds "file:line:col: message" for node n (or the file when n is NULL). */
void ydoc_err(ydoc *d, const yaml_node_t *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The scalar's text, or NULL with an error naming what was expected. */
const char *ydoc_scalar(ydoc *d, const yaml_node_t *n, const char *what);
/* The value of key in mapping m, or NULL. */
yaml_node_t *ydoc_get(ydoc *d, const yaml_node_t *m, const char *key);
/* Reports keys of mapping m not in allowed (NULL-terminated). Returns 0 if m is a mapping. */
int ydoc_check_map(ydoc *d, const yaml_node_t *m, const char *what, const char *const *allowed);
/* Items of a sequence; NULL (with an error) if n is not a sequence. */
yaml_node_item_t *ydoc_items(ydoc *d, const yaml_node_t *n, const char *what, int *count);

#endif
