/* session.c - backend opening with the exit-3 error line and simulation banner; --id selection; the
 * rounds of a report command (-f, -l). */
#include "session.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpu_list.h"
#include "options.h"
#include "ticker.h"

int session_open(sampler *s, const char *cmd, int banner)
{
    char err[256] = "";
    if (sampler_open(s, err, sizeof err) != BK_OK) {
        fprintf(stderr, "gpuwatch%s%s: %s\n", *cmd ? " " : "", cmd, err[0] ? err : "cannot open the GPU backend");
        return GW_EXIT_BACKEND;
    }
    if (banner && s->versions.simulated) {
        const char *scenario = getenv("GPUSIM_SCENARIO");
        fprintf(stderr, "SIMULATED GPUs (gpusim: %s)\n", scenario ? scenario : "default scenario");
    }
    return 0;
}

int session_select(const sampler *s, const char *cmd, const char *opt, const char *ids, unsigned char *sel)
{
    gpu_ident *who = calloc((size_t)s->count + 1, sizeof *who);
    char why[256];
    if (!who) {
        fprintf(stderr, "gpuwatch%s%s: out of memory\n", *cmd ? " " : "", cmd);
        return GW_ARGS_USAGE;
    }
    for (int g = 0; g < s->count; g++) {
        const gpu_info *in = &s->gpus[g].info;
        who[g].uuid = mset_has(&in->str_present, M_UUID) ? in->str[M_UUID] : NULL;
        who[g].bus_id = mset_has(&in->str_present, M_PCI_BUS_ID) ? in->str[M_PCI_BUS_ID] : NULL;
    }
    int rc = gpu_list_select(ids, s->count, who, sel, why, sizeof why);
    free(who);
    return rc == 0 ? 0 : gw_usage_error_named(cmd, "%s: %s", opt, why);
}

int session_rounds(const char *cmd, const cli_opts *o, session_round_fn round, void *ctx)
{
    if (o->loop_s > 0)
        ticker_install_signals(); /* before anything is read: an early Ctrl-C still ends the loop cleanly */
    sampler s;
    int rc = session_open(&s, cmd, 1);
    if (rc != 0)
        return rc;
    unsigned char *sel = calloc((size_t)s.count + 1, 1);
    FILE *out = stdout;
    if (!sel) {
        rc = 1;
    } else if (session_select(&s, cmd, "--id", o->ids, sel) != 0) {
        rc = GW_EXIT_USAGE;
    } else if (o->file && !(out = fopen(o->file, "w"))) {
        fprintf(stderr, "gpuwatch%s%s: -f: cannot write '%s': %s\n", *cmd ? " " : "", cmd, o->file, strerror(errno));
        out = stdout;
        rc = 1;
    } else {
        rc = round(&s, sel, out, ctx);
        if (o->loop_s > 0 && rc == 0) {
            ticker t;
            ticker_start(&t, o->loop_s);
            while (rc == 0 && ticker_wait(&t) == 0)
                rc = round(&s, sel, out, ctx);
            if (ticker_stopped())
                rc = 0;
        }
    }
    if (out != stdout && fclose(out) != 0)
        rc = 1;
    free(sel);
    sampler_close(&s);
    return rc;
}
