/* scenario_mig.c - a gpu entry's `mig:` list: the MIG devices of a GPU in MIG mode, as `nvidia-smi
 * -L` and its "MIG devices" table show them (profile, GPU and compute instance ids, memory,
 * multiprocessors), and the check that processes placed on a MIG device (gi, ci) name one. */
#include "scenario_internal.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const MIG_KEYS[] = {"profile", "gi", "ci", "memory_mib", "used_mib", "sm", "uuid", NULL};

/* In MIG mode NVML has no utilization of the whole GPU (nvidia-smi prints [N/A]). */
static void mig_unsupported(sim_gpu_spec *g)
{
    static const metric_id none[] = {M_UTIL_GPU,     M_UTIL_MEMORY, M_UTIL_ENCODER,
                                     M_UTIL_DECODER, M_UTIL_JPEG,   M_UTIL_OFA};
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++)
        mset_add(&g->unsupported, none[i]);
}

/* "3g.40gb": slices, then memory in GB. */
static int profile_ok(const char *s)
{
    unsigned g, gb;
    char tail;
    return sscanf(s, "%ug.%ugb%c", &g, &gb, &tail) == 2 && g >= 1 && g <= 8 && gb >= 1;
}

static int parse_one(gw_doc *d, const yaml_node_t *n, const sim_gpu_spec *g, sim_mig *m)
{
    if (doc_check_map(d, n, "MIG device", MIG_KEYS))
        return -1;
    yaml_node_t *v;
    long l;
    if (!(v = doc_get(d, n, "profile")))
        return doc_error(d, n, "missing key 'profile' (as nvidia-smi -L names it, e.g. 3g.40gb)");
    if (doc_copy(d, v, NULL, m->profile, sizeof m->profile))
        return -1;
    if (!profile_ok(m->profile))
        return doc_error(d, v, "profile: expected SLICESg.GBgb (e.g. 1g.10gb, 3g.40gb), got '%s'", m->profile);
    if (!(v = doc_get(d, n, "gi")))
        return doc_error(d, n, "missing key 'gi' (the GPU instance id)");
    if (doc_int(d, v, NULL, 0, 1000000, &l))
        return -1;
    m->gi = (unsigned)l;
    if ((v = doc_get(d, n, "ci"))) {
        if (doc_int(d, v, NULL, 0, 1000000, &l))
            return -1;
        m->ci = (unsigned)l;
    }
    if (!(v = doc_get(d, n, "memory_mib")))
        return doc_error(d, n, "missing key 'memory_mib' (the MIG device's memory)");
    if (doc_number(d, v, NULL, &m->memory_mib))
        return -1;
    if (!(m->memory_mib >= 1 && m->memory_mib <= g->p.mem_total_mib))
        return doc_error(d, v, "memory_mib: expected 1 to the GPU's %.0f MiB, got %g", g->p.mem_total_mib,
                         m->memory_mib);
    if ((v = doc_get(d, n, "used_mib"))) {
        if (doc_number(d, v, NULL, &m->used_mib))
            return -1;
        if (!(m->used_mib >= 0 && m->used_mib <= m->memory_mib))
            return doc_error(d, v, "used_mib: expected 0 to memory_mib, got %g", m->used_mib);
    }
    if ((v = doc_get(d, n, "sm"))) {
        if (doc_int(d, v, NULL, 1, 1000, &l))
            return -1;
        m->sm_count = (unsigned)l;
    }
    if ((v = doc_get(d, n, "uuid")) && doc_copy(d, v, NULL, m->uuid, sizeof m->uuid))
        return -1;
    return 0;
}

int parse_mig(gw_doc *d, const yaml_node_t *n, sim_gpu_spec *g)
{
    int nm = doc_seq_len(n);
    if (!doc_is_seq(n))
        return doc_error(d, n, "expected a list of MIG devices");
    if (nm == 0)
        return 0;
    if (!(g->p.flags & PRESET_MIG))
        return doc_error(d, n, "mig: the %s has no MIG mode", g->p.name);
    if (nm > SIM_MAX_MIG)
        return doc_error(d, n, "mig: at most %d MIG devices, got %d", SIM_MAX_MIG, nm);
    g->mig = calloc((size_t)nm, sizeof *g->mig);
    if (!g->mig)
        return doc_error(d, n, "out of memory");
    double total = 0;
    for (int i = 0; i < nm; i++) {
        const yaml_node_t *e = doc_seq_at(d, n, i);
        sim_mig *m = &g->mig[i];
        if (parse_one(d, e, g, m))
            return -1;
        g->nmig = i + 1;
        for (int k = 0; k < i; k++)
            if (g->mig[k].gi == m->gi && g->mig[k].ci == m->ci)
                return doc_error(d, e, "mig: two MIG devices with gi %u, ci %u", m->gi, m->ci);
        total += m->memory_mib;
    }
    if (total > g->p.mem_total_mib)
        return doc_error(d, n, "mig: the MIG devices have %.0f MiB, more than the GPU's %.0f", total,
                         g->p.mem_total_mib);
    mig_unsupported(g);
    return 0;
}

int check_proc_instances(gw_doc *d, const yaml_node_t *procs, const sim_gpu_spec *g)
{
    for (int i = 0; i < g->nprocs; i++) {
        const sim_proc *p = &g->procs[i];
        if (p->gi < 0)
            continue;
        int found = 0;
        for (int k = 0; k < g->nmig && !found; k++)
            found = g->mig[k].gi == (unsigned)p->gi && g->mig[k].ci == (unsigned)p->ci;
        if (!found)
            return doc_error(d, procs ? doc_seq_at(d, procs, i) : NULL,
                             "process %d: gi %d, ci %d is none of this GPU's MIG devices (mig:)", i + 1, p->gi, p->ci);
    }
    return 0;
}
