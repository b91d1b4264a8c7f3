/* cmd_dmon.c - `gpuwatch dmon`: one line per GPU per interval, as nvidia-smi dmon (also csv, JSON lines). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "commands.h"
#include "dmon_format.h"
#include "options.h"
#include "session.h"
#include "ticker.h"

static const char usage[] =
    "usage: gpuwatch dmon [-s pucvmet] [-d SECONDS] [-c COUNT] [-i LIST] [-o D|T|DT] [--format plain|csv|json]\n"
    "\n"
    "Device monitoring: one line per GPU per interval, as nvidia-smi dmon ('-' = no value).\n"
    "\n"
    "  -s, --select LETTERS  metric groups, in the order given (default puc):\n"
    "                          p  Power Usage and Temperature (pwr gtemp mtemp)\n"
    "                          u  Utilization (sm mem enc dec jpg ofa)\n"
    "                          c  Proc and Mem Clocks (mclk pclk)\n"
    "                          v  Power and Thermal Violations (pviol: % of the interval, tviol: bool)\n"
    "                          m  FB, Bar1 and CC Protected Memory (fb bar1 ccpm, MB)\n"
    "                          e  ECC Errors and PCIe Replay errors (sbecc dbecc pci)\n"
    "                          t  PCIe Rx and Tx Throughput (rxpci txpci, MB/s)\n"
    "  -d, --delay SECONDS   interval, 0.1 or more (default 1); also 500ms, 2s\n"
    "  -c, --count N         stop after N samples (default: until Ctrl-C)\n"
    "  -i, --id LIST         GPUs: indexes or ranges (0,2,4-7), UUIDs or PCI bus ids\n"
    "  -o, --options D|T|DT  prefix each line with the date (YYYYMMDD) and/or time (HH:MM:SS)\n"
    "      --format FMT      plain (default), csv (\"gpu, pwr [W], ...\"; add ,noheader ,nounits)\n"
    "                        or json (one object per GPU per sample, one per line)\n"
    "      --noheader        csv: no header line    --nounits  csv: no [unit] in the header\n"
    "  -h, --help            this help\n"
    "\n"
    "A lost GPU's row shows '-' in every column followed by '" DMON_LOST_MARK "' (csv: [GPU is lost],\n"
    "json: \"lost\": true); the other GPUs go on, and the GPU is shown again when it comes back.\n";

const cli_spec dmon_spec = {
    .cmd = "dmon",
    .allowed = OPT_ID | OPT_FORMAT | OPT_NOHEADER | OPT_NOUNITS | OPT_DELAY | OPT_COUNT | OPT_SELECT | OPT_DATETIME,
    .formats = "plain,csv,json",
    .letters = "pucvmet",
    .letters_default = "puc",
    .usage = usage,
};

typedef struct dmon_state {
    const cli_opts *o;
    dmon_layout layout;
    metric_set want;
    int n;    /* selected GPUs */
    int *gpu; /* their indexes */
    gpu_sample *cur, *prev;
    unsigned char *have_prev;
    gw_buf out;
} dmon_state;

static void format_row(dmon_state *st, int k)
{
    const gpu_sample *prev = st->have_prev[k] ? &st->prev[k] : NULL;
    switch (st->o->format) {
    case OUT_CSV: dmon_csv_row(&st->layout, &st->out, st->gpu[k], &st->cur[k], prev); break;
    case OUT_JSON: dmon_json_row(&st->layout, &st->out, st->gpu[k], &st->cur[k], prev); break;
    default: dmon_plain_row(&st->layout, &st->out, st->gpu[k], &st->cur[k], prev); break;
    }
}

/* Reads every selected GPU, formats their rows into one buffer and writes it once. */
static int sample_once(dmon_state *st, sampler *s)
{
    for (int k = 0; k < st->n; k++) {
        sampler_read(s, st->gpu[k], &st->want, &st->cur[k]);
        format_row(st, k);
        st->have_prev[k] = st->cur[k].status == GPU_OK;
        st->prev[k] = st->cur[k];
    }
    return ob_flush(&st->out, STDOUT_FILENO);
}

static int run(dmon_state *st, sampler *s)
{
    const cli_opts *o = st->o;
    if (o->format == OUT_PLAIN)
        dmon_plain_header(&st->layout, &st->out);
    else if (o->format == OUT_CSV && !o->noheader)
        dmon_csv_header(&st->layout, &st->out, !o->nounits);
    ticker t;
    ticker_install_signals();
    ticker_start(&t, o->delay_s);
    for (long done = 0; !ticker_stopped();) {
        if (sample_once(st, s) != 0)
            break; /* stdout closed (e.g. piped into head) */
        if (o->count && ++done >= o->count)
            break;
        if (ticker_wait(&t) != 0)
            break;
    }
    return 0;
}

int cmd_dmon(int argc, char **argv)
{
    cli_opts o;
    int rc = cli_parse(&dmon_spec, argc, argv, &o);
    if (rc != GW_ARGS_RUN)
        return gw_args_exit(rc);
    sampler s;
    if ((rc = session_open(&s, dmon_spec.cmd, 1)) != 0)
        return rc;
    dmon_state st;
    memset(&st, 0, sizeof st);
    st.o = &o;
    unsigned char *sel = calloc((size_t)s.count + 1, 1);
    st.gpu = calloc((size_t)s.count + 1, sizeof *st.gpu);
    st.cur = calloc((size_t)s.count + 1, sizeof *st.cur);
    st.prev = calloc((size_t)s.count + 1, sizeof *st.prev);
    st.have_prev = calloc((size_t)s.count + 1, 1);
    if (!sel || !st.gpu || !st.cur || !st.prev || !st.have_prev) {
        rc = 1;
    } else if (session_select(&s, dmon_spec.cmd, "--id", o.ids, sel) != 0) {
        rc = GW_EXIT_USAGE;
    } else {
        for (int g = 0; g < s.count; g++)
            if (sel[g])
                st.gpu[st.n++] = g;
        dmon_layout_init(&st.layout, o.select, o.show_date, o.show_time);
        dmon_want(&st.layout, &st.want);
        rc = run(&st, &s);
    }
    buf_release(&st.out);
    free(sel);
    free(st.gpu);
    free(st.cur);
    free(st.prev);
    free(st.have_prev);
    sampler_close(&s);
    return rc;
}
