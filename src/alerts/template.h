/* template.h - annotation templates: {{ $labels.gpu }}, {{ $value }}, {{ printf "%.1f" $value }},
 * {{ humanize $value }}, {{ humanizePercentage $value }}. */
#ifndef GPUWATCH_TEMPLATE_H
#define GPUWATCH_TEMPLATE_H

#include <stddef.h>
#include "labels.h"

typedef struct tmpl_seg {
    enum { TS_TEXT, TS_VALUE, TS_LABEL, TS_PERCENT } kind; /* TS_PERCENT: $value x 100 */
    char *text;                                            /* TS_TEXT: literal; TS_LABEL: label name */
    char *fmt; /* printf format (one conversion), or NULL for the default form */
} tmpl_seg;

typedef struct tmpl {
    tmpl_seg *segs;
    int n;
} tmpl;

/* Compiles src. On error returns -1, a message in err and the byte offset of the bad action; out of
 * memory, the message is "out of memory" and the offset -1. t is empty after an error. */
int tmpl_compile(tmpl *t, const char *src, char *err, size_t errlen, int *err_offset);
/* Expands with an alert's labels and value; returns a malloc'ed string (caller frees), or NULL when
 * out of memory (the caller shows TMPL_OOM_MARKER in its place). */
char *tmpl_expand(const tmpl *t, const labels *l, double value);
#define TMPL_OOM_MARKER "<out of memory>"
void tmpl_free(tmpl *t);

#endif
