/* ydoc.h - a loaded YAML document (libyaml document API) with typed accessors that report
 * errors as "FILE:LINE:COL: what was expected", LINE and COL counted from 1. */
#ifndef GPUSIM_YDOC_H
#define GPUSIM_YDOC_H

#include <stddef.h>
#include <yaml.h>

typedef struct ydoc {
    yaml_document_t doc;
    int loaded;
    const char *file; /* name used in messages */
    char *err;        /* where the first error goes */
    size_t errlen;
    int failed;
} ydoc;

/* Loads one YAML document from text. Returns 0, or -1 with the error in err. */
int ydoc_load(ydoc *d, const char *file, const char *text, size_t len, char *err, size_t errlen);
void ydoc_free(ydoc *d);
yaml_node_t *ydoc_root(ydoc *d);

/* Records an error at node n (only the first one is kept). Always returns -1. */
int yerr(ydoc *d, const yaml_node_t *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The scalar text of n, or NULL if n is not a scalar. */
const char *yscalar(const yaml_node_t *n);
int yis_map(const yaml_node_t *n);
int yis_seq(const yaml_node_t *n);
/* Element i of a sequence node / number of elements. */
yaml_node_t *yseq_at(ydoc *d, const yaml_node_t *n, int i);
int yseq_len(const yaml_node_t *n);

/* Mapping walk: number of pairs, key text and value node of pair i. */
int ymap_len(const yaml_node_t *n);
yaml_node_t *ymap_key(ydoc *d, const yaml_node_t *n, int i);
yaml_node_t *ymap_val(ydoc *d, const yaml_node_t *n, int i);
/* Value of key in mapping n, or NULL. */
yaml_node_t *ymap_get(ydoc *d, const yaml_node_t *n, const char *key);
/* Checks that n is a mapping whose keys are scalars, unique and all in allowed (NULL-terminated).
 * what names the mapping in messages ("gpu entry"). */
int ymap_check(ydoc *d, const yaml_node_t *n, const char *what, const char *const *allowed);

/* Typed scalars; each reports "expected ..." at the node on failure and returns -1. */
int ynumber(ydoc *d, const yaml_node_t *n, double *out);
int yint(ydoc *d, const yaml_node_t *n, long min, long max, long *out);
/* A duration: a number of seconds or a number with unit ms, s, m, h, d ("500ms", "10s", "5m"). */
int yduration(ydoc *d, const yaml_node_t *n, double *out);
/* Copies a scalar into out (always terminated); a longer one is an error. */
int ystring(ydoc *d, const yaml_node_t *n, char *out, size_t outlen);

/* Parses a duration text as yduration does; 0 on success. */
int parse_duration_text(const char *s, double *out);

#endif
