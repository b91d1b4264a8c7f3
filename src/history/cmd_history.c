/* cmd_history.c - `gpuwatch history`: range queries on the history file as a table, CSV, JSON or a
 * terminal chart; `history export` is dispatched from here. */
#include "history.h"
#include "chart.h"
#include "cli_common.h"
#include "export.h"
#include "history_check.h"
#include "query_json.h"
#include "timeparse.h"
#include "sampler.h"
#include "util.h"
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static void usage(FILE *f)
{
    fprintf(f, "usage: gpuwatch history [--db PATH] --metric M[,M...] [--gpu LIST] [--pid PID]\n"
               "                        [--since 1h | --from T --to T] [--step 10s] [--agg avg|min|max|last]\n"
               "                        [--format table|csv|json|chart] [--source auto|raw|rollup]\n"
               "       gpuwatch history export [--db PATH] [--since 1h | --from T --to T] [--gpu LIST] --out DIR\n"
               "       gpuwatch history check [FILE]   (what of a damaged file is intact; default the --db file)\n\n"
               "Range queries on the history the agent records (the file is read directly; no agent needed).\n"
               "  --db PATH      history file (default $GPUWATCH_HISTORY_DB, /var/lib/gpuwatch/history.db as root,\n"
               "                 else $XDG_STATE_HOME/gpuwatch/history.db or ~/.local/state/gpuwatch/history.db)\n"
               "  --metric LIST  catalog field names, e.g. utilization.gpu,power.draw (see gpuwatch query --help)\n"
               "  --gpu LIST     GPU indexes: 0,2,5-7 (default all)\n"
               "  --pid PID      one process: memory.used and utilization.gpu (its SM use)\n"
               "  --since T      start (default 1h); --from T --to T a range. T: RFC 3339 (2025-12-02T11:00:00Z),\n"
               "                 Unix seconds, a duration before now (2h, -30m) or now\n"
               "  --step D       bucket width (10s, 1m); 0 = every sample. Default: every sample for csv/json,\n"
               "                 about 60 rows for table, one bucket per chart column for chart\n"
               "  --agg A        value of a bucket: avg (default), min, max, last\n"
               "  --format F     table (default), csv, json, chart (braille; ASCII unless the locale is UTF-8)\n"
               "  --source S     raw samples or 1-minute roll-ups; auto picks roll-ups when step >= 60 s or the\n"
               "                 range is older than the raw data kept\n"
               "  --width N, --height N  chart size (default: the terminal, else 80 x 20)\n");
}

typedef enum { FMT_TABLE, FMT_CSV, FMT_JSON, FMT_CHART } out_format;

/* A step near span/buckets, rounded to 1/2/5 x 10^k seconds (at least one second). */
static int64_t nice_step(int64_t span_us, int buckets)
{
    double s = (double)span_us / 1e6 / buckets;
    if (s <= 1)
        return 1000000;
    double p = pow(10, floor(log10(s)));
    double m = s / p <= 1 ? 1 : s / p <= 2 ? 2 : s / p <= 5 ? 5 : 10;
    return (int64_t)(m * p) * 1000000;
}

static void format_cell(const metric_def *d, double v, char *out, size_t n)
{
    if (d->kind == MK_BITMASK && v == floor(v) && v >= 0)
        snprintf(out, n, "0x%llX", (unsigned long long)v);
    else if (v == floor(v) && fabs(v) < 1e15)
        snprintf(out, n, "%.0f", v);
    else if (fabs(v) >= 100)
        snprintf(out, n, "%.1f", v);
    else
        snprintf(out, n, "%.2f", v);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static void series_name(const hq_series *s, char *out, size_t n)
{
    if (s->pid)
        snprintf(out, n, "gpu%d pid %u %s", s->gpu, s->pid, catalog_get(s->metric)->field);
    else
        snprintf(out, n, "gpu%d %s", s->gpu, catalog_get(s->metric)->field);
}

static void print_table(const hq_result *r)
{
    size_t total = 0;
    for (size_t i = 0; i < r->n; i++)
        total += r->s[i].n;
    int64_t *ts = malloc((total ? total : 1) * sizeof *ts);
    size_t *pos = calloc(r->n ? r->n : 1, sizeof *pos);
    if (!ts || !pos) {
        free(ts);
        free(pos);
        return;
    }
    size_t k = 0;
    for (size_t i = 0; i < r->n; i++)
        for (size_t j = 0; j < r->s[i].n; j++)
            ts[k++] = r->s[i].t[j];
    qsort(ts, total, sizeof *ts, cmp_i64);
    printf("%-24s", "time");
    for (size_t i = 0; i < r->n; i++) {
        char name[160];
        series_name(&r->s[i], name, sizeof name);
        printf("  %*s", (int)(strlen(name) > 12 ? strlen(name) : 12), name);
    }
    printf("\n");
    for (size_t a = 0; a < total; a++) {
        if (a && ts[a] == ts[a - 1])
            continue;
        char tb[40];
        tp_format_rfc3339(ts[a], tb, sizeof tb);
        printf("%-24s", tb);
        for (size_t i = 0; i < r->n; i++) {
            const hq_series *s = &r->s[i];
            char name[160];
            series_name(s, name, sizeof name);
            int w = (int)(strlen(name) > 12 ? strlen(name) : 12);
            while (pos[i] < s->n && s->t[pos[i]] < ts[a])
                pos[i]++;
            if (pos[i] < s->n && s->t[pos[i]] == ts[a]) {
                char cell[64];
                format_cell(catalog_get(s->metric), s->v[pos[i]], cell, sizeof cell);
                printf("  %*s", w, cell);
            } else {
                printf("  %*s", w, "-");
            }
        }
        printf("\n");
    }
    free(ts);
    free(pos);
}

static void print_csv(const hq_result *r)
{
    printf("time,unix_seconds,gpu,pid,metric,value\n");
    for (size_t i = 0; i < r->n; i++) {
        const hq_series *s = &r->s[i];
        for (size_t j = 0; j < s->n; j++) {
            char tb[40], vb[40];
            tp_format_rfc3339(s->t[j], tb, sizeof tb);
            hq_format_value(s->v[j], vb, sizeof vb);
            char pid[16] = "";
            if (s->pid)
                snprintf(pid, sizeof pid, "%u", s->pid);
            printf("%s,%.6f,%d,%s,%s,%s\n", tb, (double)s->t[j] / 1e6, s->gpu, pid, catalog_get(s->metric)->field, vb);
        }
    }
}

static void terminal_size(int *w, int *h)
{
    struct winsize ws;
    if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40 && ws.ws_row >= 10) {
        *w = ws.ws_col;
        *h = ws.ws_row - 2 < 30 ? ws.ws_row - 2 : 30;
    } else {
        *w = 80;
        *h = 20;
    }
}

static int print_charts(const hq_result *r, const hq_request *rq, int width, int height)
{
    static const char *aggs[] = {"avg", "min", "max", "last"};
    int utf8 = chart_locale_utf8();
    for (int m = 0; m < rq->nmetrics; m++) {
        chart_series cs[HQ_MAX_GPUS];
        char labels[HQ_MAX_GPUS][32];
        int ns = 0;
        for (size_t i = 0; i < r->n && ns < HQ_MAX_GPUS; i++) {
            if (r->s[i].metric != rq->metrics[m])
                continue;
            snprintf(labels[ns], sizeof labels[ns], "gpu%d", r->s[i].gpu);
            cs[ns] = (chart_series){labels[ns], r->s[i].t, r->s[i].v, r->s[i].n};
            ns++;
        }
        const metric_def *d = catalog_get(rq->metrics[m]);
        char title[200], step[32];
        if (rq->step_us)
            snprintf(step, sizeof step, "%s per %gs", aggs[rq->agg], (double)rq->step_us / 1e6);
        else
            snprintf(step, sizeof step, "every sample");
        snprintf(title, sizeof title, "%s%s%s, %s%s", d->field, rq->pid ? " of pid " : "", "", step,
                 ns ? "" : " (no data in this range)");
        chart_opts o = {.width = width,
                        .height = height,
                        .utf8 = utf8,
                        .color = isatty(STDOUT_FILENO),
                        .title = title,
                        .unit = d->unit,
                        .from_us = rq->from_us,
                        .to_us = rq->to_us,
                        .gap_us = rq->step_us ? 3 * rq->step_us : 5000000};
        char *text = chart_render(cs, ns, &o);
        if (!text)
            return -1;
        fputs(text, stdout);
        free(text);
    }
    return 0;
}

static int parse_metric_list(const char *list, metric_id *ids, int max)
{
    char buf[2048];
    gw_strlcpy(buf, list, sizeof buf);
    int n = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        const metric_def *d = catalog_find(tok);
        if (!d || metric_is_string(d->id)) {
            fprintf(stderr, "gpuwatch: unknown metric '%s' (numeric catalog field names, e.g. utilization.gpu)\n", tok);
            return -1;
        }
        if (n < max)
            ids[n++] = d->id;
    }
    return n;
}

/* `history check [FILE | --db FILE]`: 0 whole, 1 damaged or unreadable, 2 usage. */
static int check_cmd(int argc, char **argv)
{
    const char *db = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--db") == 0 && i + 1 < argc && !db)
            db = argv[++i];
        else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            printf("usage: gpuwatch history check [FILE]\n"
                   "Reads every part of a history file; prints what is intact and what is damaged.\n"
                   "Exit status 0: whole; 1: damaged (or not a history file).\n");
            return 0;
        } else if (argv[i][0] != '-' && !db)
            db = argv[i];
        else {
            fprintf(stderr, "gpuwatch: history check: unexpected '%s'\n", argv[i]);
            return GW_EXIT_USAGE;
        }
    }
    char path[4096];
    hcli_db_path(db, path, sizeof path);
    if (access(path, F_OK) != 0) {
        fprintf(stderr, "gpuwatch: no history file at %s\n", path);
        return 1;
    }
    return history_check(path, stdout) == 0 ? 0 : 1;
}

int cmd_history(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "export") == 0)
        return history_export_cmd(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "check") == 0)
        return check_cmd(argc - 1, argv + 1);
    static const struct option opts[] = {{"db", required_argument, 0, 'd'},
                                         {"metric", required_argument, 0, 'm'},
                                         {"gpu", required_argument, 0, 'g'},
                                         {"pid", required_argument, 0, 'p'},
                                         {"since", required_argument, 0, 's'},
                                         {"from", required_argument, 0, 'f'},
                                         {"to", required_argument, 0, 't'},
                                         {"step", required_argument, 0, 'S'},
                                         {"agg", required_argument, 0, 'a'},
                                         {"format", required_argument, 0, 'F'},
                                         {"source", required_argument, 0, 'r'},
                                         {"width", required_argument, 0, 'W'},
                                         {"height", required_argument, 0, 'H'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *db = NULL, *metrics = NULL, *gpus = NULL, *since = NULL, *from = NULL, *to = NULL, *step = NULL;
    hq_request rq = {.agg = AGG_AVG};
    out_format fmt = FMT_TABLE;
    int width = 0, height = 0;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'd': db = optarg; break;
        case 'm': metrics = optarg; break;
        case 'g': gpus = optarg; break;
        case 'p': {
            char *end;
            unsigned long v = strtoul(optarg, &end, 10);
            if (*end || !v || v > 0xFFFFFFFFul) {
                fprintf(stderr, "gpuwatch: bad --pid '%s'\n", optarg);
                return GW_EXIT_USAGE;
            }
            rq.pid = (unsigned)v;
            break;
        }
        case 's': since = optarg; break;
        case 'f': from = optarg; break;
        case 't': to = optarg; break;
        case 'S': step = optarg; break;
        case 'a':
            if (hq_parse_agg(optarg, &rq.agg) != 0) {
                fprintf(stderr, "gpuwatch: --agg is avg, min, max or last\n");
                return GW_EXIT_USAGE;
            }
            break;
        case 'F':
            if (strcmp(optarg, "table") == 0)
                fmt = FMT_TABLE;
            else if (strcmp(optarg, "csv") == 0)
                fmt = FMT_CSV;
            else if (strcmp(optarg, "json") == 0)
                fmt = FMT_JSON;
            else if (strcmp(optarg, "chart") == 0)
                fmt = FMT_CHART;
            else {
                fprintf(stderr, "gpuwatch: --format is table, csv, json or chart\n");
                return GW_EXIT_USAGE;
            }
            break;
        case 'r':
            if (strcmp(optarg, "auto") == 0)
                rq.source = HQ_AUTO;
            else if (strcmp(optarg, "raw") == 0)
                rq.source = HQ_RAW;
            else if (strcmp(optarg, "rollup") == 0)
                rq.source = HQ_ROLLUP;
            else {
                fprintf(stderr, "gpuwatch: --source is auto, raw or rollup\n");
                return GW_EXIT_USAGE;
            }
            break;
        case 'W': width = atoi(optarg); break;
        case 'H': height = atoi(optarg); break;
        case 'h': usage(stdout); return 0;
        default:
            fprintf(stderr, "gpuwatch: history: bad option '%s'\n", argv[optind - 1]);
            usage(stderr);
            return GW_EXIT_USAGE;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "gpuwatch: history: unexpected '%s'\n", argv[optind]);
        return GW_EXIT_USAGE;
    }
    metric_id ids[M_COUNT];
    if (!metrics && rq.pid)
        metrics = "memory.used,utilization.gpu";
    if (!metrics) {
        fprintf(stderr, "gpuwatch: history needs --metric (e.g. --metric utilization.gpu)\n");
        usage(stderr);
        return GW_EXIT_USAGE;
    }
    if ((rq.nmetrics = parse_metric_list(metrics, ids, M_COUNT)) <= 0)
        return GW_EXIT_USAGE;
    rq.metrics = ids;
    unsigned char sel[HQ_MAX_GPUS];
    if (gpus) {
        if (gw_parse_index_list(gpus, sel, HQ_MAX_GPUS) != 0) {
            fprintf(stderr, "gpuwatch: bad --gpu '%s'\n", gpus);
            return GW_EXIT_USAGE;
        }
        rq.gpus = sel;
    }
    if (hcli_range(since, from, to, &rq.from_us, &rq.to_us) != 0)
        return GW_EXIT_USAGE;
    int term_w, term_h;
    terminal_size(&term_w, &term_h);
    if (width <= 0)
        width = term_w;
    if (height <= 0)
        height = term_h;
    if (step) {
        if (gw_parse_duration_us(step, &rq.step_us) != 0) {
            fprintf(stderr, "gpuwatch: bad --step '%s'\n", step);
            return GW_EXIT_USAGE;
        }
    } else if (fmt == FMT_TABLE) {
        rq.step_us = nice_step(rq.to_us - rq.from_us, 60);
    } else if (fmt == FMT_CHART) {
        rq.step_us = nice_step(rq.to_us - rq.from_us, 2 * (width - 11));
    }
    char path[4096];
    hcli_db_path(db, path, sizeof path);
    store *st = hcli_open(path);
    if (!st)
        return 1;
    hq_result res;
    char err[300];
    if (hq_run(st, &rq, &res, err, sizeof err) != 0) {
        fprintf(stderr, "gpuwatch: %s\n", err);
        store_close(st);
        return 1;
    }
    int rc = 0;
    if (fmt == FMT_TABLE) {
        if (!res.n && !res.damaged)
            printf("no data for these metrics and GPUs between the times given\n");
        else
            print_table(&res);
    } else if (fmt == FMT_CSV) {
        print_csv(&res);
    } else if (fmt == FMT_JSON) {
        char *text = hq_result_json(st, &rq, &res, 1);
        if (text) {
            puts(text);
            free(text);
        } else
            rc = 1;
    } else {
        rc = print_charts(&res, &rq, width, height) != 0;
    }
    if (res.damaged) {
        char warn[300];
        hq_damage_warning(&res, warn, sizeof warn);
        fprintf(stderr, "gpuwatch: warning: %s\n", warn);
        rc = 1;
    }
    hq_free(&res);
    store_close(st);
    return rc;
}
