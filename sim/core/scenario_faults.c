/* scenario_faults.c - parses `events:` (XIDs at given times) and `faults:` (GPU lost windows,
 * injected errors, slow calls, missing symbols). */
#include "scenario_internal.h"
#include "nvml_names.h"
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
        if (!doc_get(d, e, "gpu"))
            return doc_error(d, e, "missing key 'gpu'");
        if (gpu_key(d, e, sc, &ev->gpu))
            return -1;
        sc->nevents = i + 1;
    }
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
        return doc_error(d, n, "missing key 'function' (the NVML function to affect)");
    if (doc_copy(d, v, NULL, f->function, sizeof f->function))
        return -1;
    if (!sim_nvml_function_known(f->function))
        return doc_error(d, v, "unknown function '%s' (expected an NVML function gpusim exports)", f->function);
    return 0;
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
    if ((v = doc_get(d, n, "every"))) {
        if (doc_int(d, v, NULL, 1, 1000000, &l))
            return -1;
        f->every = (unsigned)l;
    }
    return 0;
}

static int parse_fault(gw_doc *d, const yaml_node_t *n, sim_fault *f, const scenario *sc)
{
    static const char *const keys[] = {"gpu",  "lost", "function", "error",          "every",
                                       "from", "to",   "delay_ms", "missing_symbol", NULL};
    yaml_node_t *v;
    long l;
    f->gpu = -1;
    f->to = INFINITY;
    if (doc_check_map(d, n, "fault", keys) || gpu_key(d, n, sc, &f->gpu))
        return -1;
    if ((v = doc_get(d, n, "lost")))
        return parse_lost(d, n, v, f);
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
    return doc_error(d, n, "expected a fault: lost, error, delay_ms or missing_symbol");
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
