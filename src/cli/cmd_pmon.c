/* cmd_pmon.c - `gpuwatch pmon`: one line per GPU process per interval, as nvidia-smi pmon. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "commands.h"
#include "options.h"
#include "pmon_format.h"
#include "session.h"
#include "ticker.h"
#include "util.h"

#define PMON_MAX_PROCS 256

static const char usage[] =
    "usage: gpuwatch pmon [-s um] [-d SECONDS] [-c COUNT] [-i LIST] [-o D|T|DT] [--format plain|csv|json]\n"
    "\n"
    "Process monitoring: one line per process on each GPU per interval, as nvidia-smi pmon, with two\n"
    "more columns before command: user and container (docker/containerd id, Kubernetes pod, Slurm job\n"
    "or systemd unit). '-' = no value; a GPU without processes prints one '-' line.\n"
    "\n"
    "  -s, --select LETTERS  u  utilization: sm mem enc dec jpg ofa, % (default)\n"
    "                        m  memory: fb (MB used by the process) and ccpm; -s um for both\n"
    "  -d, --delay SECONDS   interval, 0.1 or more (default 1)\n"
    "  -c, --count N         stop after N samples (default: until Ctrl-C)\n"
    "  -i, --id LIST         GPUs: indexes or ranges (0,2,4-7), UUIDs or PCI bus ids\n"
    "  -o, --options D|T|DT  prefix each line with the date and/or time\n"
    "      --format FMT      plain (default), csv (add ,noheader ,nounits) or json (one object per line)\n"
    "      --noheader        csv: no header line    --nounits  csv: no [unit] in the header\n"
    "  -h, --help            this help\n"
    "\n"
    "type: C compute, G graphics, C+G both, M MPS. A lost GPU's line ends with '" PMON_LOST_MARK "'.\n";

const cli_spec pmon_spec = {
    .cmd = "pmon",
    .allowed = OPT_ID | OPT_FORMAT | OPT_NOHEADER | OPT_NOUNITS | OPT_DELAY | OPT_COUNT | OPT_SELECT | OPT_DATETIME,
    .formats = "plain,csv,json",
    .letters = "um",
    .letters_default = "u",
    .usage = usage,
};

static void emit(const cli_opts *o, const pmon_layout *l, gw_buf *b, const pmon_line *line)
{
    switch (o->format) {
    case OUT_CSV: pmon_csv_row(l, b, line); break;
    case OUT_JSON: pmon_json_row(l, b, line); break;
    default: pmon_plain_row(l, b, line); break;
    }
}

/* Is a GPU whose process list could not be read lost (rather than failing one call)? */
static int gpu_is_lost(sampler *s, int gpu)
{
    metric_set want;
    gpu_sample probe;
    memset(&want, 0, sizeof want);
    mset_add(&want, M_UTIL_GPU);
    return sampler_read(s, gpu, &want, &probe) == GPU_LOST;
}

static int sample_once(sampler *s, const cli_opts *o, const pmon_layout *l, const unsigned char *sel, gpu_proc *procs,
                       gw_buf *b)
{
    for (int g = 0; g < s->count; g++) {
        if (!sel[g])
            continue;
        pmon_line line = {.gpu = g, .t_us = gw_now_us()};
        int n = sampler_read_processes(s, g, procs, PMON_MAX_PROCS);
        if (n < 0)
            line.lost = gpu_is_lost(s, g);
        for (int k = 0; k < n; k++) {
            line.proc = &procs[k];
            emit(o, l, b, &line);
        }
        if (n <= 0) {
            line.proc = NULL;
            emit(o, l, b, &line);
        }
    }
    return ob_flush(b, STDOUT_FILENO);
}

int cmd_pmon(int argc, char **argv)
{
    cli_opts o;
    int rc = cli_parse(&pmon_spec, argc, argv, &o);
    if (rc != GW_ARGS_RUN)
        return gw_args_exit(rc);
    sampler s;
    if ((rc = session_open(&s, pmon_spec.cmd, 1)) != 0)
        return rc;
    unsigned char *sel = calloc((size_t)s.count + 1, 1);
    gpu_proc *procs = calloc(PMON_MAX_PROCS, sizeof *procs);
    gw_buf b = {0};
    pmon_layout l;
    pmon_layout_init(&l, o.select, o.show_date, o.show_time);
    if (!sel || !procs) {
        rc = 1;
    } else if (session_select(&s, pmon_spec.cmd, "--id", o.ids, sel) != 0) {
        rc = GW_EXIT_USAGE;
    } else {
        if (o.format == OUT_PLAIN)
            pmon_plain_header(&l, &b);
        else if (o.format == OUT_CSV && !o.noheader)
            pmon_csv_header(&l, &b, !o.nounits);
        ticker t;
        ticker_install_signals();
        ticker_start(&t, o.delay_s);
        for (long done = 0; !ticker_stopped();) {
            if (sample_once(&s, &o, &l, sel, procs, &b) != 0)
                break;
            if (o.count && ++done >= o.count)
                break;
            if (ticker_wait(&t) != 0)
                break;
        }
    }
    buf_release(&b);
    free(procs);
    free(sel);
    sampler_close(&s);
    return rc;
}
