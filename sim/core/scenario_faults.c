/* scenario_faults.c - parses `events:` (XIDs at given times) and `faults:` (GPU lost windows,
 * injected errors, slow and hung calls, missing symbols, the driver unloaded, wrong counts). */
#include "scenario_internal.h"
#include "nvml_names.h"
#include "nvml_abi.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int gpu_key(gw_doc *d, const yaml_node_t *n, const scenario *sc, int *out)
{
    yaml_node_t *v = doc_get(d, n, "gpu");
    long l;
    if (!v)
        return 0;
    if (doc_int(d, v, NULL, 0, SIM_MAX_GPUS - 1, &l))
        return -1;
    if (l >= sc->ngpus)
        return doc_error(d, v, "no gpu %ld (the scenario has %d GPUs)", l, sc->ngpus);
    *out = (int)l;
    return 0;
}

static int by_gpu_time(const void *a, const void *b)
{
    const sim_event *x = a, *y = b;
    if (x->gpu != y->gpu)
        return x->gpu < y->gpu ? -1 : 1;
    if (x->at != y->at)
        return x->at < y->at ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

/* The first index of events whose GPU is at least gpu. */
static int gpu_lower_bound(const scenario *sc, int gpu)
{
    int lo = 0, hi = sc->nevents;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (sc->events[mid].gpu < gpu)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int scenario_gpu_events(const scenario *sc, int gpu, const sim_event **first)
{
    int a = gpu_lower_bound(sc, gpu), b = gpu_lower_bound(sc, gpu + 1);
    *first = sc->events ? &sc->events[a] : NULL;
    return b - a;
}

int parse_events(gw_doc *d, const yaml_node_t *n, scenario *sc)
{
    static const char *const keys[] = {"at", "gpu", "xid", NULL};
    int ne = doc_seq_len(n);
    if (!doc_is_seq(n))
        return doc_error(d, n, "expected a list of events");
    sc->events = calloc((size_t)ne + 1, sizeof *sc->events);
    if (!sc->events)
        return doc_error(d, n, "out of memory");
    for (int i = 0; i < ne; i++) {
        yaml_node_t *e = doc_seq_at(d, n, i), *v;
        sim_event *ev = &sc->events[i];
        long l;
        if (doc_check_map(d, e, "event", keys))
            return -1;
        if (!(v = doc_get(d, e, "at")))
            return doc_error(d, e, "missing key 'at' (the event's time)");
        if (doc_duration(d, v, NULL, &ev->at))
            return -1;
        if (!(v = doc_get(d, e, "xid")))
            return doc_error(d, e, "missing key 'xid'");
        if (doc_int(d, v, NULL, 1, 100000, &l))
            return -1;
        ev->xid = (unsigned)l;
        ev->seq = i;
        if (!doc_get(d, e, "gpu"))
            return doc_error(d, e, "missing key 'gpu'");
        if (gpu_key(d, e, sc, &ev->gpu))
            return -1;
        sc->nevents = i + 1;
    }
    /* sorted once: an XID's count and the next event to deliver are then found in O(log n) (a
     * search through the whole list each time made 100 000 events take seconds) */
    qsort(sc->events, (size_t)sc->nevents, sizeof *sc->events, by_gpu_time);
    return 0;
}

static int parse_window(gw_doc *d, const yaml_node_t *n, sim_fault *f)
{
    yaml_node_t *v;
    if ((v = doc_get(d, n, "from")) && doc_duration(d, v, NULL, &f->from))
        return -1;
    if ((v = doc_get(d, n, "to")) && doc_duration(d, v, NULL, &f->to))
        return -1;
    if (f->to <= f->from)
        return doc_error(d, doc_get(d, n, "to"), "'to' must be after 'from'");
    return 0;
}

static int parse_lost(gw_doc *d, const yaml_node_t *n, const yaml_node_t *lost, sim_fault *f)
{
    static const char *const keys[] = {"from", "to", NULL};
    f->kind = FAULT_LOST;
    if (f->gpu < 0)
        return doc_error(d, n, "a 'lost' fault needs 'gpu'");
    if (doc_check_map(d, lost, "lost", keys))
        return -1;
    return parse_window(d, lost, f);
}

static int parse_function(gw_doc *d, const yaml_node_t *n, sim_fault *f)
{
    yaml_node_t *v = doc_get(d, n, "function");
    if (!v)
        return doc_error(d, n, "missing key 'function' (the NVML function to affect, or \"*\" for any)");
    if (doc_copy(d, v, NULL, f->function, sizeof f->function))
        return -1;
    if (strcmp(f->function, "*") != 0 && !sim_nvml_function_known(f->function))
        return doc_error(d, v, "unknown function '%s' (expected an NVML function gpusim exports, or \"*\")",
                         f->function);
    return 0;
}

static int parse_every(gw_doc *d, const yaml_node_t *n, sim_fault *f)
{
    yaml_node_t *v = doc_get(d, n, "every");
    long l;
    if (!v)
        return 0;
    if (doc_int(d, v, NULL, 1, 1000000, &l))
        return -1;
    f->every = (unsigned)l;
    return 0;
}

/* The functions that answer with a count (the two-call protocol): where count faults apply. */
static int counts_something(const char *fn)
{
    static const char *const fns[] = {"nvmlDeviceGetComputeRunningProcesses",
                                      "nvmlDeviceGetComputeRunningProcesses_v2",
                                      "nvmlDeviceGetComputeRunningProcesses_v3",
                                      "nvmlDeviceGetGraphicsRunningProcesses",
                                      "nvmlDeviceGetGraphicsRunningProcesses_v2",
                                      "nvmlDeviceGetGraphicsRunningProcesses_v3",
                                      "nvmlDeviceGetMPSComputeRunningProcesses",
                                      "nvmlDeviceGetMPSComputeRunningProcesses_v2",
                                      "nvmlDeviceGetMPSComputeRunningProcesses_v3",
                                      "nvmlDeviceGetProcessUtilization",
                                      NULL};
    if (!strcmp(fn, "*"))
        return 1;
    for (int i = 0; fns[i]; i++)
        if (!strcmp(fn, fns[i]))
            return 1;
    return 0;
}

/* insufficient_size: N | same | grow (INSUFFICIENT_SIZE with that count), or success_count: N
 * (SUCCESS with a count larger than the buffer). */
static int parse_count(gw_doc *d, const yaml_node_t *n, const yaml_node_t *v, int success, sim_fault *f)
{
    const char *s = doc_text(v);
    long l;
    f->kind = FAULT_COUNT;
    f->error = success ? NVML_SUCCESS : NVML_ERROR_INSUFFICIENT_SIZE;
    if (!counts_something(f->function))
        return doc_error(d, doc_get(d, n, "function"),
                         "'%s' answers no count (count faults apply to the process lists and "
                         "nvmlDeviceGetProcessUtilization)",
                         f->function);
    if (!success && s && !strcmp(s, "same"))
        f->count_mode = COUNT_SAME;
    else if (!success && s && !strcmp(s, "grow"))
        f->count_mode = COUNT_GROW;
    else {
        if (!s || s[0] < '0' || s[0] > '9')
            return doc_error(d, v,
                             success ? "expected a count, got '%s'" : "expected a count, 'same' or 'grow', got '%s'",
                             s ? s : "");
        if (doc_int(d, v, NULL, 0, 4294967295L, &l))
            return -1;
        f->count_mode = COUNT_VALUE;
        f->count_value = (unsigned)l;
    }
    return parse_every(d, n, f);
}

static int parse_error(gw_doc *d, const yaml_node_t *n, sim_fault *f)
{
    yaml_node_t *v = doc_get(d, n, "error");
    const char *s = doc_text(v);
    long l;
    f->kind = FAULT_ERROR;
    f->error = s ? sim_nvml_error_code(s) : -1;
    if (f->error < 0 && s && s[0] >= '0' && s[0] <= '9') {
        if (doc_int(d, v, NULL, 1, 999, &l))
            return -1;
        f->error = (int)l;
    }
    if (f->error <= 0)
        return doc_error(d, v, "expected an NVML error name (e.g. NVML_ERROR_UNKNOWN) or code, got '%s'", s ? s : "");
    return parse_every(d, n, f);
}

static int parse_driver_gone(gw_doc *d, const yaml_node_t *n, const yaml_node_t *w, sim_fault *f)
{
    static const char *const keys[] = {"from", "to", NULL};
    f->kind = FAULT_DRIVER_GONE;
    if (f->gpu >= 0)
        return doc_error(d, doc_get(d, n, "gpu"), "'driver_unloaded' is about every GPU: no 'gpu'");
    if (doc_check_map(d, w, "driver_unloaded", keys))
        return -1;
    return parse_window(d, w, f);
}

static int parse_fault(gw_doc *d, const yaml_node_t *n, sim_fault *f, const scenario *sc)
{
    static const char *const keys[] = {"gpu",
                                       "lost",
                                       "function",
                                       "error",
                                       "every",
                                       "from",
                                       "to",
                                       "delay_ms",
                                       "missing_symbol",
                                       "hang",
                                       "driver_unloaded",
                                       "insufficient_size",
                                       "success_count",
                                       NULL};
    yaml_node_t *v;
    long l;
    f->gpu = -1;
    f->to = INFINITY;
    if (doc_check_map(d, n, "fault", keys) || gpu_key(d, n, sc, &f->gpu))
        return -1;
    if ((v = doc_get(d, n, "lost")))
        return parse_lost(d, n, v, f);
    if ((v = doc_get(d, n, "driver_unloaded")))
        return parse_driver_gone(d, n, v, f);
    if ((v = doc_get(d, n, "missing_symbol"))) {
        f->kind = FAULT_MISSING;
        if (doc_copy(d, v, NULL, f->function, sizeof f->function))
            return -1;
        if (!sim_nvml_function_known(f->function))
            return doc_error(d, v, "unknown function '%s' (expected an NVML function gpusim exports)", f->function);
        return 0;
    }
    if (parse_function(d, n, f) || parse_window(d, n, f))
        return -1;
    if (doc_get(d, n, "error"))
        return parse_error(d, n, f);
    if ((v = doc_get(d, n, "delay_ms"))) {
        f->kind = FAULT_DELAY;
        if (doc_int(d, v, NULL, 0, 600000, &l))
            return -1;
        f->delay_ms = (unsigned)l;
        return 0;
    }
    if ((v = doc_get(d, n, "hang"))) {
        f->kind = FAULT_HANG;
        if (strcmp(doc_text(v) ? doc_text(v) : "", "true") != 0)
            return doc_error(d, v, "expected 'hang: true'");
        return 0;
    }
    if ((v = doc_get(d, n, "insufficient_size")))
        return parse_count(d, n, v, 0, f);
    if ((v = doc_get(d, n, "success_count")))
        return parse_count(d, n, v, 1, f);
    return doc_error(d, n,
                     "expected a fault: lost, error, delay_ms, hang, missing_symbol, driver_unloaded, "
                     "insufficient_size or success_count");
}

int parse_faults(gw_doc *d, const yaml_node_t *n, scenario *sc)
{
    int nf = doc_seq_len(n);
    if (!doc_is_seq(n))
        return doc_error(d, n, "expected a list of faults");
    sc->faults = calloc((size_t)nf + 1, sizeof *sc->faults);
    if (!sc->faults)
        return doc_error(d, n, "out of memory");
    for (int i = 0; i < nf; i++) {
        if (parse_fault(d, doc_seq_at(d, n, i), &sc->faults[i], sc))
            return -1;
        sc->nfaults = i + 1;
    }
    return 0;
}
