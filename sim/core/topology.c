/* topology.c - NVML's view of the scenario's host topology (sc->topo, filled by
 * scenario_topology.c): NUMA CPU sets (given, or the host's CPUs split evenly between the
 * nodes), PCIe levels, NVLink links and peer-to-peer capabilities. */
#include "topology.h"
#include "nvml_abi.h"
#include <string.h>
#include <unistd.h>

#define BRAND_GEFORCE 5

static int topo_nodes(const scenario *sc)
{
    int n = 1;
    for (int g = 0; g < sc->ngpus; g++)
        if (sc->topo.numa[g] + 1 > n)
            n = sc->topo.numa[g] + 1;
    return n;
}

/* The default split: node i gets CPUs [i * ncpu / nodes, (i + 1) * ncpu / nodes). */
static void split_range(const scenario *sc, int node, long *first, long *last)
{
    long ncpu = sysconf(_SC_NPROCESSORS_CONF), nodes = topo_nodes(sc);
    if (ncpu < 1)
        ncpu = 1;
    if (ncpu > SIM_MAX_CPUS)
        ncpu = SIM_MAX_CPUS;
    *first = node * ncpu / nodes;
    *last = (node + 1) * ncpu / nodes;
}

int topo_cpu_in_node(const scenario *sc, int node, unsigned cpu)
{
    if (node < 0 || node >= SIM_MAX_NUMA || cpu >= SIM_MAX_CPUS)
        return 0;
    if (sc->topo.numa_cpus_given)
        return (sc->topo.numa_cpus[node][cpu / 64] >> (cpu % 64)) & 1;
    long first, last;
    split_range(sc, node, &first, &last);
    return (long)cpu >= first && (long)cpu < last;
}

void topo_node_cpus(const scenario *sc, int node, unsigned long *set, unsigned words)
{
    long first = 0, last = 0;
    memset(set, 0, words * sizeof *set);
    if (node < 0 || node >= SIM_MAX_NUMA)
        return;
    if (sc->topo.numa_cpus_given) {
        for (unsigned w = 0; w < words && w < SIM_CPU_WORDS; w++)
            set[w] = (unsigned long)sc->topo.numa_cpus[node][w];
        return;
    }
    split_range(sc, node, &first, &last);
    for (long cpu = first; cpu < last && (unsigned long)cpu / 64 < words; cpu++)
        set[cpu / 64] |= 1UL << (cpu % 64);
}

int topo_level(const scenario *sc, int a, int b)
{
    const sim_topology *t = &sc->topo;
    if (t->pcie_switch[a] >= 0 && t->pcie_switch[a] == t->pcie_switch[b])
        return NVML_TOPOLOGY_SINGLE;
    return t->numa[a] == t->numa[b] ? NVML_TOPOLOGY_NODE : NVML_TOPOLOGY_SYSTEM;
}

static int topo_nvlinked(const scenario *sc, int a, int b)
{
    return a != b && sc->topo.nvlink[a] >= 0 && sc->topo.nvlink[a] == sc->topo.nvlink[b];
}

unsigned topo_switch_bus(int s)
{
    return 0xF0u + (unsigned)s;
}

int topo_link_at(const scenario *sc, int gpu, unsigned link, topo_link *out)
{
    int links = sc->gpus[gpu].spec->p.nvlinks;
    if (link >= (unsigned)links)
        return -1;
    *out = (topo_link){0};
    if (sc->topo.nvlink[gpu] < 0)
        return 0;
    if (sc->topo.nvswitch) {
        /* HGX: 18 links over 4 NVSwitches (Hopper), 12 over 6 (Ampere) */
        int switches = links >= 18 ? 4 : 6;
        *out = (topo_link){.active = 1, .is_switch = 1, .peer = (int)(link % (unsigned)switches)};
        return 0;
    }
    /* bridges: the links go round the group's other GPUs in index order */
    int peers[SIM_MAX_GPUS], n = 0;
    for (int g = 0; g < sc->ngpus; g++)
        if (topo_nvlinked(sc, gpu, g))
            peers[n++] = g;
    if (n > 0)
        *out = (topo_link){.active = 1, .peer = peers[link % (unsigned)n]};
    return 0;
}

int topo_p2p(const scenario *sc, int a, int b, unsigned caps)
{
    if (caps >= NVML_P2P_CAPS_INDEX_UNKNOWN)
        return -1;
    if (topo_nvlinked(sc, a, b))
        return NVML_P2P_STATUS_OK;
    if (caps == NVML_P2P_CAPS_INDEX_NVLINK)
        return NVML_P2P_STATUS_NOT_SUPPORTED;
    if (sc->gpus[a].spec->p.brand == BRAND_GEFORCE || sc->gpus[b].spec->p.brand == BRAND_GEFORCE)
        return NVML_P2P_STATUS_GPU_NOT_SUPPORTED;
    if (topo_level(sc, a, b) == NVML_TOPOLOGY_SYSTEM)
        return NVML_P2P_STATUS_IOH_TOPOLOGY_NOT_SUPPORTED;
    return caps == NVML_P2P_CAPS_INDEX_ATOMICS ? NVML_P2P_STATUS_NOT_SUPPORTED : NVML_P2P_STATUS_OK;
}
