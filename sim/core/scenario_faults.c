/* scenario_faults.c - parses `events:` (XIDs at given times) and `faults:` (GPU lost windows,
 * injected errors, slow calls, missing symbols). */
#include "scenario_internal.h"
#include "nvml_names.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int gpu_key(ydoc *d, const yaml_node_t *n, const scenario *sc, int *out)
{
    yaml_node_t *v = ymap_get(d, n, "gpu");
    long l;
    if (!v)
        return 0;
    if (yint(d, v, 0, SIM_MAX_GPUS - 1, &l))
        return -1;
    if (l >= sc->ngpus)
        return yerr(d, v, "no gpu %ld (the scenario has %d GPUs)", l, sc->ngpus);
    *out = (int)l;
    return 0;
}

int parse_events(ydoc *d, const yaml_node_t *n, scenario *sc)
{
    static const char *const keys[] = {"at", "gpu", "xid", NULL};
    int ne = yseq_len(n);
    if (!yis_seq(n))
        return yerr(d, n, "expected a list of events");
    sc->events = calloc((size_t)ne + 1, sizeof *sc->events);
    if (!sc->events)
        return yerr(d, n, "out of memory");
    for (int i = 0; i < ne; i++) {
        yaml_node_t *e = yseq_at(d, n, i), *v;
        sim_event *ev = &sc->events[i];
        long l;
        if (ymap_check(d, e, "event", keys))
            return -1;
        if (!(v = ymap_get(d, e, "at")))
            return yerr(d, e, "missing key 'at' (the event's time)");
        if (yduration(d, v, &ev->at))
            return -1;
        if (!(v = ymap_get(d, e, "xid")))
            return yerr(d, e, "missing key 'xid'");
        if (yint(d, v, 1, 100000, &l))
            return -1;
        ev->xid = (unsigned)l;
        if (!ymap_get(d, e, "gpu"))
            return yerr(d, e, "missing key 'gpu'");
        if (gpu_key(d, e, sc, &ev->gpu))
            return -1;
        sc->nevents = i + 1;
    }
    return 0;
}

static int parse_window(ydoc *d, const yaml_node_t *n, sim_fault *f)
{
    yaml_node_t *v;
    if ((v = ymap_get(d, n, "from")) && yduration(d, v, &f->from))
        return -1;
    if ((v = ymap_get(d, n, "to")) && yduration(d, v, &f->to))
        return -1;
    if (f->to <= f->from)
        return yerr(d, ymap_get(d, n, "to"), "'to' must be after 'from'");
    return 0;
}

static int parse_lost(ydoc *d, const yaml_node_t *n, const yaml_node_t *lost, sim_fault *f)
{
    static const char *const keys[] = {"from", "to", NULL};
    f->kind = FAULT_LOST;
    if (f->gpu < 0)
        return yerr(d, n, "a 'lost' fault needs 'gpu'");
    if (ymap_check(d, lost, "lost", keys))
        return -1;
    return parse_window(d, lost, f);
}

static int parse_function(ydoc *d, const yaml_node_t *n, sim_fault *f)
{
    yaml_node_t *v = ymap_get(d, n, "function");
    if (!v)
        return yerr(d, n, "missing key 'function' (the NVML function to affect)");
    if (ystring(d, v, f->function, sizeof f->function))
        return -1;
    if (!sim_nvml_function_known(f->function))
        return yerr(d, v, "unknown function '%s' (expected an NVML function gpusim exports)", f->function);
    return 0;
}

static int parse_error(ydoc *d, const yaml_node_t *n, sim_fault *f)
{
    yaml_node_t *v = ymap_get(d, n, "error");
    const char *s = yscalar(v);
    long l;
    f->kind = FAULT_ERROR;
    f->error = s ? sim_nvml_error_code(s) : -1;
    if (f->error < 0 && s && s[0] >= '0' && s[0] <= '9') {
        if (yint(d, v, 1, 999, &l))
            return -1;
        f->error = (int)l;
    }
    if (f->error <= 0)
        return yerr(d, v, "expected an NVML error name (e.g. NVML_ERROR_UNKNOWN) or code, got '%s'", s ? s : "");
    if ((v = ymap_get(d, n, "every"))) {
        if (yint(d, v, 1, 1000000, &l))
            return -1;
        f->every = (unsigned)l;
    }
    return 0;
}

static int parse_fault(ydoc *d, const yaml_node_t *n, sim_fault *f, const scenario *sc)
{
    static const char *const keys[] = {"gpu",  "lost", "function", "error",          "every",
                                       "from", "to",   "delay_ms", "missing_symbol", NULL};
    yaml_node_t *v;
    long l;
    f->gpu = -1;
    f->to = INFINITY;
    if (ymap_check(d, n, "fault", keys) || gpu_key(d, n, sc, &f->gpu))
        return -1;
    if ((v = ymap_get(d, n, "lost")))
        return parse_lost(d, n, v, f);
    if ((v = ymap_get(d, n, "missing_symbol"))) {
        f->kind = FAULT_MISSING;
        if (ystring(d, v, f->function, sizeof f->function))
            return -1;
        if (!sim_nvml_function_known(f->function))
            return yerr(d, v, "unknown function '%s' (expected an NVML function gpusim exports)", f->function);
        return 0;
    }
    if (parse_function(d, n, f) || parse_window(d, n, f))
        return -1;
    if (ymap_get(d, n, "error"))
        return parse_error(d, n, f);
    if ((v = ymap_get(d, n, "delay_ms"))) {
        f->kind = FAULT_DELAY;
        if (yint(d, v, 0, 600000, &l))
            return -1;
        f->delay_ms = (unsigned)l;
        return 0;
    }
    return yerr(d, n, "expected a fault: lost, error, delay_ms or missing_symbol");
}

int parse_faults(ydoc *d, const yaml_node_t *n, scenario *sc)
{
    int nf = yseq_len(n);
    if (!yis_seq(n))
        return yerr(d, n, "expected a list of faults");
    sc->faults = calloc((size_t)nf + 1, sizeof *sc->faults);
    if (!sc->faults)
        return yerr(d, n, "out of memory");
    for (int i = 0; i < nf; i++) {
        if (parse_fault(d, yseq_at(d, n, i), &sc->faults[i], sc))
            return -1;
        sc->nfaults = i + 1;
    }
    return 0;
}
