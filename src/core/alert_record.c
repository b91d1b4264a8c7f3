/* alert_record.c - copying and freeing alert records (see alert_record.h). */
#include "alert_record.h"
#include <stdlib.h>
#include <string.h>

static void record_free(alert_record *a)
{
    free(a->rule);
    free(a->labels);
    free(a->annotations);
    free(a->name);
    free(a->severity);
    free(a->summary);
}

void alert_records_free(alert_records *r)
{
    for (int i = 0; r->alerts && i < r->nalerts; i++)
        record_free(&r->alerts[i]);
    free(r->alerts);
    free(r->findings);
    memset(r, 0, sizeof *r);
}

/* A copy of s ("" for NULL); NULL when out of memory. */
static char *dup_text(const char *s)
{
    return strdup(s ? s : "");
}

int alert_records_copy(alert_records *dst, const alert_records *src)
{
    memset(dst, 0, sizeof *dst);
    dst->alerts = calloc((size_t)src->nalerts + 1, sizeof *dst->alerts);
    dst->findings = calloc((size_t)src->nfindings + 1, sizeof *dst->findings);
    if (!dst->alerts || !dst->findings) {
        alert_records_free(dst);
        return -1;
    }
    for (int i = 0; i < src->nalerts; i++) {
        alert_record *d = &dst->alerts[i];
        *d = src->alerts[i];
        d->rule = dup_text(src->alerts[i].rule);
        d->labels = dup_text(src->alerts[i].labels);
        d->annotations = dup_text(src->alerts[i].annotations);
        d->name = dup_text(src->alerts[i].name);
        d->severity = dup_text(src->alerts[i].severity);
        d->summary = dup_text(src->alerts[i].summary);
        dst->nalerts++;
        if (!d->rule || !d->labels || !d->annotations || !d->name || !d->severity || !d->summary) {
            alert_records_free(dst);
            return -1;
        }
    }
    if (src->nfindings)
        memcpy(dst->findings, src->findings, (size_t)src->nfindings * sizeof *dst->findings);
    dst->nfindings = src->nfindings;
    return 0;
}
