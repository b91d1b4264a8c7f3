/* cmd_diagnose.c - `gpuwatch diagnose`: fills a window from a source (the history file, a running
 * agent, a live sampling, or a gpusim replay over scenario time), runs the detectors and prints the
 * findings for people (text) or scripts (JSON). Exit status 0 with or without findings. */
#include "diag.h"
#include "diag_settings.h"
#include "diag_sources.h"
#include "options.h"
#include "session.h"
#include "timeparse.h"
#include "util.h"
#include <getopt.h>
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
               "options:\n"
               "  --since DUR | --from T --to T   the range read from --db (default --since 30m)\n"
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
    const char *db, *since, *from, *to, *gpus, *config;
    double live_s, replay_s, interval_s;
    unsigned pid;
    int json, ascii, help_thresholds;
} options;

static int bad(const char *fmt, const char *arg)
{
    fprintf(stderr, "gpuwatch diagnose: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (gpuwatch diagnose --help)\n");
    return GW_EXIT_USAGE;
}

static int parse(int argc, char **argv, options *o)
{
    enum {
        O_DB = 256,
        O_HOST,
        O_TLS,
        O_CACERT,
        O_INSECURE,
        O_USER,
        O_PASSWORD_FILE,
        O_LIVE,
        O_REPLAY,
        O_SINCE,
        O_FROM,
        O_TO,
        O_INTERVAL,
        O_GPU,
        O_PID,
        O_CONFIG,
        O_FORMAT,
        O_ASCII,
        O_THRESHOLDS
    };
    static const struct option longs[] = {
        {"db", required_argument, 0, O_DB},
        {"host", required_argument, 0, O_HOST},
        {"tls", no_argument, 0, O_TLS},
        {"cacert", required_argument, 0, O_CACERT},
        {"insecure", no_argument, 0, O_INSECURE},
        {"user", required_argument, 0, O_USER},
        {"password-file", required_argument, 0, O_PASSWORD_FILE},
        {"live", required_argument, 0, O_LIVE},
        {"replay", required_argument, 0, O_REPLAY},
        {"since", required_argument, 0, O_SINCE},
        {"from", required_argument, 0, O_FROM},
        {"to", required_argument, 0, O_TO},
        {"interval", required_argument, 0, O_INTERVAL},
        {"gpu", required_argument, 0, O_GPU},
        {"pid", required_argument, 0, O_PID},
        {"config", required_argument, 0, O_CONFIG},
        {"format", required_argument, 0, O_FORMAT},
        {"ascii", no_argument, 0, O_ASCII},
        {"help-thresholds", no_argument, 0, O_THRESHOLDS},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    memset(o, 0, sizeof *o);
    o->interval_s = 1;
    o->agent.user_agent = "gpuwatch-diagnose";
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "h", longs, NULL)) != -1) {
        const char *v = optarg;
        switch (c) {
        case 'h': usage(stdout); return CLI_HELP;
        case O_DB: o->db = v; break;
        case O_HOST: o->agent.host = v; break;
        case O_TLS: o->agent.tls = 1; break;
        case O_CACERT: o->agent.cacert = v; break;
        case O_INSECURE: o->agent.insecure = 1; break;
        case O_USER: o->agent.user = v; break;
        case O_PASSWORD_FILE: o->agent.password_file = v; break;
        case O_LIVE:
            if (gw_parse_duration(v, &o->live_s) != 0 || o->live_s < 1)
                return bad("--live '%s': a duration of at least 1s", v);
            break;
        case O_REPLAY:
            /* a scenario's time ends after a week (docs/gpusim.md): refused before replaying, not after */
            if (gw_parse_duration(v, &o->replay_s) != 0 || o->replay_s < 1 || o->replay_s > REPLAY_MAX_S)
                return bad("--replay '%s': a duration from 1s to 7d (a gpusim scenario's time ends after a week)", v);
            break;
        case O_SINCE: o->since = v; break;
        case O_FROM: o->from = v; break;
        case O_TO: o->to = v; break;
        case O_INTERVAL:
            if (gw_parse_duration(v, &o->interval_s) != 0 || o->interval_s < 0.1 || o->interval_s > 60)
                return bad("--interval '%s': a duration from 100ms to 1m", v);
            break;
        case O_GPU: o->gpus = v; break;
        case O_PID: {
            char *end;
            long pid = strtol(v, &end, 10);
            if (*end || end == v || pid <= 0 || pid > 4194304)
                return bad("--pid '%s': a process id", v);
            o->pid = (unsigned)pid;
            break;
        }
        case O_CONFIG: o->config = v; break;
        case O_FORMAT:
            if (strcmp(v, "json") && strcmp(v, "text"))
                return bad("--format '%s': text or json", v);
            o->json = strcmp(v, "json") == 0;
            break;
        case O_ASCII: o->ascii = 1; break;
        case O_THRESHOLDS: o->help_thresholds = 1; break;
        default: return bad("unknown option or missing value: '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return bad("unexpected argument '%s'", argv[optind]);
    int sources = !!o->db + !!o->agent.host + (o->live_s > 0) + (o->replay_s > 0);
    if (sources > 1)
        return bad("%s", "give one source: --db, --host, --live or --replay");
    if ((o->since || o->from || o->to) && (o->agent.host || o->live_s > 0 || o->replay_s > 0))
        return bad("%s", "--since, --from and --to choose a range of --db");
    if (o->since && (o->from || o->to))
        return bad("%s", "--since or --from/--to, not both");
    return CLI_RUN;
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

/* Keeps the findings about the selected GPUs and process. */
static void filter(diag_report *r, const unsigned char *sel, unsigned pid)
{
    for (int i = r->n - 1; i >= 0; i--) {
        const diag_finding *f = &r->f[i];
        int keep = !sel;
        for (int g = 0; sel && g < f->n_gpus; g++)
            keep |= f->gpus[g] >= 0 && f->gpus[g] < DIAG_SOURCE_MAX_GPUS && sel[f->gpus[g]];
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

int cmd_diagnose(int argc, char **argv)
{
    options o;
    int rc = parse(argc, argv, &o);
    if (rc != CLI_RUN)
        return rc == CLI_HELP ? 0 : rc;
    if (o.help_thresholds) {
        list_thresholds();
        return 0;
    }
    diag_settings set;
    if (load_settings(o.config, &set) != 0)
        return 1;
    unsigned char sel[DIAG_SOURCE_MAX_GPUS];
    if (o.gpus && gw_parse_index_list(o.gpus, sel, DIAG_SOURCE_MAX_GPUS) != 0)
        return bad("--gpu '%s': indexes like 0,2,4-7", o.gpus);
    diag_report r;
    diag_report_init(&r);
    char source[4200];
    if (o.agent.host) {
        snprintf(source, sizeof source, "agent %s", o.agent.host);
        rc = diag_from_agent(&o.agent, &r);
    } else {
        diag_window *w = diag_window_new();
        if (!w) {
            fprintf(stderr, "gpuwatch diagnose: out of memory\n");
            return 1;
        }
        if (o.live_s > 0) {
            snprintf(source, sizeof source, "%.0f s of live samples", o.live_s);
            rc = diag_from_sampler(w, o.live_s, o.interval_s, 0);
        } else if (o.replay_s > 0) {
            snprintf(source, sizeof source, "%.0f s of scenario time replayed (%s)", o.replay_s,
                     getenv("GPUSIM_SCENARIO") ? getenv("GPUSIM_SCENARIO") : "gpusim");
            rc = diag_from_sampler(w, o.replay_s, o.interval_s, 1);
        } else {
            char path[4096];
            rc = diag_history_path(o.db, path, sizeof path);
            snprintf(source, sizeof source, "history %s", path);
            if (rc == 0)
                rc = diag_from_history(w, path, o.since, o.from, o.to);
        }
        if (rc == 0 && diag_run(w, &set.cfg, &r) < 0) {
            fprintf(stderr, "gpuwatch diagnose: out of memory\n");
            rc = 1;
        }
        diag_window_free(w);
    }
    if (rc == 0) {
        filter(&r, o.gpus ? sel : NULL, o.pid);
        print(&r, &o, source);
    }
    diag_report_free(&r);
    return rc;
}
