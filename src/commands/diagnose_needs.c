/* diagnose_needs.c - what each detector needs of an engine's series (diagnose --prometheus), and
 * the report's lines of what a fleet lacked: the missing series and the detectors they kept from
 * running (see diagnose_needs.h). */
#include "diagnose_needs.h"
#include <stdio.h>
#include <string.h>

/* The series a detector needs (all of need, one of any), or why it never runs on an engine's data. */
typedef struct need {
    const char *detector;
    metric_id need[3];
    metric_id any[3];
    int procs;         /* the process series (gpuwatch's own) */
    const char *never; /* runs on no engine's data: why */
} need;

#define NONE M_STR_END /* an empty slot (no detector reads a string) */

static const need needs[] = {
    {"input_stall", {M_UTIL_GPU, NONE, NONE}, {NONE, NONE, NONE}, 0, NULL},
    {"launch_bound", {M_UTIL_GPU, M_GPM_SM_ACTIVE, M_POWER_DRAW}, {NONE, NONE, NONE}, 0, NULL},
    {"low_util", {M_UTIL_GPU, NONE, NONE}, {NONE, NONE, NONE}, 0, NULL},
    {"power_cap", {M_POWER_DRAW, M_CER_ACTIVE, M_POWER_ENFORCED_LIMIT}, {NONE, NONE, NONE}, 0, NULL},
    {"thermal", {M_TEMP_GPU, NONE, NONE}, {NONE, NONE, NONE}, 0, NULL},
    {"memory_leak", {M_MEM_USED, NONE, NONE}, {NONE, NONE, NONE}, 1, NULL},
    {"memory_full", {M_MEM_USED, NONE, NONE}, {M_MEM_TOTAL, M_MEM_FREE, NONE}, 0, NULL},
    {"imbalance", {M_UTIL_GPU, NONE, NONE}, {NONE, NONE, NONE}, 0, NULL},
    {"idle_holding", {M_UTIL_GPU, NONE, NONE}, {NONE, NONE, NONE}, 1, NULL},
    {"pcie_bound", {M_GPM_SM_ACTIVE, NONE, NONE}, {M_PCIE_RX, M_GPM_PCIE_RX, NONE}, 0, NULL},
    {"pcie_degraded", {M_PCIE_GEN_CUR, M_PCIE_WIDTH_CUR, NONE}, {NONE, NONE, NONE}, 0, NULL},
    {"clocks_low", {M_CLOCK_SM, M_CER_ACTIVE, M_CLOCK_MAX_SM}, {NONE, NONE, NONE}, 0, NULL},
    {"collective_hang", {M_UTIL_GPU, M_POWER_DRAW, NONE}, {NONE, NONE, NONE}, 1, NULL},
    {"row_remap", {NONE, NONE, NONE}, {M_REMAP_COR, M_REMAP_UNC, M_REMAP_FAILURE}, 0, NULL},
    {"straggler", {M_UTIL_GPU, NONE, NONE}, {M_CLOCK_SM, M_POWER_DRAW, M_CER_ACTIVE}, 0, NULL},
    {"hw_health", {NONE, NONE, NONE}, {NONE, NONE, NONE}, 0, "XID codes come as per-code counters"},
    {"app_fault", {NONE, NONE, NONE}, {NONE, NONE, NONE}, 0, "XID codes come as per-code counters"},
    {"nvlink_errors", {NONE, NONE, NONE}, {NONE, NONE, NONE}, 0, "NVLink series are per link"},
    {"alloc_fragmentation", {NONE, NONE, NONE}, {NONE, NONE, NONE}, 0, "it reads a job's own output"},
};

/* A metric's name in a naming, or its field with why it has none there. */
static void metric_name(metric_id id, int native, char *out, size_t n)
{
    const metric_def *d = &metric_catalog[id];
    const char *name = native ? d->prom : d->dcgm;
    if (name)
        snprintf(out, n, "%s", name);
    else
        snprintf(out, n, "%s (not a %s series)", d->field, native ? "gpuwatch" : "dcgm-exporter");
}

static void append(char *list, size_t n, const char *item)
{
    if (strstr(list, item))
        return;
    size_t len = strlen(list);
    snprintf(list + len, n - len, "%s%s", len ? "; " : "", item);
}

/* Whether a naming has what d needs; miss filled with the first series it lacks. */
static int can_run(const unsigned char seen[2][M_COUNT], int procs_seen, const need *d, int native, char *miss,
                   size_t n)
{
    for (int k = 0; k < 3; k++)
        if (d->need[k] != NONE && !seen[native][d->need[k]]) {
            metric_name(d->need[k], native, miss, n);
            return 0;
        }
    int any = d->any[0] == NONE;
    for (int k = 0; k < 3 && !any; k++)
        any = d->any[k] != NONE && seen[native][d->any[k]];
    if (!any) {
        metric_name(d->any[0], native, miss, n);
        return 0;
    }
    if (d->procs && (!native || !procs_seen)) {
        snprintf(miss, n, "%s", native ? PROC_MEMORY : PROC_MEMORY " (not a dcgm-exporter series)");
        return 0;
    }
    return 1;
}

void diagnose_note_missing(const unsigned char seen[2][M_COUNT], int procs_seen, const int used[2], diag_fleet *fl)
{
    for (size_t i = 0; i < sizeof needs / sizeof *needs; i++) {
        const need *d = &needs[i];
        if (d->never) {
            char line[160];
            snprintf(line, sizeof line, "%s: %s", d->detector, d->never);
            append(fl->not_run, sizeof fl->not_run, line);
            continue;
        }
        int runs = 0;
        char miss[120] = "";
        for (int native = 0; native < 2; native++) {
            char m[120];
            if (!used[native])
                continue;
            if (can_run(seen, procs_seen, d, native, m, sizeof m))
                runs = 1;
            else {
                append(fl->missing, sizeof fl->missing, m);
                snprintf(miss, sizeof miss, "%s", m);
            }
        }
        if (!runs) {
            char line[200];
            snprintf(line, sizeof line, "%s: needs %s", d->detector, miss);
            append(fl->not_run, sizeof fl->not_run, line);
        }
    }
}
