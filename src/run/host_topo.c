/* host_topo.c - the job's CPU and memory binding, planned with hwloc (host_topo.h). */
#include "host_topo.h"
#include <hwloc.h>
#include <hwloc/glibc-sched.h>
#include <linux/mempolicy.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The CPUs near a GPU: NVML's affinity, else the cpuset of the GPU's PCI device's parent in hwloc. */
static void gpu_cpus(hwloc_topology_t topo, const gpu_topology *t, const char *bus_id, hwloc_bitmap_t out)
{
    hwloc_bitmap_zero(out);
    if (t && t->has_cpus) {
        for (int c = 0; c < GW_TOPO_MAX_CPUS; c++)
            if (t->cpus[c / 64] & (1ULL << (c % 64)))
                hwloc_bitmap_set(out, (unsigned)c);
        return;
    }
    unsigned dom = 0, bus = 0, dev = 0, fn = 0;
    if (!bus_id || sscanf(bus_id, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) != 4)
        return;
    hwloc_obj_t pci = hwloc_get_pcidev_by_busid(topo, dom, bus, dev, fn);
    hwloc_obj_t anc = pci ? hwloc_get_non_io_ancestor_obj(topo, pci) : NULL;
    if (anc && anc->cpuset)
        hwloc_bitmap_copy(out, anc->cpuset);
}

static int gpu_node(hwloc_topology_t topo, const gpu_topology *t, const char *bus_id)
{
    if (t && t->numa_node >= 0)
        return t->numa_node;
    unsigned dom = 0, bus = 0, dev = 0, fn = 0;
    if (!bus_id || sscanf(bus_id, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) != 4)
        return -1;
    hwloc_obj_t pci = hwloc_get_pcidev_by_busid(topo, dom, bus, dev, fn);
    hwloc_obj_t anc = pci ? hwloc_get_non_io_ancestor_obj(topo, pci) : NULL;
    if (anc && anc->nodeset && hwloc_bitmap_weight(anc->nodeset) == 1)
        return hwloc_bitmap_first(anc->nodeset);
    return -1;
}

static void append(char *out, size_t n, const char *fmt, const char *a, const char *b)
{
    size_t len = strlen(out);
    if (len < n)
        snprintf(out + len, n - len, fmt, a, b);
}

int host_plan_binding(const gpu_topology *topos, const char (*bus_ids)[96], int n, int cpu_numa, int mem_numa,
                      run_binding *out)
{
    memset(out, 0, sizeof *out);
    CPU_ZERO(&out->cpus);
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) != 0)
        return -1;
    hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    if (hwloc_topology_load(topo) != 0) {
        hwloc_topology_destroy(topo);
        return -1;
    }
    hwloc_bitmap_t wanted = hwloc_bitmap_alloc(), one = hwloc_bitmap_alloc(), here = hwloc_bitmap_alloc();
    hwloc_bitmap_t eff = hwloc_bitmap_alloc(), nodes = hwloc_bitmap_alloc(), hnodes = hwloc_bitmap_alloc();
    int rc = -1;
    if (!wanted || !one || !here || !eff || !nodes || !hnodes)
        goto out;
    for (int i = 0; i < n; i++) {
        gpu_cpus(topo, &topos[i], bus_ids ? bus_ids[i] : NULL, one);
        hwloc_bitmap_or(wanted, wanted, one);
        int node = gpu_node(topo, &topos[i], bus_ids ? bus_ids[i] : NULL);
        if (node >= 0)
            hwloc_bitmap_set(nodes, (unsigned)node);
    }
    /* the CPUs this process may use here (cgroups and our own affinity included) */
    hwloc_bitmap_copy(here, hwloc_topology_get_allowed_cpuset(topo));
    if (hwloc_get_cpubind(topo, one, HWLOC_CPUBIND_PROCESS) == 0 && !hwloc_bitmap_iszero(one))
        hwloc_bitmap_and(here, here, one);
    hwloc_bitmap_and(eff, wanted, here);
    hwloc_bitmap_list_snprintf(out->wanted_text, sizeof out->wanted_text, wanted);
    char here_text[256], nodes_text[64];
    hwloc_bitmap_list_snprintf(here_text, sizeof here_text, here);
    hwloc_bitmap_list_snprintf(nodes_text, sizeof nodes_text, nodes);
    if (!cpu_numa) {
        snprintf(out->note, sizeof out->note, "CPUs not bound (--cpu-bind none)");
    } else if (hwloc_bitmap_iszero(wanted)) {
        snprintf(out->note, sizeof out->note, "CPUs not bound: the GPUs' CPU affinity is unknown");
    } else if (hwloc_bitmap_iszero(eff)) {
        out->clamped = 1;
        snprintf(
            out->note, sizeof out->note,
            "CPUs not bound: the GPUs' CPUs %.160s (NUMA node %.40s) do not exist here (this machine: CPUs %.160s)",
            out->wanted_text, nodes_text[0] ? nodes_text : "?", here_text);
    } else {
        out->cpu_bind = 1;
        hwloc_cpuset_to_glibc_sched_affinity(topo, eff, &out->cpus, sizeof out->cpus);
        hwloc_bitmap_list_snprintf(out->cpus_text, sizeof out->cpus_text, eff);
        if (!hwloc_bitmap_isequal(eff, wanted)) {
            out->clamped = 1;
            snprintf(out->note, sizeof out->note,
                     "CPUs %.160s: the GPUs' CPUs are %.160s (NUMA node %.40s), clamped to the CPUs this machine has "
                     "(%.160s)",
                     out->cpus_text, out->wanted_text, nodes_text[0] ? nodes_text : "?", here_text);
        } else {
            snprintf(out->note, sizeof out->note, "CPUs %.200s (NUMA node %.40s)", out->cpus_text,
                     nodes_text[0] ? nodes_text : "?");
        }
    }
    if (mem_numa) {
        /* the nodes that exist here */
        int id;
        hwloc_bitmap_foreach_begin(id, nodes)
        {
            if (hwloc_get_numanode_obj_by_os_index(topo, (unsigned)id))
                hwloc_bitmap_set(hnodes, (unsigned)id);
        }
        hwloc_bitmap_foreach_end();
        char hn[64];
        hwloc_bitmap_list_snprintf(hn, sizeof hn, hnodes);
        if (hwloc_bitmap_iszero(nodes)) {
            append(out->note, sizeof out->note, "; memory not bound: the GPUs' NUMA node is unknown%s%s", "", "");
        } else if (hwloc_bitmap_iszero(hnodes)) {
            out->clamped = 1;
            append(out->note, sizeof out->note, "; memory not bound: NUMA node %s does not exist here%s", nodes_text,
                   "");
        } else {
            out->mem_bind = 1;
            hwloc_bitmap_foreach_begin(id, hnodes)
            {
                if (id < (int)(8 * sizeof out->nodes)) {
                    out->nodes[id / (8 * sizeof(unsigned long))] |= 1UL << (id % (8 * sizeof(unsigned long)));
                    if ((unsigned long)id + 1 > out->maxnode)
                        out->maxnode = (unsigned long)id + 1;
                }
            }
            hwloc_bitmap_foreach_end();
            snprintf(out->nodes_text, sizeof out->nodes_text, "%s", hn);
            if (!hwloc_bitmap_isequal(hnodes, nodes)) {
                out->clamped = 1;
                append(out->note, sizeof out->note, "; memory on NUMA node %s (node %s does not exist here)", hn,
                       nodes_text);
            } else {
                append(out->note, sizeof out->note, "; memory on NUMA node %s%s", hn, "");
            }
        }
    }
    rc = 0;
out:
    hwloc_bitmap_free(wanted);
    hwloc_bitmap_free(one);
    hwloc_bitmap_free(here);
    hwloc_bitmap_free(eff);
    hwloc_bitmap_free(nodes);
    hwloc_bitmap_free(hnodes);
    hwloc_topology_destroy(topo);
    return rc;
}

int host_apply_binding(const run_binding *b)
{
    if (b->cpu_bind && sched_setaffinity(0, sizeof b->cpus, &b->cpus) != 0)
        return -1;
    /* maxnode + 1: the kernel reads one bit fewer than it is told */
    if (b->mem_bind && syscall(SYS_set_mempolicy, MPOL_BIND, b->nodes, b->maxnode + 1) != 0)
        return -1;
    return 0;
}
