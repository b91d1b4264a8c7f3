/* cmd_top.c - `gpuwatch top`: the preferences file, then the options (which win over it), the data
 * source with its alert rules and diagnosis, then the live UI, or one plain-text snapshot (--once,
 * or when not on a terminal) with the same information as the screen. */
#include "http_client.h"
#include "prom_client.h"
#include "sampler.h"
#include "text.h"
#include "top_fleet.h"
#include "top_ui.h"
#include "util.h"
#include <math.h>
#include <stddef.h>
#include <locale.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void usage(FILE *f)
{
    fprintf(f, "usage: gpuwatch top [OPTIONS]\n"
               "Live view of the GPUs, their history and their processes. Not on a terminal, or with\n"
               "--once, prints one plain-text snapshot and exits.\n\n"
               "  -d, --interval SEC     refresh interval (default 1; 0.1 to 60; also 100ms, 2s)\n"
               "  --once                 print one snapshot and exit\n"
               "  --layout MODE          auto (default), full or compact (one line per GPU)\n"
               "  --temp-warn C          core temperature warning (default 80)\n"
               "  --temp-crit C          core temperature critical (default 90)\n"
               "  --hbm-warn C           HBM temperature warning (default 95)\n"
               "  --hbm-crit C           HBM temperature critical (default 105)\n"
               "  --ascii                no Unicode characters (automatic on vt100 and non-UTF-8 locales)\n"
               "  --no-color             no colours (also when NO_COLOR is set)\n"
               "  --host HOST:PORT       read a remote gpuwatch agent's JSON API instead of local GPUs\n"
               "  --tls                  use https to the agent\n"
               "  --cacert FILE          CA certificate to verify the agent with\n"
               "  --insecure             do not verify the agent's certificate\n"
               "  --user USER            basic-auth user\n"
               "  --password-file FILE   basic-auth password (first line of FILE)\n"
               "  --hosts HOST:PORT,...  many agents on one screen: a line per GPU, grouped by host or job\n"
               "  --hosts-file FILE      the agents, one HOST:PORT a line ('#' comments); with --hosts too\n"
               "                         (--tls, --cacert, --insecure, --user apply to every agent)\n"
               "  --prometheus URL       the fleet from an engine's series (Prometheus, VictoriaMetrics, Thanos,\n"
               "                         Mimir): gpuwatch's or dcgm-exporter's; refresh 2 s unless -d says\n"
               "  --match SELECTOR       only the series it selects, e.g. '{job=\"gpu\"}' (with --prometheus)\n"
               "\npreferences: $XDG_CONFIG_HOME/gpuwatch/top.yaml (~/.config/gpuwatch/top.yaml), written when\n"
               "a key changes one (interval, layout, charts, sort, colours, ASCII); options win over it.\n"
               "keys: ? or F1 help, q quit (the help screen lists them all)\n");
}

/* Unicode only where the locale is UTF-8 and the terminal is not a plain vt100/dumb one. */
static int want_ascii(void)
{
    const char *term = getenv("TERM");
    return !gw_locale_utf8() ||
           (term && (strncmp(term, "vt1", 3) == 0 || strncmp(term, "vt2", 3) == 0 || strcmp(term, "dumb") == 0));
}

#define AT(field) .off = offsetof(top_opts, field)

static const gw_opt rows[] = {
    {"-d,--interval", GW_OPT_DURATION, AT(interval_s), .min = 0.1, .max = 60},
    {"--once", GW_OPT_FLAG, AT(once)},
    {"--layout", GW_OPT_CHOICE, AT(layout), .choices = "auto,full,compact"},
    {"--temp-warn", GW_OPT_NUMBER, AT(th.temp_warn), .min = 0, .max = 200},
    {"--temp-crit", GW_OPT_NUMBER, AT(th.temp_crit), .min = 0, .max = 200},
    {"--hbm-warn", GW_OPT_NUMBER, AT(th.hbm_warn), .min = 0, .max = 200},
    {"--hbm-crit", GW_OPT_NUMBER, AT(th.hbm_crit), .min = 0, .max = 200},
    {"--ascii", GW_OPT_FLAG, AT(ascii)},
    {"--no-color", GW_OPT_FLAG, AT(no_color)},
    HTTP_CLIENT_ROWS(top_opts, remote),
    {"--hosts", GW_OPT_CUSTOM, AT(hosts), .check = fleet_hosts_check},
    {"--hosts-file", GW_OPT_FILE, AT(hosts_file)},
    {"--prometheus", GW_OPT_CUSTOM, AT(prometheus), .check = prom_client_check_url},
    {"--match", GW_OPT_CUSTOM, AT(match), .check = fleet_match_check},
    {0},
};

static const gw_cmd top_cmd = {.name = "top", .opts = rows, .usage_fn = usage};

/* The options, over the preferences already in o. GW_ARGS_RUN, GW_ARGS_HELP or GW_ARGS_USAGE. */
static int parse(int argc, char **argv, top_opts *o)
{
    gw_args a;
    int rc = gw_args_parse(&top_cmd, argc, argv, o, &a);
    if (rc != GW_ARGS_RUN)
        return rc;
    o->remote_on = gw_args_given(&a, "--host");
    o->fleet_on = gw_args_given(&a, "--hosts") || gw_args_given(&a, "--hosts-file");
    if (o->fleet_on && o->remote_on)
        return gw_usage_error(&top_cmd, "%s: one agent (--host) or many (--hosts, --hosts-file), not both",
                              gw_args_given(&a, "--hosts") ? "--hosts" : "--hosts-file");
    if (o->prometheus && (o->fleet_on || o->remote_on))
        return gw_usage_error(&top_cmd, "--prometheus: the fleet from an engine or from agents (%s), not both",
                              o->remote_on                   ? "--host"
                              : gw_args_given(&a, "--hosts") ? "--hosts"
                                                             : "--hosts-file");
    if (o->match && !o->prometheus)
        return gw_usage_error(&top_cmd, "--match: narrows --prometheus's series; without it there are none");
    if (o->prometheus && !gw_args_given(&a, "--interval"))
        o->interval_s = 2; /* an engine's series move at its scrape interval, seconds at best */
    if (o->th.temp_warn > o->th.temp_crit || o->th.hbm_warn > o->th.hbm_crit)
        return gw_usage_error(&top_cmd, "%s: a warning temperature is above its critical one",
                              o->th.temp_warn > o->th.temp_crit ? "--temp-warn" : "--hbm-warn");
    return http_client_check_args(&a);
}

/* The agents of --hosts and --hosts-file, or NULL with every problem said (exit 2). */
static fleet_hosts *fleet_list(const top_opts *o)
{
    errlist errs = {0};
    fleet_hosts *h = calloc(1, sizeof *h);
    if (!h) {
        fprintf(stderr, "gpuwatch top: out of memory\n");
        return NULL;
    }
    int bad = o->hosts && fleet_hosts_add_list(h, o->hosts, &errs) != 0;
    bad |= o->hosts_file && fleet_hosts_read(h, o->hosts_file, &errs) != 0;
    for (int i = 0; i < errs.n; i++)
        fprintf(stderr, "gpuwatch top: --hosts-file: %s\n", errs.msg[i]);
    errlist_free(&errs);
    if (bad) {
        free(h);
        return NULL;
    }
    return h;
}

/* ---- the snapshot ---- */

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
        char temp[24], hbm[24], tc[32], hc[32];
        snprintf(temp, sizeof temp, "%s%s", t.temp, lvl[t.temp_lvl]);
        snprintf(hbm, sizeof hbm, "%s%s", t.hbm, lvl[t.hbm_lvl]);
        fprintf(f, "%-3d %-26.26s %5s %-20s %-11s %s %s %-9s %-9s %-4s %-24s %s\n", m->gpus[i].info.index, t.name,
                t.util, t.mem, t.power, fmt_pad(tc, sizeof tc, temp, 6, 0), fmt_pad(hc, sizeof hc, hbm, 6, 0), t.sm_clk,
                t.mem_clk, t.fan, t.pcie, t.state[0] ? t.state : "ok");
        if (t.throttle[0] || t.marks[0])
            fprintf(f, "    %s%s%s%s\n", t.throttle[0] ? "throttle: " : "", t.throttle,
                    t.throttle[0] && t.marks[0] ? "  " : "", t.marks);
        if (t.tensor[0] || t.nvlink[0])
            fprintf(f, "    %s%s%s%s%s\n", t.tensor[0] ? "tensor " : "", t.tensor,
                    t.tensor[0] && t.nvlink[0] ? "  " : "", t.nvlink[0] ? "nvlink " : "", t.nvlink);
        if (t.mig[0])
            fprintf(f, "    %s\n", t.mig);
        finding_gpu_marks(m, m->gpus[i].info.index, o->ascii, t.finding, sizeof t.finding, &t.finding_lvl);
        if (t.finding[0])
            fprintf(f, "    %s\n", t.finding);
    }
}

static void print_findings(FILE *f, top_model *m, const top_opts *o, uint64_t wall)
{
    char text[800], plain[800];
    const top_findings *fs = &m->find;
    if (fs->state == FIND_OFF)
        return;
    fprintf(f, "\nFINDINGS\n");
    if (!m->remote) {
        /* One reading is not a window: the diagnosis needs minutes of them. */
        char every[32], window[32];
        snprintf(every, sizeof every, fmod(fs->interval_s, 60) == 0 ? "%gm" : "%gs",
                 fmod(fs->interval_s, 60) == 0 ? fs->interval_s / 60 : fs->interval_s);
        snprintf(window, sizeof window, fmod(fs->window_s, 60) == 0 ? "%gm" : "%gs",
                 fmod(fs->window_s, 60) == 0 ? fs->window_s / 60 : fs->window_s);
        fprintf(f,
                "none in a snapshot: top diagnoses its readings while it runs, every %s over the last %s "
                "(gpuwatch diagnose reads the agent's history)\n",
                every, window);
        return;
    }
    if (fs->state != FIND_OK || fs->r.n == 0) {
        findings_status(fs, m->remote, wall, text, sizeof text);
        fprintf(f, "%s\n", text);
        return;
    }
    for (int i = 0; i < fs->r.n; i++) {
        finding_line(&fs->r.f[i], wall, text, sizeof text);
        fprintf(f, "%s\n", o->ascii ? fmt_ascii(plain, sizeof plain, text) : text);
    }
}

static void print_procs(FILE *f, top_model *m)
{
    static char cells[PC_COUNT][PROC_CELL];
    int *order = calloc((size_t)(m->nprocs ? m->nprocs : 1), sizeof *order);
    if (!order)
        return;
    uint64_t now_s = (uint64_t)time(NULL);
    int n = proc_order(m->procs, m->nprocs, "", -1, PC_GPU, 0, now_s, order);
    fprintf(f, "\nPROCESSES (%d)\n", n);
    for (int c = 0; c < PC_COUNT; c++)
        fprintf(f, proc_col_right((proc_col)c) ? "%*s " : "%-*s ", proc_col_width[c], proc_col_names[c]);
    fputc('\n', f);
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

static void snapshot(FILE *f, top_model *m, const top_opts *o)
{
    char head[400], text[400], plain[400];
    uint64_t wall = gw_now_us();
    pthread_mutex_lock(&m->lock);
    top_header_text(m, wall, head, sizeof head);
    fprintf(f, "gpuwatch top  %s%s\n", head, m->versions.simulated ? "  SIMULATED GPUs" : "");
    if (m->hoststat.has_mem)
        fprintf(f, "host memory %.1f GiB of %.1f GiB used\n", m->hoststat.mem_used_mib / 1024.0,
                m->hoststat.mem_total_mib / 1024.0);
    if (m->error[0])
        fprintf(f, "error: %s\n", m->error);
    print_gpus(f, m, o);
    print_procs(f, m);
    fprintf(f, "\nALERTS\n");
    if (m->nalerts == 0)
        fprintf(f, "no alerts\n");
    for (int i = 0; i < m->nalerts; i++) {
        top_alert_text(&m->alerts[i], (int64_t)wall, text, sizeof text);
        fprintf(f, "%s\n", o->ascii ? fmt_ascii(plain, sizeof plain, text) : text);
    }
    print_findings(f, m, o, wall);
    pthread_mutex_unlock(&m->lock);
}

/* The preferences file into o (the defaults when there is none, or when it has a problem: then
 * each problem on stderr and in o->prefs_note, and the file is not written over). */
static void read_prefs(top_opts *o, top_prefs *p, char *path, size_t n)
{
    errlist errs = {0};
    int have_path = top_prefs_path(path, n) == 0;
    struct stat sb;
    if (have_path && stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
        /* a link to /dev/null says "don't save"; a FIFO or a folder is no place for them either */
        snprintf(o->prefs_unsaved, sizeof o->prefs_unsaved, "preferences not saved: %.500s is not a regular file",
                 path);
        top_prefs_defaults(p);
        have_path = 0;
    } else if (have_path && top_prefs_read(path, p, &errs) != 0) {
        for (int i = 0; i < errs.n; i++)
            fprintf(stderr, "gpuwatch top: warning: %s%s\n", errs.msg[i],
                    i == errs.n - 1 ? " (the preferences file is ignored: the defaults apply)" : "");
        snprintf(o->prefs_note, sizeof o->prefs_note, "%.450s%s; the default preferences apply",
                 errs.n ? errs.msg[0] : path, errs.n > 1 ? " (and more: see stderr)" : "");
        have_path = 0;
    }
    errlist_free(&errs);
    o->prefs = p;
    o->prefs_path = have_path ? path : NULL;
    o->interval_s = p->interval_s;
    o->th = p->th;
    o->layout = p->layout;
    o->ascii = p->ascii;
    o->no_color = !p->color;
}

int cmd_top(int argc, char **argv)
{
    setlocale(LC_ALL, "");
    static top_prefs prefs;
    static char prefs_path[4096];
    static top_opts o;
    read_prefs(&o, &prefs, prefs_path, sizeof prefs_path);
    int parsed = parse(argc, argv, &o);
    if (parsed != GW_ARGS_RUN)
        return gw_args_exit(parsed);
    const char *nc = getenv("NO_COLOR");
    if (nc && *nc)
        o.no_color = 1;
    o.ascii_forced = want_ascii();
    if (o.ascii_forced)
        o.ascii = 1;
    if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO))
        o.once = 1;
    /* The alerts engine logs state changes; on the screen they belong to the panel, not stderr. */
    gw_log_set_level(o.once ? GW_LOG_WARN : GW_LOG_ERROR);
    if (o.prometheus)
        return fleet_main_engine(&o);
    if (o.fleet_on) {
        fleet_hosts *h = fleet_list(&o);
        if (!h)
            return 2;
        int rc = fleet_main(&o, h);
        free(h);
        return rc;
    }

    static top_model m;
    if (top_model_init(&m) != 0) {
        fprintf(stderr, "gpuwatch top: out of memory\n");
        return 1;
    }
    /* Local mode runs the agent's alerts and diagnosis plugins on its own samples; a remote agent
     * sends its own alerts and findings. */
    top_source src = {0};
    char err[256] = "";
    int st = o.remote_on ? top_source_remote(&src, &m, &o.remote, err, sizeof err)
                         : top_source_local(&src, &m, &prefs.diag, &o.th, err, sizeof err);
    if (st != 0) {
        fprintf(stderr, "gpuwatch: %s\n", err);
        top_model_free(&m);
        return o.remote_on ? 1 : GW_EXIT_BACKEND;
    }
    int rc = 0;
    if (o.once) {
        top_source_round(&src, &m);
        snapshot(stdout, &m, &o);
        rc = m.error[0] && m.ngpus == 0 ? 1 : 0;
    } else {
        rc = top_run(&src, &m, &o);
    }
    top_source_close(&src);
    top_model_free(&m);
    return rc;
}

void top_options(const char *sub, gw_opt_visit *fn, void *ctx)
{
    gw_args_each_option(&top_cmd, sub, fn, ctx);
}
