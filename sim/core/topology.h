/* topology.h - a scenario's host topology as NVML reports it: the CPUs of each NUMA node, the
 * PCIe level between two GPUs, NVLink links and their far ends, peer-to-peer status. */
#ifndef GPUSIM_TOPOLOGY_H
#define GPUSIM_TOPOLOGY_H

#include "scenario.h"

/* The CPUs of a NUMA node as a bit mask, 64 CPUs per word (words beyond SIM_MAX_CPUS are 0). */
void topo_node_cpus(const scenario *sc, int node, unsigned long *set, unsigned words);
/* 1 when the CPU belongs to the node. */
int topo_cpu_in_node(const scenario *sc, int node, unsigned cpu);
/* nvmlGpuTopologyLevel_t between two different GPUs: SINGLE (one PCIe switch), NODE (one NUMA
 * node), SYSTEM (across nodes). */
int topo_level(const scenario *sc, int a, int b);

/* The far end of an NVLink link. */
typedef struct topo_link {
    int active; /* 0: the link is not connected */
    int is_switch;
    int peer; /* GPU index (is_switch 0) or NVSwitch number */
} topo_link;
/* Link `link` of a GPU: 0, or -1 when the GPU has no such link. */
int topo_link_at(const scenario *sc, int gpu, unsigned link, topo_link *out);
/* PCI bus of NVSwitch s (synthetic: 0xF0 + s). */
unsigned topo_switch_bus(int s);
/* nvmlGpuP2PStatus_t for a capability index between two different GPUs; -1 for a bad index. */
int topo_p2p(const scenario *sc, int a, int b, unsigned caps);

#endif
