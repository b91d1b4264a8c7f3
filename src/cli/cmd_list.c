/* cmd_list.c - `gpuwatch list`: one line per GPU, and under a GPU in MIG mode one per MIG device,
 * exactly as nvidia-smi -L. */
#include <stdio.h>
#include <stdlib.h>
#include "commands.h"
#include "format.h"
#include "options.h"
#include "session.h"

static const char usage[] = "usage: gpuwatch list [-i LIST]\n"
                            "\n"
                            "One line per GPU, as nvidia-smi -L:  GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-...)\n"
                            "and one per MIG device:  MIG 3g.40gb     Device  0: (UUID: MIG-...)\n"
                            "\n"
                            "  -i, --id LIST  GPUs: indexes or ranges (0,2,4-7), UUIDs or PCI bus ids\n"
                            "  -h, --help     this help\n";

static const cli_spec spec = {.cmd = "list", .allowed = OPT_ID, .usage = usage};

static const char *str_or(const gpu_info *in, metric_id id, const char *fallback)
{
    return mset_has(&in->str_present, id) ? in->str[id] : fallback;
}

int cmd_list(int argc, char **argv)
{
    cli_opts o;
    int rc = cli_parse(&spec, argc, argv, &o);
    if (rc != CLI_RUN)
        return rc == CLI_HELP ? 0 : GW_EXIT_USAGE;
    sampler s;
    if ((rc = session_open(&s, spec.cmd, 1)) != 0)
        return rc;
    unsigned char *sel = calloc((size_t)s.count + 1, 1);
    if (!sel)
        rc = 1;
    else if (session_select(&s, spec.cmd, o.ids, sel) != 0)
        rc = GW_EXIT_USAGE;
    for (int g = 0; rc == 0 && g < s.count; g++) {
        if (!sel[g])
            continue;
        const gw_gpu *gpu = &s.gpus[g];
        if (!gpu->have_info && gpu->lost)
            printf("GPU %d: %s\n", g, FMT_LOST);
        else
            printf("GPU %d: %s (UUID: %s)\n", g, str_or(&gpu->info, M_NAME, FMT_NA),
                   str_or(&gpu->info, M_UUID, FMT_NA));
        gpu_mig mig[GW_MIG_MAX];
        int n = sampler_read_mig(&s, g, mig, GW_MIG_MAX);
        for (int k = 0; k < n; k++)
            printf("  MIG %-11s Device %2d: (UUID: %s)\n", mig[k].profile[0] ? mig[k].profile : FMT_NA, mig[k].index,
                   mig[k].uuid[0] ? mig[k].uuid : FMT_NA);
    }
    free(sel);
    sampler_close(&s);
    return rc;
}
