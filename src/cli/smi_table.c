/* smi_table.c - `gpuwatch` alone (or with -i, -l, -lms, -f): nvidia-smi's summary table, the 590
 * driver's layout to the column: the header box (driver and CUDA versions), three lines per GPU
 * (name, persistence, bus id, display, volatile uncorrectable ECC; fan, temperature, pstate, power
 * against its cap, memory, utilization, compute mode; MIG mode), then the processes. Long names
 * are cut as nvidia-smi cuts them: a GPU's after 24 characters with "...", a process's from the
 * left ("..." and its last 33 characters). A value the GPU lacks is N/A. */
#include "smi_table.h"
#include <stdio.h>
#include <string.h>
#include "buf.h"
#include "format.h"
#include "options.h"
#include "pmon_format.h"
#include "session.h"
#include "smi_report.h"
#include "util.h"

#define TABLE_MAX_PROCS 256
#define NAME_COL 27  /* a GPU's name; longer ones keep 24 characters and "..." */
#define PNAME_COL 36 /* a process's name; longer ones keep the last 33 after "..." */

static const char rule_full[] =
    "+-----------------------------------------------------------------------------------------+\n";
static const char rule_cols[] =
    "+-----------------------------------------+------------------------+----------------------+\n";

static const char usage[] =
    "usage: gpuwatch [-i LIST] [-l SECONDS | -lms MS] [-f FILE]\n"
    "\n"
    "nvidia-smi's summary table: the driver and CUDA versions, each GPU's state and its processes.\n"
    "\n"
    "  -i, --id LIST       GPUs: indexes or ranges (0,2,4-7), UUIDs or PCI bus ids\n"
    "  -l, --loop SECONDS  repeat every SECONDS (5 when no value follows), until interrupted\n"
    "  -lms, --loop-ms MS  repeat every MS milliseconds\n"
    "  -f, --filename FILE write to FILE (overwritten) instead of stdout\n"
    "  -h, --help          this help (gpuwatch --help: the commands)\n";

static const cli_spec spec = {
    .cmd = "",
    .allowed = OPT_ID | OPT_LOOP | OPT_FILE,
    .usage = usage,
};

/* A number of the sample as text (fmt with the value), or N/A. */
static void num(char *out, size_t n, const gpu_sample *s, metric_id id, const char *fmt)
{
    double v;
    if (s->status != GPU_LOST && sample_get(s, id, &v))
        snprintf(out, n, fmt, v);
    else
        gw_strlcpy(out, "N/A", n);
}

/* "On"/"Off" (Enabled/Disabled words: "Enabled"/"Disabled"), or N/A. */
static const char *state(const gpu_sample *s, metric_id id, const char *on, const char *off)
{
    double v;
    return s->status != GPU_LOST && sample_get(s, id, &v) ? (v != 0 ? on : off) : "N/A";
}

static const char *compute_mode(const gpu_sample *s)
{
    static const char *const names[] = {"Default", "E. Thread", "Prohibited", "E. Process"};
    double v;
    if (s->status == GPU_LOST || !sample_get(s, M_COMPUTE_MODE, &v) || v < 0 || v > 3)
        return "N/A";
    return names[(int)v];
}

static void gpu_name(char *out, size_t n, const gpu_info *info)
{
    const char *name = mset_has(&info->str_present, M_NAME) ? info->str[M_NAME] : "N/A";
    if (strlen(name) > NAME_COL)
        snprintf(out, n, "%.*s...", NAME_COL - 3, name);
    else
        gw_strlcpy(out, name, n);
}

static void gpu_rows(gw_buf *b, const gpu_info *info, const gpu_sample *s)
{
    char name[64], fan[16], temp[16], pstate[16], pwr[16], cap[16], used[24], total[24], util[16], ecc[24];
    double v;
    gpu_name(name, sizeof name, info);
    const char *bus = mset_has(&info->str_present, M_PCI_BUS_ID) ? info->str[M_PCI_BUS_ID] : "N/A";
    int mig = s->status != GPU_LOST && sample_get(s, M_MIG_MODE, &v) && v != 0;
    if (mig)
        gw_strlcpy(ecc, "On", sizeof ecc); /* in MIG mode the counters are per instance: nvidia-smi says On */
    else if (s->status != GPU_LOST && sample_get(s, M_ECC_MODE, &v) && v != 0)
        num(ecc, sizeof ecc, s, M_ECC_DBE_VOL, "%.0f");
    else
        gw_strlcpy(ecc, "N/A", sizeof ecc);
    buf_printf(b, "| %3d  %-*s    %-3s |   %-16s %3s |%21s |\n", info->index, NAME_COL, name,
               state(s, M_PERSISTENCE_MODE, "On", "Off"), bus, state(s, M_DISPLAY_ACTIVE, "On", "Off"), ecc);
    num(fan, sizeof fan, s, M_FAN_SPEED, "%.0f%%");
    num(temp, sizeof temp, s, M_TEMP_GPU, "%.0fC");
    num(pstate, sizeof pstate, s, M_PSTATE, "P%.0f");
    num(pwr, sizeof pwr, s, M_POWER_DRAW, "%.0fW");
    num(cap, sizeof cap, s, sample_has(s, M_POWER_ENFORCED_LIMIT) ? M_POWER_ENFORCED_LIMIT : M_POWER_LIMIT, "%.0fW");
    num(used, sizeof used, s, M_MEM_USED, "%.0fMiB");
    num(total, sizeof total, s, M_MEM_TOTAL, "%.0fMiB");
    if (mig)
        gw_strlcpy(util, "N/A", sizeof util); /* a MIG GPU's utilization is per instance */
    else
        num(util, sizeof util, s, M_UTIL_GPU, "%.0f%%");
    buf_printf(b, "|%4s %5s    %-3s%15s / %5s |%11s / %9s |%8s%13s |\n", fan, temp, pstate, pwr, cap, used, total, util,
               compute_mode(s));
    buf_printf(b, "|%41s|%24s|%21s |\n", "", "", state(s, M_MIG_MODE, "Enabled", "Disabled"));
}

static void process_row(gw_buf *b, const gpu_proc *p, int index)
{
    char name[300], cut[PNAME_COL + 1], mem[32];
    smi_process_name(p, name, sizeof name);
    size_t len = strlen(name);
    if (len > PNAME_COL)
        snprintf(cut, sizeof cut, "...%s", name + len - (PNAME_COL - 3));
    else
        gw_strlcpy(cut, name, sizeof cut);
    if (p->has_mem)
        snprintf(mem, sizeof mem, "%.0fMiB", p->mem_mib);
    else
        gw_strlcpy(mem, "N/A", sizeof mem);
    buf_printf(b, "|%5d%6s%5s%16u%7s   %-*s%10s |\n", index, "N/A", "N/A", p->pid, pmon_type(p->type), PNAME_COL, cut,
               mem);
}

static void processes(gw_buf *b, sampler *s, const unsigned char *sel)
{
    static gpu_proc procs[TABLE_MAX_PROCS];
    buf_puts(b, "\n");
    buf_puts(b, rule_full);
    buf_printf(b, "| %-88s|\n", "Processes:");
    buf_printf(b, "| %-88s|\n",
               " GPU   GI   CI              PID   Type   Process name                        GPU Memory");
    buf_printf(b, "| %-88s|\n", "       ID   ID                                                               Usage");
    buf_puts(b, "|=========================================================================================|\n");
    int any = 0;
    for (int g = 0; g < s->count; g++) {
        if (!sel[g])
            continue;
        int n = sampler_read_processes(s, g, procs, TABLE_MAX_PROCS);
        for (int k = 0; k < n; k++)
            process_row(b, &procs[k], s->gpus[g].info.index);
        any |= n > 0;
    }
    if (!any)
        buf_printf(b, "| %-88s|\n", " No running processes found");
    buf_puts(b, rule_full);
}

static int table_once(sampler *s, const unsigned char *sel, FILE *out)
{
    static gpu_sample smp;
    gw_buf b = {0};
    char day[64];
    fmt_smi_date(day, sizeof day);
    buf_printf(&b, "%s       \n", day);
    buf_puts(&b, rule_full);
    buf_printf(&b, "| NVIDIA-SMI %-23sDriver Version: %-15sCUDA Version: %-9s|\n",
               s->versions.driver[0] ? s->versions.driver : "N/A", s->versions.driver[0] ? s->versions.driver : "N/A",
               s->versions.cuda[0] ? s->versions.cuda : "N/A");
    buf_puts(&b, rule_cols);
    buf_puts(&b, "| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |\n");
    buf_puts(&b, "| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |\n");
    buf_puts(&b, "|                                         |                        |               MIG M. |\n");
    buf_puts(&b, "|=========================================+========================+======================|\n");
    for (int g = 0; g < s->count; g++) {
        if (!sel[g])
            continue;
        sampler_read(s, g, NULL, &smp);
        gpu_rows(&b, &s->gpus[g].info, &smp);
        buf_puts(&b, rule_cols);
    }
    processes(&b, s, sel);
    int rc = b.oom || fwrite(b.data, 1, b.len, out) != b.len || fflush(out) != 0;
    buf_release(&b);
    return rc;
}

static int table_round(sampler *s, const unsigned char *sel, FILE *out, void *ctx)
{
    (void)ctx;
    return table_once(s, sel, out);
}

int smi_table_run(int argc, char **argv)
{
    cli_opts o;
    int rc = cli_parse(&spec, argc, argv, &o);
    if (rc != CLI_RUN)
        return rc == CLI_HELP ? 0 : GW_EXIT_USAGE;
    rc = session_rounds("", &o, table_round, NULL);
    if (rc == GW_EXIT_BACKEND)
        fprintf(stderr, "(gpuwatch --help lists the commands; gpuwatch --sim demo-8gpu runs on simulated GPUs)\n");
    return rc;
}
