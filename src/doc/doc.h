/* doc.h - the one way gpuwatch reads YAML: the agent's config and web config, rule files, rule
 * tests, gpusim scenarios and every later settings file. A file or text is loaded as a document
 * within fixed limits, and typed accessors report each problem as "FILE:LINE:COL: message" (line
 * and column from 1) into an error list shared with the caller, so a file's problems are all told
 * at once. The grammar of durations and sizes is base's (util.h). */
#ifndef GPUWATCH_DOC_H
#define GPUWATCH_DOC_H

#include <stddef.h>
#include <stdint.h>
#include <yaml.h>
#include "errlist.h"

/* Refused before or while parsing, with an error naming the limit. */
#define DOC_MAX_BYTES (16u << 20) /* a file or text */
#define DOC_MAX_DEPTH 64          /* nested mappings and sequences */
#define DOC_MAX_NODES 1000000

typedef yaml_node_t doc_node;

/* A value given for section.key outside the file (the agent's command line: --db for history.path),
 * which wins over the file's. The strings are the giver's. */
typedef struct doc_override {
    const char *section, *key, *value;
} doc_override;
#define DOC_MAX_OVERRIDES 16

typedef struct gw_doc {
    yaml_document_t y;
    char *name;    /* the file name used in messages */
    errlist *errs; /* where problems go (the caller's) */
    int loaded;
    const doc_override *overrides; /* set by the loader's caller after a load (a load clears it) */
    int noverrides;
} gw_doc;

/* Loads a file. Returns 0, or -1 after adding why to errs (missing, unreadable, too large, not
 * YAML, too deep). An empty file is an empty document (doc_root gives NULL). */
int doc_load_file(gw_doc *d, const char *path, errlist *errs);
/* The same from text in memory; name is used in messages. */
int doc_load_text(gw_doc *d, const char *name, const char *text, size_t len, errlist *errs);
void doc_free(gw_doc *d);
/* The value given for section.key outside the file (doc_override), or NULL when none was. */
const char *doc_overridden(const gw_doc *d, const char *section, const char *key);
doc_node *doc_root(gw_doc *d);

/* Adds "FILE:LINE:COL: message" for node n (NULL: "FILE: message"). Returns -1. */
int doc_error(gw_doc *d, const doc_node *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Shapes. A null node is an absent one, an empty value, ~ or null. */
int doc_is_null(const doc_node *n);
int doc_is_map(const doc_node *n);
int doc_is_seq(const doc_node *n);
const char *doc_text(const doc_node *n); /* a scalar's text, or NULL */

/* Mappings. doc_get finds a key (NULL when absent or m is no mapping); doc_path follows dotted keys
 * from the root ("history.path"). */
int doc_map_len(const doc_node *m);
doc_node *doc_map_key(gw_doc *d, const doc_node *m, int i);
doc_node *doc_map_value(gw_doc *d, const doc_node *m, int i);
doc_node *doc_get(gw_doc *d, const doc_node *m, const char *key);
doc_node *doc_path(gw_doc *d, const char *dotted);
/* Checks that m is a mapping whose keys are plain, unique and (allowed non-NULL: a NULL-terminated
 * list) known; what names it in messages ("exporter", "gpu entry"). Every problem is reported;
 * returns 0 when m is a mapping, else -1. */
int doc_check_map(gw_doc *d, const doc_node *m, const char *what, const char *const *allowed);

/* Sequences. */
int doc_seq_len(const doc_node *s);
doc_node *doc_seq_at(gw_doc *d, const doc_node *s, int i);
/* Checks that s is a sequence; else an error naming what, and -1. */
int doc_check_seq(gw_doc *d, const doc_node *s, const char *what);

/* Typed scalars: each reports "WHAT: expected ..., got '...'" at n and returns -1 (NULL) when n is
 * not one. */
const char *doc_string(gw_doc *d, const doc_node *n, const char *what);
int doc_copy(gw_doc *d, const doc_node *n, const char *what, char *out, size_t outlen);
int doc_number(gw_doc *d, const doc_node *n, const char *what, double *out);
int doc_int(gw_doc *d, const doc_node *n, const char *what, long min, long max, long *out);
int doc_bool(gw_doc *d, const doc_node *n, const char *what, int *out);
int doc_duration(gw_doc *d, const doc_node *n, const char *what, double *seconds);
int doc_size(gw_doc *d, const doc_node *n, const char *what, uint64_t *bytes);

/* Optional keys of mapping m: absent or null leaves *out as it is (its default) and returns 0;
 * otherwise as the readers above, naming the key "SECTION.KEY" in messages (section may be NULL). */
int doc_opt_string(gw_doc *d, const doc_node *m, const char *section, const char *key, const char **out);
int doc_opt_bool(gw_doc *d, const doc_node *m, const char *section, const char *key, int *out);
int doc_opt_number(gw_doc *d, const doc_node *m, const char *section, const char *key, double *out);
int doc_opt_int(gw_doc *d, const doc_node *m, const char *section, const char *key, long min, long max, long *out);
int doc_opt_duration(gw_doc *d, const doc_node *m, const char *section, const char *key, double *seconds);
int doc_opt_size(gw_doc *d, const doc_node *m, const char *section, const char *key, uint64_t *bytes);

#endif
