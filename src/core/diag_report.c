/* diag_report.c - the report container and the helpers detectors fill findings with:
 * evidence, advice, summary, GPUs, pids; sorting worst first; RFC 3339 times. */
#include "diag_report.h"
#include "util.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void diag_report_init(diag_report *r)
{
    memset(r, 0, sizeof *r);
}

void diag_report_free(diag_report *r)
{
    free(r->f);
    memset(r, 0, sizeof *r);
}

void diag_report_clear(diag_report *r)
{
    r->n = 0;
    r->oom = 0;
    r->from_us = 0;
    r->to_us = 0;
}

diag_finding *diag_report_add(diag_report *r, const char *detector, diag_severity sev)
{
    if (r->n == r->cap) {
        int cap = r->cap ? r->cap * 2 : 8;
        diag_finding *nf = realloc(r->f, (size_t)cap * sizeof *nf);
        if (!nf) {
            r->oom = 1;
            return NULL;
        }
        r->f = nf;
        r->cap = cap;
    }
    diag_finding *f = &r->f[r->n++];
    memset(f, 0, sizeof *f);
    f->detector = detector;
    f->severity = sev;
    return f;
}

void diag_report_remove(diag_report *r, int i)
{
    if (i < 0 || i >= r->n)
        return;
    memmove(&r->f[i], &r->f[i + 1], (size_t)(r->n - i - 1) * sizeof *r->f);
    r->n--;
}

static int worse_first(const void *a, const void *b)
{
    const diag_finding *x = a, *y = b;
    if (x->severity != y->severity)
        return x->severity > y->severity ? -1 : 1;
    if (x->score != y->score)
        return x->score > y->score ? -1 : 1;
    int gx = x->n_gpus ? x->gpus[0] : -1, gy = y->n_gpus ? y->gpus[0] : -1;
    if (gx != gy)
        return gx < gy ? -1 : 1;
    return strcmp(x->detector, y->detector);
}

void diag_report_sort(diag_report *r)
{
    if (r->n > 1)
        qsort(r->f, (size_t)r->n, sizeof *r->f, worse_first);
}

static diag_evidence *evidence_slot(diag_finding *f, const char *key)
{
    for (int i = 0; i < f->n_evidence; i++)
        if (strcmp(f->evidence[i].key, key) == 0)
            return &f->evidence[i];
    if (f->n_evidence == DIAG_MAX_EVIDENCE)
        return NULL;
    diag_evidence *e = &f->evidence[f->n_evidence++];
    memset(e, 0, sizeof *e);
    gw_strlcpy(e->key, key, sizeof e->key);
    return e;
}

void diag_finding_num(diag_finding *f, const char *key, double v, const char *unit)
{
    diag_evidence *e = evidence_slot(f, key);
    if (!e)
        return;
    e->is_str = 0;
    e->num = v;
    gw_strlcpy(e->unit, unit ? unit : "", sizeof e->unit);
}

void diag_finding_str(diag_finding *f, const char *key, const char *fmt, ...)
{
    diag_evidence *e = evidence_slot(f, key);
    if (!e)
        return;
    e->is_str = 1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->str, sizeof e->str, fmt, ap);
    va_end(ap);
}

void diag_finding_advice(diag_finding *f, const char *fmt, ...)
{
    if (f->n_advice == DIAG_MAX_ADVICE)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->advice[f->n_advice++], sizeof f->advice[0], fmt, ap);
    va_end(ap);
}

void diag_finding_summary(diag_finding *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->summary, sizeof f->summary, fmt, ap);
    va_end(ap);
}

void diag_finding_gpu(diag_finding *f, int gpu)
{
    for (int i = 0; i < f->n_gpus; i++)
        if (f->gpus[i] == gpu)
            return;
    if (f->n_gpus < DIAG_MAX_FINDING_GPUS)
        f->gpus[f->n_gpus++] = gpu;
}

void diag_finding_pid(diag_finding *f, unsigned pid)
{
    for (int i = 0; i < f->n_pids; i++)
        if (f->pids[i] == pid)
            return;
    if (f->n_pids < DIAG_MAX_PIDS)
        f->pids[f->n_pids++] = pid;
}

const diag_evidence *diag_finding_get(const diag_finding *f, const char *key)
{
    for (int i = 0; i < f->n_evidence; i++)
        if (strcmp(f->evidence[i].key, key) == 0)
            return &f->evidence[i];
    return NULL;
}

const char *diag_severity_name(diag_severity s)
{
    switch (s) {
    case DIAG_CRITICAL: return "critical";
    case DIAG_WARNING: return "warning";
    default: return "info";
    }
}

void diag_format_time(uint64_t t_us, char *out, size_t n)
{
    time_t secs = (time_t)(t_us / 1000000u);
    struct tm tm;
    gmtime_r(&secs, &tm);
    char day[32];
    strftime(day, sizeof day, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out, n, "%s.%03uZ", day, (unsigned)(t_us % 1000000u / 1000u));
}
