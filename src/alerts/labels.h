/* labels.h - a set of name=value labels kept sorted by name: an alert's identity. */
#ifndef GPUWATCH_LABELS_H
#define GPUWATCH_LABELS_H

#include <stddef.h>

typedef struct label {
    char *name, *value;
} label;
typedef struct labels {
    label *v;
    int n, cap;
} labels;

/* Sets (or replaces) name=value, keeping the set sorted. An empty value removes the label.
 * Returns 0, or -1 when out of memory (l is as it was). */
int labels_set(labels *l, const char *name, const char *value);
/* Appends without sorting (annotations keep their file order). Returns 0, or -1 when out of memory
 * (l is as it was). */
int labels_append(labels *l, const char *name, const char *value);
const char *labels_get(const labels *l, const char *name);
/* dst (uninitialised) becomes a copy of src. Returns 0, or -1 when out of memory (dst is empty). */
int labels_copy(labels *dst, const labels *src);
void labels_free(labels *l);
/* 1 when both hold the same pairs. */
int labels_equal(const labels *a, const labels *b);
/* {a="1", b="2"} into buf (truncated); returns buf. */
char *labels_format(const labels *l, char *buf, size_t n);

#endif
