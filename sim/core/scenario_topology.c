/* scenario_topology.c - parses `topology:` (NUMA CPUs, PCIe switches, NVLink groups) and fills
 * in what it leaves out from the GPU count: two NUMA nodes, two GPUs per PCIe switch, NVSwitch
 * all-to-all NVLink between the GPUs that have NVLink (an HGX board). */
#include "scenario_internal.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* NUMA node of GPU i: its entry's numa_node, else the first half of the GPUs on 0, the rest on 1. */
static int default_numa(const scenario *sc, int i)
{
    int given = sc->gpus[i].spec->numa_node;
    if (given >= 0)
        return given;
    return sc->ngpus > 1 ? i * 2 / sc->ngpus : 0;
}

/* Parses a CPU list such as "0-31,64-95" into set. 0, or -1 with the error at n. */
static int parse_cpulist(gw_doc *d, const yaml_node_t *n, uint64_t *set)
{
    const char *s = doc_text(n);
    if (!s || !*s)
        return doc_error(d, n, "expected a CPU list such as \"0-31,64-95\"");
    const char *p = s;
    while (*p) {
        char *end;
        long a = strtol(p, &end, 10), b;
        if (end == p || a < 0)
            return doc_error(d, n, "expected a CPU list such as \"0-31,64-95\", got '%s'", s);
        b = a;
        p = end;
        if (*p == '-') {
            b = strtol(p + 1, &end, 10);
            if (end == p + 1 || b < a)
                return doc_error(d, n, "expected a CPU list such as \"0-31,64-95\", got '%s'", s);
            p = end;
        }
        if (b >= SIM_MAX_CPUS)
            return doc_error(d, n, "CPU %ld is beyond the %d gpusim models", b, SIM_MAX_CPUS);
        for (long c = a; c <= b; c++)
            set[c / 64] |= 1ULL << (c % 64);
        if (*p == ',')
            p++;
        else if (*p)
            return doc_error(d, n, "expected a CPU list such as \"0-31,64-95\", got '%s'", s);
    }
    return 0;
}

static int parse_numa_cpus(gw_doc *d, const yaml_node_t *n, scenario *sc)
{
    if (!doc_is_map(n))
        return doc_error(d, n, "expected a mapping of NUMA nodes to CPU lists, e.g. {0: \"0-31\", 1: \"32-63\"}");
    int have[SIM_MAX_NUMA] = {0};
    for (int i = 0; i < doc_map_len(n); i++) {
        long node;
        if (doc_int(d, doc_map_key(d, n, i), NULL, 0, SIM_MAX_NUMA - 1, &node))
            return -1;
        if (have[node])
            return doc_error(d, doc_map_key(d, n, i), "NUMA node %ld given twice", node);
        have[node] = 1;
        if (parse_cpulist(d, doc_map_value(d, n, i), sc->topo.numa_cpus[node]))
            return -1;
    }
    for (int g = 0; g < sc->ngpus; g++)
        if (!have[sc->topo.numa[g]])
            return doc_error(d, n, "no CPUs for NUMA node %d (gpu %d is on it)", sc->topo.numa[g], g);
    sc->topo.numa_cpus_given = 1;
    return 0;
}

/* A list of GPU groups ([[0, 1], [2, 3]]) into group[gpu] (-1 for GPUs in no group). */
static int parse_groups(gw_doc *d, const yaml_node_t *n, const scenario *sc, const char *what, int *group)
{
    if (!doc_is_seq(n))
        return doc_error(d, n, "expected a list of GPU lists for %s, e.g. [[0, 1], [2, 3]]", what);
    for (int i = 0; i < doc_seq_len(n); i++) {
        yaml_node_t *grp = doc_seq_at(d, n, i);
        if (!doc_is_seq(grp) || doc_seq_len(grp) == 0)
            return doc_error(d, grp, "expected a list of GPU indices");
        for (int k = 0; k < doc_seq_len(grp); k++) {
            yaml_node_t *e = doc_seq_at(d, grp, k);
            long g;
            if (doc_int(d, e, NULL, 0, SIM_MAX_GPUS - 1, &g))
                return -1;
            if (g >= sc->ngpus)
                return doc_error(d, e, "no gpu %ld (the scenario has %d GPUs)", g, sc->ngpus);
            if (group[g] >= 0)
                return doc_error(d, e, "gpu %ld is in two %s groups", g, what);
            group[g] = i;
        }
    }
    return 0;
}

static int parse_pcie_switches(gw_doc *d, const yaml_node_t *n, scenario *sc)
{
    int *sw = sc->topo.pcie_switch;
    for (int g = 0; g < sc->ngpus; g++)
        sw[g] = -1;
    if (parse_groups(d, n, sc, "pcie_switches", sw))
        return -1;
    for (int a = 0; a < sc->ngpus; a++)
        for (int b = a + 1; b < sc->ngpus; b++)
            if (sw[a] >= 0 && sw[a] == sw[b] && sc->topo.numa[a] != sc->topo.numa[b])
                return doc_error(d, doc_seq_at(d, n, sw[a]), "gpus %d and %d share a PCIe switch but not a NUMA node",
                                 a, b);
    return 0;
}

static int parse_nvlink(gw_doc *d, const yaml_node_t *n, scenario *sc)
{
    const char *s = doc_text(n);
    int *nv = sc->topo.nvlink;
    for (int g = 0; g < sc->ngpus; g++)
        nv[g] = -1;
    sc->topo.nvswitch = 0;
    if (s && strcmp(s, "none") == 0)
        return 0;
    if (s && strcmp(s, "all") == 0) {
        int n_nvlink = 0;
        for (int g = 0; g < sc->ngpus; g++)
            n_nvlink += sc->gpus[g].spec->p.nvlinks > 0;
        if (n_nvlink < 2)
            return doc_error(d, n, "nvlink: all needs two GPUs with NVLink (the scenario has %d)", n_nvlink);
        for (int g = 0; g < sc->ngpus; g++)
            nv[g] = sc->gpus[g].spec->p.nvlinks > 0 ? 0 : -1;
        sc->topo.nvswitch = 1;
        return 0;
    }
    if (s)
        return doc_error(d, n, "expected 'all', 'none' or a list of GPU lists for nvlink, got '%s'", s);
    if (parse_groups(d, n, sc, "nvlink", nv))
        return -1;
    for (int g = 0; g < sc->ngpus; g++)
        if (nv[g] >= 0 && sc->gpus[g].spec->p.nvlinks <= 0)
            return doc_error(d, doc_seq_at(d, n, nv[g]), "gpu %d (%s) has no NVLink", g, sc->gpus[g].spec->p.id);
    return 0;
}

/* Two GPUs per PCIe switch, in index order, never across NUMA nodes. */
static void default_switches(scenario *sc)
{
    int next = 0, alone = 0; /* alone: the last switch has one GPU so far */
    for (int g = 0; g < sc->ngpus; g++) {
        if (alone && sc->topo.numa[g] == sc->topo.numa[g - 1]) {
            sc->topo.pcie_switch[g] = next - 1;
            alone = 0;
        } else {
            sc->topo.pcie_switch[g] = next++;
            alone = 1;
        }
    }
}

/* NVSwitch all-to-all between the GPUs whose preset has NVLink (when there are two or more). */
static void default_nvlink(scenario *sc)
{
    int n = 0;
    for (int g = 0; g < sc->ngpus; g++)
        n += sc->gpus[g].spec->p.nvlinks > 0;
    for (int g = 0; g < sc->ngpus; g++)
        sc->topo.nvlink[g] = n >= 2 && sc->gpus[g].spec->p.nvlinks > 0 ? 0 : -1;
    sc->topo.nvswitch = n >= 2;
}

int parse_topology(gw_doc *d, const yaml_node_t *n, scenario *sc)
{
    static const char *const keys[] = {"numa_cpus", "pcie_switches", "nvlink", NULL};
    yaml_node_t *v;
    for (int g = 0; g < sc->ngpus; g++)
        sc->topo.numa[g] = default_numa(sc, g);
    default_switches(sc);
    default_nvlink(sc);
    if (!n)
        return 0;
    if (doc_check_map(d, n, "topology", keys))
        return -1;
    if ((v = doc_get(d, n, "numa_cpus")) && parse_numa_cpus(d, v, sc))
        return -1;
    if ((v = doc_get(d, n, "pcie_switches")) && parse_pcie_switches(d, v, sc))
        return -1;
    if ((v = doc_get(d, n, "nvlink")) && parse_nvlink(d, v, sc))
        return -1;
    return 0;
}
