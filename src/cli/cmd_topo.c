/* cmd_topo.c - `gpuwatch topo -m`: nvidia-smi topo -m's matrix of how each pair of GPUs is connected
 * (X self, NV# a bonded set of # NVLinks, PIX, PXB, PHB, NODE, SYS for the PCIe path), each GPU's
 * CPU and NUMA affinity, and the legend; from NVML's topology calls through the sampler. Like
 * nvidia-smi, the header row is underlined with the terminal's escape (ESC[4m ... ESC[0m) and
 * columns are separated by tabs. NICs are not listed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "buf.h"
#include "commands.h"
#include "session.h"

static const char usage[] = "usage: gpuwatch topo -m\n"
                            "\n"
                            "nvidia-smi topo -m: the GPU connection matrix, CPU and NUMA affinity, and the legend.\n"
                            "\n"
                            "  -m, --matrix   the matrix (the one form gpuwatch answers)\n"
                            "  -h, --help     this help\n";

static const char legend[] =
    "\n"
    "Legend:\n"
    "\n"
    "  X    = Self\n"
    "  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)\n"
    "  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA node\n"
    "  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)\n"
    "  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)\n"
    "  PIX  = Connection traversing at most a single PCIe bridge\n"
    "  NV#  = Connection traversing a bonded set of # NVLinks\n";

/* "0-19,40-59", or N/A. */
static void cpu_list(gw_buf *b, const gpu_topology *t)
{
    int any = 0;
    for (int c = 0; c < GW_TOPO_MAX_CPUS; c++) {
        if (!(t->cpus[c / 64] >> (c % 64) & 1))
            continue;
        int e = c;
        while (e + 1 < GW_TOPO_MAX_CPUS && (t->cpus[(e + 1) / 64] >> ((e + 1) % 64) & 1))
            e++;
        buf_printf(b, e > c ? "%s%d-%d" : "%s%d", any ? "," : "", c, e);
        any = 1;
        c = e;
    }
    if (!any)
        buf_puts(b, "N/A");
}

static const char *path_word(int path)
{
    switch (path) {
    case TOPO_PATH_SWITCH: return "PIX";
    case TOPO_PATH_BRIDGES: return "PXB";
    case TOPO_PATH_HOSTBRIDGE: return "PHB";
    case TOPO_PATH_NODE: return "NODE";
    case TOPO_PATH_SYSTEM: return "SYS";
    default: return "N/A";
    }
}

static int print_matrix(sampler *s)
{
    gw_buf b = {0};
    gpu_topology *t = calloc((size_t)s->count + 1, sizeof *t);
    int *ok = calloc((size_t)s->count + 1, sizeof *ok);
    if (!t || !ok) {
        free(t);
        free(ok);
        fprintf(stderr, "gpuwatch topo: out of memory\n");
        return 1;
    }
    for (int g = 0; g < s->count; g++)
        ok[g] = sampler_read_topology(s, g, &t[g]) == 0;
    buf_puts(&b, "\t\033[4m");
    for (int g = 0; g < s->count; g++)
        buf_printf(&b, "GPU%d\t", s->gpus[g].info.index);
    buf_puts(&b, "CPU Affinity\tNUMA Affinity\tGPU NUMA ID\033[0m\n");
    for (int g = 0; g < s->count; g++) {
        buf_printf(&b, "GPU%d", s->gpus[g].info.index);
        for (int p = 0; p < s->count; p++) {
            if (p == g)
                buf_puts(&b, "\t X ");
            else if (!ok[g] || p >= GW_TOPO_MAX_GPUS)
                buf_puts(&b, "\tN/A");
            else if (t[g].nvlink[p])
                buf_printf(&b, "\tNV%d", t[g].nvlink[p]);
            else
                buf_printf(&b, "\t%s", path_word(t[g].path[p]));
        }
        buf_puts(&b, "\t");
        if (ok[g] && t[g].has_cpus)
            cpu_list(&b, &t[g]);
        else
            buf_puts(&b, "N/A");
        if (ok[g] && t[g].numa_node >= 0)
            buf_printf(&b, "\t%d", t[g].numa_node);
        else
            buf_puts(&b, "\tN/A");
        buf_puts(&b, "\t\tN/A\n"); /* GPU NUMA ID: only a GPU that is a NUMA node (Grace) has one */
    }
    buf_puts(&b, legend);
    int rc = b.oom || fwrite(b.data, 1, b.len, stdout) != b.len || fflush(stdout) != 0;
    buf_release(&b);
    free(t);
    free(ok);
    return rc;
}

int cmd_topo(int argc, char **argv)
{
    int matrix = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            fputs(usage, stdout);
            return 0;
        }
        if (strcmp(argv[i], "-m") == 0 || strcmp(argv[i], "--matrix") == 0) {
            matrix = 1;
            continue;
        }
        fprintf(stderr, "gpuwatch topo: '%s' is not answered (gpuwatch answers topo -m)\nTry 'gpuwatch topo --help'.\n",
                argv[i]);
        return GW_EXIT_USAGE;
    }
    if (!matrix) {
        fprintf(stderr, "gpuwatch topo: needs -m (the matrix)\nTry 'gpuwatch topo --help'.\n");
        return GW_EXIT_USAGE;
    }
    sampler s;
    int rc = session_open(&s, "topo", 1);
    if (rc != 0)
        return rc;
    rc = print_matrix(&s);
    sampler_close(&s);
    return rc;
}
