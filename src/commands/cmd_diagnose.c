/* cmd_diagnose.c - `gpuwatch diagnose`: fills a window from a source (the history file, a running
 * agent, a live sampling, or a gpusim replay over scenario time), runs the detectors and prints the
 * findings for people (text) or scripts (JSON). Exit status 0 with or without findings. */
#include "diagnose_command.h"
#include "diag.h"
#include "diag_settings.h"
#include "diagnose_sources.h"
#include "history_args.h"
#include "prom_client.h"
#include "sampler.h"
#include "util.h"
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define REPLAY_MAX_S (7 * 86400.0)

static void usage(FILE *f)
{
    fprintf(f, "usage: gpuwatch [--sim SCENARIO] diagnose [SOURCE] [OPTIONS]\n"
               "  Explains why GPUs are slow: input stalls, launch overhead, power and thermal limits,\n"
               "  memory leaks, imbalance, idle GPUs holding memory, PCIe-bound work, hardware faults.\n\n"
               "source (one; default --db with the agent's history file):\n"
               "  --db PATH            a history file (see gpuwatch history)\n"
               "  --host HOST:PORT     a running agent's current findings (/api/v1/findings), with\n"
               "                       --tls, --cacert FILE, --insecure, --user U --password-file F as needed\n"
               "  --live DURATION      sample this machine's GPUs for DURATION, then diagnose\n"
               "  --replay DURATION    sample a gpusim scenario over DURATION of scenario time, at once\n"
               "                       (with --sim; e.g. gpuwatch --sim data-pipeline-stall diagnose --replay 10m)\n"
               "  --prometheus URL     a fleet: every host's GPU series in an engine with the Prometheus API\n"
               "                       (Prometheus, VictoriaMetrics, Thanos, Mimir), gpuwatch's or dcgm-exporter's\n"
               "                       names; findings per host and GPU, ranked by GPU-hours lost\n"
               "    --match SELECTOR   only these series: label matchers, {cluster=\"a\",instance=~\"gpu-.*\"}\n"
               "    --job ID           only the GPUs of this job (1234, slurm:1234, k8s:NAMESPACE/POD)\n"
               "options:\n"
               "  --since DUR | --from T --to T   the range read from --db or --prometheus (default --since 30m)\n"
               "  --interval DUR       sampling interval for --live and --replay (default 1s)\n"
               "  --gpu LIST           only findings about these GPUs (0,2,4-7)\n"
               "  --pid PID            only findings about this process\n"
               "  --config FILE        thresholds from the diagnosis: section of a YAML file (docs/diagnosis.md)\n"
               "  --format text|json   (default text)\n"
               "  --ascii              ASCII charts\n"
               "  --help-thresholds    list every threshold with its default\n");
}

typedef struct options {
    http_client_opts agent;
    history_args h; /* --db and its range, --gpu */
    const char *prometheus, *match, *job;
    const char *config;
    double live_s, replay_s, interval_s;
    long pid;
    int json, ascii, help_thresholds;
} options;

#define AT(field) .off = offsetof(options, field)

static const gw_opt rows[] = {
    HTTP_CLIENT_ROWS(options, agent),
    HISTORY_ARGS_ROWS(options, h),
    {"--live", GW_OPT_DURATION, AT(live_s), .min = 1},
    /* a scenario's time ends after a week (docs/gpusim.md): refused before replaying, not after */
    {"--replay", GW_OPT_DURATION, AT(replay_s), .min = 1, .max = REPLAY_MAX_S,
     .hint = "(a gpusim scenario's time ends after a week)"},
    {"--interval", GW_OPT_DURATION, AT(interval_s), .min = 0.1, .max = 60},
    {"--prometheus", GW_OPT_CUSTOM, AT(prometheus), .check = prom_client_check_url},
    {"--match", GW_OPT_CUSTOM, AT(match), .check = diagnose_match_check},
    {"--job", GW_OPT_TEXT, AT(job)},
    {"--pid", GW_OPT_INT, AT(pid), .min = 1, .max = 4194304},
    {"--config", GW_OPT_FILE, AT(config)},
    {"--format", GW_OPT_CHOICE, AT(json), .choices = "text,json"},
    {"--ascii", GW_OPT_FLAG, AT(ascii)},
    {"--help-thresholds", GW_OPT_FLAG, AT(help_thresholds)},
    {0},
};

static const gw_cmd diagnose_cmd = {.name = "diagnose", .opts = rows, .usage_fn = usage};

/* The options, and the mistakes between them (one source; a range only for --db). */
static int parse(int argc, char **argv, options *o, gw_args *a)
{
    memset(o, 0, sizeof *o);
    o->interval_s = 1;
    o->agent.user_agent = "gpuwatch-diagnose";
    int rc = gw_args_parse(&diagnose_cmd, argc, argv, o, a);
    if (rc != GW_ARGS_RUN)
        return rc;
    int sources = !!o->h.db + !!o->agent.host + (o->live_s > 0) + (o->replay_s > 0) + !!o->prometheus;
    int range = gw_args_given(a, "--since") || gw_args_given(a, "--from") || gw_args_given(a, "--to");
    if (sources > 1)
        return gw_usage_error(a->cmd, "give one source: --db, --host, --live, --replay or --prometheus");
    if (!o->prometheus && (o->match || o->job))
        return gw_usage_error(a->cmd, "%s: it chooses series of --prometheus", o->match ? "--match" : "--job");
    if (o->prometheus && (o->h.gpus || o->pid))
        return gw_usage_error(a->cmd, "%s: --prometheus reads many hosts: choose them with --match or --job",
                              o->h.gpus ? "--gpu" : "--pid");
    if (o->prometheus && o->job && !o->job[0])
        return gw_usage_error(a->cmd, "--job: an empty job id");
    if (range && (o->agent.host || o->live_s > 0 || o->replay_s > 0))
        return gw_usage_error(a->cmd, "%s: --since, --from and --to choose a range of --db or --prometheus",
                              gw_args_given(a, "--since")  ? "--since"
                              : gw_args_given(a, "--from") ? "--from"
                                                           : "--to");
    return http_client_check_args(a);
}

static void list_thresholds(void)
{
    printf("%-36s %10s  %-6s %s\n", "threshold", "default", "unit", "meaning");
    for (int i = 0; i < diag_config_count(); i++) {
        const diag_param *p = diag_config_param(i);
        printf("%-36s %10g  %-6s %s\n", p->name, p->def, p->unit, p->help);
    }
}

/* Thresholds from --config (the diagnosis: section), or the defaults. */
static int load_settings(const char *path, diag_settings *s)
{
    diag_settings_defaults(s);
    if (!path)
        return 0;
    errlist errs = {0};
    gw_doc d;
    if (doc_load_file(&d, path, &errs) == 0) {
        doc_node *root = doc_root(&d);
        doc_node *sec = doc_get(&d, root, "diagnosis");
        diag_settings_read(&d, sec ? sec : root, s);
        doc_free(&d);
    }
    for (int i = 0; i < errs.n; i++)
        fprintf(stderr, "%s\n", errs.msg[i]);
    int rc = errs.n ? -1 : 0;
    errlist_free(&errs);
    return rc;
}

/* The GPUs of --gpu among the window's (those the source had: the machine's, the file's), into
 * sel; any index when the window has none (an agent's findings, an empty range). */
static int select_gpus(const gw_args *a, const options *o, const diag_window *w, unsigned char *sel)
{
    gpu_ident ids[DIAGNOSE_MAX_GPUS];
    int n = w && w->n_gpus > 0 ? (w->n_gpus < DIAGNOSE_MAX_GPUS ? w->n_gpus : DIAGNOSE_MAX_GPUS) : DIAGNOSE_MAX_GPUS;
    for (int g = 0; g < n; g++)
        ids[g] = (gpu_ident){w && g < w->n_gpus && w->gpus[g].known ? w->gpus[g].uuid : NULL, NULL};
    char why[256];
    if (gpu_list_select(o->h.gpus, n, ids, sel, why, sizeof why) != 0)
        return gw_usage_error(a->cmd, "--gpu: %s", why);
    for (int g = n; g < DIAGNOSE_MAX_GPUS; g++)
        sel[g] = 0;
    return GW_ARGS_RUN;
}

/* Keeps the findings about the selected GPUs and process. */
static void filter(diag_report *r, const unsigned char *sel, unsigned pid)
{
    for (int i = r->n - 1; i >= 0; i--) {
        const diag_finding *f = &r->f[i];
        int keep = !sel;
        for (int g = 0; sel && g < f->n_gpus; g++)
            keep |= f->gpus[g] >= 0 && f->gpus[g] < DIAGNOSE_MAX_GPUS && sel[f->gpus[g]];
        if (keep && pid) {
            keep = 0;
            for (int k = 0; k < f->n_pids; k++)
                keep |= f->pids[k] == pid;
        }
        if (!keep)
            diag_report_remove(r, i);
    }
}

static void print(const diag_report *r, const options *o, const char *source)
{
    if (o->json) {
        char *json = diag_report_json(r, 1);
        printf("%s\n", json ? json : "{\"findings\":[]}");
        free(json);
        return;
    }
    char from[40], to[40];
    diag_format_time(r->from_us, from, sizeof from);
    diag_format_time(r->to_us, to, sizeof to);
    printf("gpuwatch diagnose: %s, %s to %s: %d finding%s\n\n", source, from, to, r->n, r->n == 1 ? "" : "s");
    gw_buf out;
    buf_init(&out);
    diag_report_text(r, &out, o->ascii ? DIAG_TEXT_ASCII : 0);
    fwrite(out.data ? out.data : "", 1, out.len, stdout);
    buf_release(&out);
}

/* The report of the source the options name; 0, or an exit status after a message. */
static int diagnose(const gw_args *a, const options *o, const diag_settings *set, diag_report *r, char *source,
                    size_t n, unsigned char *sel)
{
    if (o->agent.host) {
        snprintf(source, n, "agent %s", o->agent.host);
        int rc = diagnose_from_agent(&o->agent, r);
        return rc ? rc : select_gpus(a, o, NULL, sel) == GW_ARGS_RUN ? 0 : GW_EXIT_USAGE;
    }
    diag_window *w = diag_window_new();
    if (!w) {
        fprintf(stderr, "gpuwatch diagnose: out of memory\n");
        return 1;
    }
    int rc;
    if (o->live_s > 0) {
        snprintf(source, n, "%.0f s of live samples", o->live_s);
        rc = diagnose_from_sampler(w, o->live_s, o->interval_s, 0);
    } else if (o->replay_s > 0) {
        snprintf(source, n, "%.0f s of scenario time replayed (%s)", o->replay_s,
                 getenv("GPUSIM_SCENARIO") ? getenv("GPUSIM_SCENARIO") : "gpusim");
        rc = diagnose_from_sampler(w, o->replay_s, o->interval_s, 1);
    } else {
        char path[4096] = "";
        int64_t from_us, to_us;
        rc = history_args_range(a, &o->h, 1800, &from_us, &to_us) == GW_ARGS_RUN ? 0 : GW_EXIT_USAGE;
        if (rc == 0)
            rc = diagnose_history_path(o->h.db, path, sizeof path);
        snprintf(source, n, "history %s", path);
        if (rc == 0)
            rc = diagnose_from_history(w, path, from_us, to_us);
    }
    if (rc == 0 && select_gpus(a, o, w, sel) != GW_ARGS_RUN)
        rc = GW_EXIT_USAGE;
    if (rc == 0 && diag_run(w, &set->cfg, r) < 0) {
        fprintf(stderr, "gpuwatch diagnose: out of memory\n");
        rc = 1;
    }
    diag_window_free(w);
    return rc;
}

/* --prometheus: the fleet's findings, ranked, with the summary line. 0, or an exit status. */
static int diagnose_fleet(const gw_args *a, const options *o, const diag_settings *set)
{
    prom_source_opts po = {.url = o->prometheus, .match = o->match, .job = o->job, .auth = o->agent};
    if (history_args_range(a, &o->h, 1800, &po.from_us, &po.to_us) != GW_ARGS_RUN)
        return GW_EXIT_USAGE;
    po.auth.user_agent = "gpuwatch-diagnose";
    diag_fleet fl;
    int rc = diagnose_from_prometheus(&po, &set->cfg, &fl);
    if (rc == 0 && o->json) {
        char *json = diag_fleet_json(&fl, 1);
        if (json)
            printf("%s\n", json);
        else
            fprintf(stderr, "gpuwatch diagnose: out of memory\n");
        rc = json ? 0 : 1;
        free(json);
    } else if (rc == 0) {
        char from[40], to[40];
        diag_format_time(fl.from_us, from, sizeof from);
        diag_format_time(fl.to_us, to, sizeof to);
        printf("gpuwatch diagnose: engine %s, %s to %s\n", o->prometheus, from, to);
        gw_buf out;
        buf_init(&out);
        diag_fleet_text(&fl, &out, o->ascii ? DIAG_TEXT_ASCII : 0);
        fwrite(out.data ? out.data : "", 1, out.len, stdout);
        buf_release(&out);
    }
    diag_fleet_free(&fl);
    return rc;
}

int cmd_diagnose(int argc, char **argv)
{
    options o;
    gw_args a;
    int rc = parse(argc, argv, &o, &a);
    if (rc != GW_ARGS_RUN)
        return gw_args_exit(rc);
    if (o.help_thresholds) {
        list_thresholds();
        return 0;
    }
    diag_settings set;
    if (load_settings(o.config, &set) != 0)
        return 1;
    if (o.prometheus)
        return diagnose_fleet(&a, &o, &set);
    diag_report r;
    diag_report_init(&r);
    char source[4200] = "";
    unsigned char sel[DIAGNOSE_MAX_GPUS];
    rc = diagnose(&a, &o, &set, &r, source, sizeof source, sel);
    if (rc == 0) {
        filter(&r, o.h.gpus ? sel : NULL, (unsigned)o.pid);
        print(&r, &o, source);
    }
    diag_report_free(&r);
    return rc;
}

void diagnose_options(const char *sub, gw_opt_visit *fn, void *ctx)
{
    gw_args_each_option(&diagnose_cmd, sub, fn, ctx);
}
