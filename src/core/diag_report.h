/* diag_report.h - what the diagnosis finds: findings (detector, GPUs, severity, time range,
 * processes, summary, evidence, advice, the signal to chart), the report holding them worst
 * first, and its two renderings: JSON (for the API and tools) and text (for people). */
#ifndef GPUWATCH_DIAG_REPORT_H
#define GPUWATCH_DIAG_REPORT_H

#include <stdint.h>
#include "buf.h"

typedef enum { DIAG_INFO = 0, DIAG_WARNING = 1, DIAG_CRITICAL = 2 } diag_severity;

#define DIAG_MAX_FINDING_GPUS 64
#define DIAG_MAX_PIDS 16
#define DIAG_MAX_EVIDENCE 20
#define DIAG_MAX_ADVICE 6
#define DIAG_CHART_POINTS 60

/* A named number (unit may be empty) or, when is_str, a string. */
typedef struct diag_evidence {
    char key[32];
    char unit[12];
    int is_str;
    double num;
    char str[128];
} diag_evidence;

/* The signal behind a finding, reduced to at most DIAG_CHART_POINTS bucket means. */
typedef struct diag_chart {
    char metric[48]; /* catalog field name, or a derived name such as "memory.used (pid 42)" */
    char unit[12];
    int gpu;
    uint64_t from_us, to_us;
    int n;
    float v[DIAG_CHART_POINTS];
    float lo, hi; /* scale: 0..100 for percentages, else the data's range */
} diag_chart;

typedef struct diag_finding {
    const char *detector; /* one of the detector ids, e.g. "input_stall" */
    diag_severity severity;
    double score; /* orders findings of one severity: larger is worse */
    int n_gpus;
    int gpus[DIAG_MAX_FINDING_GPUS];
    uint64_t from_us, to_us;
    int n_pids;
    unsigned pids[DIAG_MAX_PIDS];
    char summary[320];
    int n_evidence;
    diag_evidence evidence[DIAG_MAX_EVIDENCE];
    int n_advice;
    char advice[DIAG_MAX_ADVICE][220];
    diag_chart chart; /* chart.n == 0: nothing to chart */
} diag_finding;

typedef struct diag_report {
    diag_finding *f; /* worst first after diag_run */
    int n;
    int cap;
    uint64_t from_us, to_us; /* the window diagnosed */
    int oom;
} diag_report;

void diag_report_init(diag_report *r);
void diag_report_free(diag_report *r);
void diag_report_clear(diag_report *r);

/* A new zeroed finding at the end of the report (NULL when out of memory). */
diag_finding *diag_report_add(diag_report *r, const char *detector, diag_severity sev);
void diag_report_remove(diag_report *r, int i);
/* Worst first: severity, then score, then the first GPU, then the detector id. */
void diag_report_sort(diag_report *r);

void diag_finding_num(diag_finding *f, const char *key, double v, const char *unit);
void diag_finding_str(diag_finding *f, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void diag_finding_advice(diag_finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void diag_finding_summary(diag_finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void diag_finding_gpu(diag_finding *f, int gpu);
void diag_finding_pid(diag_finding *f, unsigned pid);
const diag_evidence *diag_finding_get(const diag_finding *f, const char *key);

const char *diag_severity_name(diag_severity s);

/* "2024-05-01T12:00:00.000Z" (UTC, RFC 3339). */
void diag_format_time(uint64_t t_us, char *out, size_t n);

/* The report as JSON: {"findings": [...]} (docs/diagnosis.md). Returns a malloc'd string (free
 * it with free()), NULL when out of memory. */
char *diag_report_json(const diag_report *r, int pretty);
/* (Read back by the client layer: api_decode_findings, agent_api.h.) */

enum {
    DIAG_TEXT_ASCII = 1 << 0,   /* ASCII chart characters instead of Unicode blocks */
    DIAG_TEXT_NO_CHART = 1 << 1 /* leave the charts out */
};
/* The report for people: grouped by GPU, worst first, with time range, evidence, a small chart
 * of the signal and the advice. Appends to out. */
void diag_report_text(const diag_report *r, gw_buf *out, unsigned flags);

#endif
