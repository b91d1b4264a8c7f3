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
               "                        [--since 1h | --from T --to T] [--step 10s]\n"
               "                        [--agg avg|min|max|last|p50|p90|p95|p99]\n"
               "                        [--format table|csv|json|chart] [--source auto|raw|rollup]\n"
               "                        [--ymin Y] [--ymax Y] [--panels metric|gpu] [--width N] [--height N]\n"
               "       gpuwatch history export [--db PATH] [--since 1h | --from T --to T] [--gpu LIST] --out DIR\n"
               "       gpuwatch history check [FILE]   (what of a damaged file is intact; default the --db file)\n\n"
               "Range queries on the history the agent records (the file is read directly; no agent needed).\n"
               "  --db PATH      history file (default $GPUWATCH_HISTORY_DB, /var/lib/gpuwatch/history.db as root,\n"
               "                 else $XDG_STATE_HOME/gpuwatch/history.db or ~/.local/state/gpuwatch/history.db)\n"
               "  --metric LIST  catalog field names, e.g. utilization.gpu,power.draw (see gpuwatch query --help), or\n"
               "                 expressions over them as in rules: + - * / ( ) and numbers, evaluated per sample and\n"
               "                 GPU before bucketing, e.g. 100*memory.used/memory.total (from raw samples only)\n"
               "  --gpu LIST     GPU indexes: 0,2,5-7 (default all)\n"
               "  --pid PID      one process: memory.used and utilization.gpu (its SM use)\n"
               "  --since T      start (default 1h); --from T --to T a range. T: RFC 3339 (2025-12-02T11:00:00Z),\n"
               "                 Unix seconds, a duration before now (2h, -30m) or now\n"
               "  --step D       bucket width (10s, 1m); 0 = every sample. Buckets start at multiples of D in Unix\n"
               "                 time (--step 1m: at :00 seconds). Default: every sample for csv/json, about 60\n"
               "                 rows for table, one bucket per chart column for chart\n"
               "  --agg A        value of a bucket: avg (default), min, max, last, or the percentile p50, p90, p95,\n"
               "                 p99 of its samples (from raw samples only: not where only roll-ups are kept)\n"
               "  --format F     table (default), csv, json (values as numbers, null where none), chart (braille;\n"
               "                 ASCII unless the locale is UTF-8)\n"
               "  --source S     raw samples or 1-minute roll-ups; auto picks roll-ups when step >= 60 s or the\n"
               "                 range is older than the raw data kept\n"
               "  --ymin Y, --ymax Y  chart y range (default 0-100 for metrics in %%, else the data's)\n"
               "  --panels P     chart panels: metric (default: one per metric, every GPU in it) or gpu (one per\n"
               "                 metric and GPU)\n"
               "  --width N, --height N  chart size (default: the terminal, else 80 x 20)\n"
               "Exit status: 0; 1 when nothing matched (\"no data\" on stderr), the file is missing or damaged;\n"
               "2 for a usage error.\n");
}

typedef enum { FMT_TABLE, FMT_CSV, FMT_JSON, FMT_CHART } out_format;

#define MAX_ITEMS 64 /* metrics or expressions of one query */

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

/* d: the series' metric, NULL for an expression. */
static void format_cell(const metric_def *d, double v, char *out, size_t n)
{
    if (isnan(v))
        snprintf(out, n, "-");
    else if (d && d->kind == MK_BITMASK && v == floor(v) && v >= 0)
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

static void series_name(const hq_request *rq, const hq_series *s, char *out, size_t n)
{
    if (s->pid)
        snprintf(out, n, "gpu%d pid %u %s", s->gpu, s->pid, hq_series_name(rq, s));
    else
        snprintf(out, n, "gpu%d %s", s->gpu, hq_series_name(rq, s));
}

static const metric_def *series_def(const hq_request *rq, const hq_series *s)
{
    return hq_series_unit(rq, s) || !rq->exprs || mexpr_is_field(&rq->exprs[s->item]) ? catalog_get(s->metric) : NULL;
}

static void print_table(const hq_request *rq, const hq_result *r)
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
        char name[400];
        series_name(rq, &r->s[i], name, sizeof name);
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
            char name[400];
            series_name(rq, s, name, sizeof name);
            int w = (int)(strlen(name) > 12 ? strlen(name) : 12);
            while (pos[i] < s->n && s->t[pos[i]] < ts[a])
                pos[i]++;
            if (pos[i] < s->n && s->t[pos[i]] == ts[a]) {
                char cell[64];
                format_cell(series_def(rq, s), s->v[pos[i]], cell, sizeof cell);
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

static void print_csv(const hq_request *rq, const hq_result *r)
{
    printf("time,unix_seconds,gpu,pid,metric,value\n");
    for (size_t i = 0; i < r->n; i++) {
        const hq_series *s = &r->s[i];
        for (size_t j = 0; j < s->n; j++) {
            char tb[40], vb[40];
            tp_format_rfc3339(s->t[j], tb, sizeof tb);
            if (isnan(s->v[j]))
                vb[0] = 0; /* no value */
            else
                hq_format_value(s->v[j], vb, sizeof vb);
            char pid[16] = "";
            if (s->pid)
                snprintf(pid, sizeof pid, "%u", s->pid);
            /* an expression has no comma: the list is split at them */
            printf("%s,%.6f,%d,%s,%s,%s\n", tb, (double)s->t[j] / 1e6, s->gpu, pid, hq_series_name(rq, s), vb);
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

/* What the chart options ask for. */
typedef struct chart_view {
    int width, height;
    int per_gpu; /* --panels gpu */
    int has_ymin, has_ymax;
    double ymin, ymax;
} chart_view;

/* One chart of series sel[0..ns) of r (all of one item). */
static int print_chart(const hq_result *r, const hq_request *rq, const size_t *sel, int ns, const chart_view *v)
{
    chart_series cs[HQ_MAX_GPUS];
    char labels[HQ_MAX_GPUS][48];
    double lo = INFINITY, hi = -INFINITY;
    for (int k = 0; k < ns; k++) {
        const hq_series *s = &r->s[sel[k]];
        if (s->pid)
            snprintf(labels[k], sizeof labels[k], "GPU %d pid %u", s->gpu, s->pid);
        else
            snprintf(labels[k], sizeof labels[k], "GPU %d", s->gpu);
        cs[k] = (chart_series){labels[k], s->t, s->v, s->n};
        for (size_t j = 0; j < s->n; j++) {
            lo = s->v[j] < lo ? s->v[j] : lo;
            hi = s->v[j] > hi ? s->v[j] : hi;
        }
    }
    const hq_series *first = &r->s[sel[0]];
    const char *name = hq_series_name(rq, first), *unit = hq_series_unit(rq, first);
    char title[400], step[48], who[48] = "";
    if (rq->step_us)
        snprintf(step, sizeof step, "%s per %gs", hq_agg_name(rq->agg), (double)rq->step_us / 1e6);
    else
        snprintf(step, sizeof step, "every sample");
    if (rq->pid)
        snprintf(who, sizeof who, " of pid %u", rq->pid);
    if (v->per_gpu)
        snprintf(who + strlen(who), sizeof who - strlen(who), " on GPU %d", first->gpu);
    snprintf(title, sizeof title, "%s%s, %s", name, who, step);
    chart_opts o = {.width = v->width,
                    .height = v->height,
                    .utf8 = chart_locale_utf8(),
                    .color = isatty(STDOUT_FILENO),
                    .title = title,
                    .unit = unit,
                    .from_us = rq->from_us,
                    .to_us = rq->to_us,
                    .gap_us = rq->step_us ? 3 * rq->step_us : 5000000,
                    .has_ymin = v->has_ymin,
                    .has_ymax = v->has_ymax,
                    .ymin = v->ymin,
                    .ymax = v->ymax};
    if (unit && strcmp(unit, "%") == 0) { /* 0-100, unless the data lie outside or the user says */
        if (!o.has_ymin) {
            o.has_ymin = 1;
            o.ymin = lo < 0 ? lo : 0;
        }
        if (!o.has_ymax) {
            o.has_ymax = 1;
            o.ymax = hi > 100 ? hi : 100;
        }
    }
    char *text = chart_render(cs, ns, &o);
    if (!text)
        return -1;
    fputs(text, stdout);
    free(text);
    return 0;
}

/* One chart per item, or per item and GPU (--panels gpu); items without data have none. */
static int print_charts(const hq_result *r, const hq_request *rq, const chart_view *v)
{
    for (int m = 0; m < rq->nmetrics; m++) {
        size_t sel[HQ_MAX_GPUS];
        int ns = 0;
        for (size_t i = 0; i < r->n && ns < HQ_MAX_GPUS; i++)
            if (r->s[i].item == m)
                sel[ns++] = i;
        if (!ns)
            continue;
        if (!v->per_gpu) {
            if (print_chart(r, rq, sel, ns, v) != 0)
                return -1;
            continue;
        }
        for (int k = 0; k < ns; k++)
            if (print_chart(r, rq, &sel[k], 1, v) != 0)
                return -1;
    }
    return 0;
}

/* The comma separated list into expressions (a field alone is one too). Returns the count, or -1
 * after printing the problem. */
static int parse_metric_list(const char *list, metric_expr *exprs, metric_id *ids, int max)
{
    char buf[4096];
    if (strlen(list) >= sizeof buf) {
        fprintf(stderr, "gpuwatch: --metric is too long\n");
        return -1;
    }
    gw_strlcpy(buf, list, sizeof buf);
    int n = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (n == max) {
            fprintf(stderr, "gpuwatch: history: --metric: at most %d metrics at once\n", max);
            return -1;
        }
        char err[400];
        if (mexpr_parse(tok, &exprs[n], err, sizeof err) != 0) {
            fprintf(stderr, "gpuwatch: history: --metric: %s\n", err);
            return -1;
        }
        ids[n] = exprs[n].metrics[0];
        n++;
    }
    return n;
}

/* What was asked, in words, for "no data": "power.draw on GPU 0-3 between T and T in FILE". */
static void say_no_data(const hq_request *rq, const char *gpus, const char *path, const char *why)
{
    char names[1024] = "", t0[40], t1[40];
    for (int i = 0; i < rq->nmetrics; i++) {
        const char *name =
            mexpr_is_field(&rq->exprs[i]) ? catalog_get(rq->exprs[i].metrics[0])->field : rq->exprs[i].text;
        size_t len = strlen(names);
        snprintf(names + len, sizeof names - len, "%s%s", i ? ", " : "", name);
    }
    tp_format_rfc3339(rq->from_us, t0, sizeof t0);
    tp_format_rfc3339(rq->to_us, t1, sizeof t1);
    char who[64];
    if (rq->pid)
        snprintf(who, sizeof who, "of pid %u", rq->pid);
    else if (gpus)
        snprintf(who, sizeof who, "on GPU %s", gpus);
    else
        snprintf(who, sizeof who, "on any GPU");
    fprintf(stderr, "gpuwatch: no data: %s %s between %s and %s in %s%s\n", names, who, t0, t1, path, why);
}

/* Percentiles and expressions where part of the range has roll-ups only: what is left out, or
 * (nothing else) why there is nothing. Returns 1 when nothing is shown. */
static int say_rollups_only(const hq_request *rq, const hq_result *res, const char *gpus, const char *path)
{
    int pct = hq_agg_needs_samples(rq->agg);
    char what[32];
    snprintf(what, sizeof what, "%s%s", pct ? "--agg " : "expressions", pct ? hq_agg_name(rq->agg) : "");
    char since[64], why[400];
    if (res->raw_start_us == INT64_MAX)
        snprintf(since, sizeof since, "no raw samples are kept");
    else {
        char t[40];
        tp_format_rfc3339(res->raw_start_us, t, sizeof t);
        snprintf(since, sizeof since, "raw samples start at %s", t);
    }
    if (res->n) {
        fprintf(stderr,
                "gpuwatch: note: %s; before that only 1-minute roll-ups are kept, which cannot give %s: that part "
                "is left out\n",
                since, what);
        return 0;
    }
    snprintf(why, sizeof why,
             ": only 1-minute roll-ups are kept for this range (%s), and %s need%s raw samples (plain metrics "
             "with --agg avg, min, max or last read roll-ups)",
             since, what, pct ? "s" : "");
    say_no_data(rq, gpus, path, why);
    return 1;
}

/* The query of the parsed command line, printed in fmt. Returns the exit status. */
static int query_and_print(const char *db, const char *metrics, const char *gpus, const char *since, const char *from,
                           const char *to, const char *step, out_format fmt, chart_view *view, hq_request *rqp,
                           metric_expr *exprs, metric_id *ids)
{
    hq_request rq = *rqp;
    if ((rq.nmetrics = parse_metric_list(metrics, exprs, ids, MAX_ITEMS)) < 0)
        return GW_EXIT_USAGE;
    if (rq.nmetrics == 0) {
        fprintf(stderr, "gpuwatch: history: --metric: no metric in '%s' (e.g. --metric utilization.gpu)\n", metrics);
        return GW_EXIT_USAGE;
    }
    rq.metrics = ids;
    rq.exprs = exprs;
    int samples = 0;
    for (int i = 0; i < rq.nmetrics; i++)
        samples |= hq_item_needs_samples(&rq, i);
    if (samples && rq.source == HQ_ROLLUP) {
        fprintf(stderr, "gpuwatch: --source rollup: %s need raw samples; 1-minute roll-ups do not have them\n",
                hq_agg_needs_samples(rq.agg) ? "percentiles" : "expressions");
        return GW_EXIT_USAGE;
    }
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
    if (view->width <= 0)
        view->width = term_w;
    if (view->height <= 0)
        view->height = term_h;
    if (step) {
        if (gw_parse_duration_us(step, &rq.step_us) != 0) {
            fprintf(stderr, "gpuwatch: bad --step '%s'\n", step);
            return GW_EXIT_USAGE;
        }
    } else if (fmt == FMT_TABLE) {
        rq.step_us = nice_step(rq.to_us - rq.from_us, 60);
    } else if (fmt == FMT_CHART) {
        rq.step_us = nice_step(rq.to_us - rq.from_us, 2 * (view->width - 11));
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
    int rc = 0, none = !res.n && !res.damaged;
    if (fmt == FMT_JSON) { /* a document even when empty: what reads it need not tell the cases apart */
        char *text = hq_result_json(st, &rq, &res, HQ_JSON_PRETTY | HQ_JSON_NUMBERS);
        if (text) {
            puts(text);
            free(text);
        } else
            rc = 1;
    } else if (none) {
    } else if (fmt == FMT_TABLE) {
        print_table(&rq, &res);
    } else if (fmt == FMT_CSV) {
        print_csv(&rq, &res);
    } else {
        rc = print_charts(&res, &rq, view) != 0;
    }
    if (res.rollups_only)
        none = say_rollups_only(&rq, &res, gpus, path) || none;
    else if (none)
        say_no_data(&rq, gpus, path, "");
    if (none)
        rc = 1;
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
    static const struct option opts[] = {{"db", required_argument, 0, 'd'},     {"metric", required_argument, 0, 'm'},
                                         {"gpu", required_argument, 0, 'g'},    {"pid", required_argument, 0, 'p'},
                                         {"since", required_argument, 0, 's'},  {"from", required_argument, 0, 'f'},
                                         {"to", required_argument, 0, 't'},     {"step", required_argument, 0, 'S'},
                                         {"agg", required_argument, 0, 'a'},    {"format", required_argument, 0, 'F'},
                                         {"source", required_argument, 0, 'r'}, {"width", required_argument, 0, 'W'},
                                         {"height", required_argument, 0, 'H'}, {"ymin", required_argument, 0, 'y'},
                                         {"ymax", required_argument, 0, 'Y'},   {"panels", required_argument, 0, 'P'},
                                         {"help", no_argument, 0, 'h'},         {0, 0, 0, 0}};
    const char *db = NULL, *metrics = NULL, *gpus = NULL, *since = NULL, *from = NULL, *to = NULL, *step = NULL;
    hq_request rq = {.agg = AGG_AVG};
    out_format fmt = FMT_TABLE;
    chart_view view = {0};
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
                fprintf(stderr, "gpuwatch: --agg is avg, min, max, last, p50, p90, p95 or p99\n");
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
        case 'W':
        case 'H': {
            int w = c == 'W';
            long lo = w ? CHART_MIN_WIDTH : CHART_MIN_HEIGHT, hi = w ? CHART_MAX_WIDTH : CHART_MAX_HEIGHT;
            char *end;
            long v = strtol(optarg, &end, 10);
            if (end == optarg || *end || v < lo || v > hi) {
                fprintf(stderr, "gpuwatch: history: --%s: expected a whole number from %ld to %ld, got '%s'\n",
                        w ? "width" : "height", lo, hi, optarg);
                return GW_EXIT_USAGE;
            }
            *(w ? &view.width : &view.height) = (int)v;
            break;
        }
        case 'y':
        case 'Y': {
            char *end;
            double y = strtod(optarg, &end);
            if (end == optarg || *end || !isfinite(y)) {
                fprintf(stderr, "gpuwatch: bad --%s '%s' (a number)\n", c == 'y' ? "ymin" : "ymax", optarg);
                return GW_EXIT_USAGE;
            }
            if (c == 'y') {
                view.has_ymin = 1;
                view.ymin = y;
            } else {
                view.has_ymax = 1;
                view.ymax = y;
            }
            break;
        }
        case 'P':
            if (strcmp(optarg, "metric") == 0)
                view.per_gpu = 0;
            else if (strcmp(optarg, "gpu") == 0)
                view.per_gpu = 1;
            else {
                fprintf(stderr, "gpuwatch: --panels is metric or gpu\n");
                return GW_EXIT_USAGE;
            }
            break;
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
    if (view.has_ymin && view.has_ymax && view.ymin >= view.ymax) {
        fprintf(stderr, "gpuwatch: --ymin must be below --ymax\n");
        return GW_EXIT_USAGE;
    }
    if (!metrics && rq.pid)
        metrics = "memory.used,utilization.gpu";
    if (!metrics) {
        fprintf(stderr, "gpuwatch: history needs --metric (e.g. --metric utilization.gpu)\n");
        usage(stderr);
        return GW_EXIT_USAGE;
    }
    metric_id ids[MAX_ITEMS];
    metric_expr *exprs = calloc(MAX_ITEMS, sizeof *exprs);
    if (!exprs) {
        fprintf(stderr, "gpuwatch: out of memory\n");
        return 1;
    }
    int rc = query_and_print(db, metrics, gpus, since, from, to, step, fmt, &view, &rq, exprs, ids);
    free(exprs);
    return rc;
}
