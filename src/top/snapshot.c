/* snapshot.c - `top --once` or not on a terminal: the same information as plain text. */
#include "top_ui.h"
#include "top_proc.h"
#include "top_alerts.h"
#include "util.h"
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void print_gpus(FILE *f, top_model *m, const top_opts *o)
{
    uint64_t now = gw_mono_us();
    fprintf(f, "%-3s %-26s %5s %-20s %-11s %-6s %-6s %-9s %-9s %-4s %-24s %s\n", "GPU", "NAME", "UTIL", "MEMORY",
            "POWER", "TEMP", "HBM", "SM-CLK", "MEM-CLK", "FAN", "PCIE", "STATE");
    for (int i = 0; i < m->ngpus; i++) {
        gpu_text t;
        gpu_text_make(&m->gpus[i], &o->th, top_gpu_stale(&m->gpus[i], now, o->interval_s), o->ascii, &t);
        /* Temperatures are printed with their level when not OK, since there is no colour. */
        static const char *lvl[] = {"", "!", "!!"};
        char temp[24], hbm[24];
        snprintf(temp, sizeof temp, "%s%s", t.temp, lvl[t.temp_lvl]);
        snprintf(hbm, sizeof hbm, "%s%s", t.hbm, lvl[t.hbm_lvl]);
        char tc[32], hc[32];
        fprintf(f, "%-3d %-26.26s %5s %-20s %-11s %s %s %-9s %-9s %-4s %-24s %s\n", m->gpus[i].info.index, t.name,
                t.util, t.mem, t.power, fmt_pad(tc, sizeof tc, temp, 6, 0), fmt_pad(hc, sizeof hc, hbm, 6, 0), t.sm_clk,
                t.mem_clk, t.fan, t.pcie, t.state[0] ? t.state : "ok");
        if (t.throttle[0] || t.marks[0])
            fprintf(f, "    %s%s%s%s\n", t.throttle[0] ? "throttle: " : "", t.throttle,
                    t.throttle[0] && t.marks[0] ? "  " : "", t.marks);
    }
}

static void print_procs(FILE *f, top_model *m)
{
    int *order = calloc((size_t)(m->nprocs ? m->nprocs : 1), sizeof *order);
    if (!order)
        return;
    uint64_t now_s = (uint64_t)time(NULL);
    int n = proc_order(m->procs, m->nprocs, "", -1, PC_GPU, 0, now_s, order);
    fprintf(f, "\nPROCESSES (%d)\n", n);
    for (int c = 0; c < PC_COUNT; c++)
        fprintf(f, proc_col_right((proc_col)c) ? "%*s " : "%-*s ", proc_col_width[c], proc_col_names[c]);
    fputc('\n', f);
    static char cells[PC_COUNT][PROC_CELL];
    for (int i = 0; i < n; i++) {
        proc_cells(&m->procs[order[i]], now_s, cells);
        for (int c = 0; c < PC_COUNT; c++)
            fprintf(f, proc_col_right((proc_col)c) ? "%*.*s " : "%-*.*s ", proc_col_width[c],
                    proc_col_width[c] ? proc_col_width[c] : (int)sizeof cells[c], cells[c]);
        fputc('\n', f);
    }
    if (n == 0)
        fprintf(f, "no processes on the GPUs\n");
    free(order);
}

void top_snapshot(FILE *f, top_model *m, const top_opts *o)
{
    char head[400];
    pthread_mutex_lock(&m->lock);
    top_header_text(m, head, sizeof head);
    fprintf(f, "gpuwatch top  %s%s\n", head, m->versions.simulated ? "  SIMULATED GPUs" : "");
    if (m->error[0])
        fprintf(f, "error: %s\n", m->error);
    print_gpus(f, m, o);
    print_procs(f, m);
    top_alert_line al[TOP_MAX_ALERTS];
    int na = top_alerts_collect(m, al, TOP_MAX_ALERTS);
    fprintf(f, "\nALERTS\n");
    if (na == 0)
        fprintf(f, "no alerts\n");
    char plain[sizeof al[0].text];
    for (int i = 0; i < na; i++)
        fprintf(f, "%s\n", o->ascii ? fmt_ascii(plain, sizeof plain, al[i].text) : al[i].text);
    pthread_mutex_unlock(&m->lock);
}
