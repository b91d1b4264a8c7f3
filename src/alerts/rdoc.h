/* rdoc.h - a rule or rule-test file loaded as a YAML document (libyaml), with located errors.
 * (gpusim has its own reader, sim/core/ydoc.h, with a first-error model; the names differ so both
 * can be linked into one test program.) */
#ifndef GPUWATCH_RDOC_H
#define GPUWATCH_RDOC_H

#include <yaml.h>
#include "errlist.h"

typedef struct rdoc {
    yaml_document_t doc;
    const char *file;
    errlist *errs;
    int loaded;
} rdoc;

/* Parses text (or the file when text is NULL). Returns 0, or -1 with the error added to errs. */
int rdoc_load(rdoc *d, const char *file, const char *text, errlist *errs);
void rdoc_free(rdoc *d);
yaml_node_t *rdoc_root(rdoc *d);
yaml_node_t *rdoc_node(rdoc *d, int id);
/* Adds "file:line:col: message" for node n (or the file when n is NULL). */
void rdoc_err(rdoc *d, const yaml_node_t *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The scalar's text, or NULL with an error naming what was expected. */
const char *rdoc_scalar(rdoc *d, const yaml_node_t *n, const char *what);
/* The value of key in mapping m, or NULL. */
yaml_node_t *rdoc_get(rdoc *d, const yaml_node_t *m, const char *key);
/* Reports keys of mapping m not in allowed (NULL-terminated). Returns 0 if m is a mapping. */
int rdoc_check_map(rdoc *d, const yaml_node_t *m, const char *what, const char *const *allowed);
/* Items of a sequence; NULL (with an error) if n is not a sequence. */
yaml_node_item_t *rdoc_items(rdoc *d, const yaml_node_t *n, const char *what, int *count);

#endif
