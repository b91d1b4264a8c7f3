/* export.c - writes a recorded range as a gpusim scenario: per GPU a CSV trace (csv generator) for
 * the metrics that vary, constants as numbers, never-seen metrics as unsupported, processes with
 * their own traces, XIDs as events and lost windows as faults. */
#include "export.h"
#include "cli_common.h"
#include "codec.h"
#include "query.h"
#include "query_json.h"
#include "timeparse.h"
#include "sampler.h"
#include "text.h"
#include "util.h"
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int exportable(metric_id m)
{
    return !metric_is_string(m) && m != M_INDEX && !(catalog_get(m)->flags & MF_BIT);
}

/* A recorded name (a GPU's, a process's, a user's: short) as a YAML double-quoted string, cleaned
 * first: the history keeps what the system said, which need not be UTF-8 (a process may name
 * itself anything), and a scenario must be. */
static void yaml_str(FILE *f, const char *s)
{
    char text[1024];
    gw_strlcpy(text, s, sizeof text);
    gw_clean_text(text);
    fputc('"', f);
    for (const char *p = text; *p; p++) {
        if (*p == '"' || *p == '\\')
            fputc('\\', f);
        fputc(*p, f);
    }
    fputc('"', f);
}

static const char *preset_for(const char *name)
{
    if (strstr(name, "H200"))
        return "h200-sxm";
    if (strstr(name, "A100"))
        return "a100-sxm";
    if (strstr(name, "4080"))
        return "rtx4080";
    if (strstr(name, " L4"))
        return "l4";
    return "h100-sxm";
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Writes the varying series of one GPU (or process) as CSV: t, then one column per series; a value
 * missing at a row's time repeats the nearest earlier one (gpusim needs every cell). */
static int write_trace(const char *path, hq_series **s, const char **names, int ns, int64_t t0)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    size_t total = 0;
    for (int i = 0; i < ns; i++)
        total += s[i]->n;
    int64_t *ts = malloc((total ? total : 1) * sizeof *ts);
    size_t *pos = calloc((size_t)ns + 1, sizeof *pos);
    if (!ts || !pos) {
        free(ts);
        free(pos);
        fclose(f);
        return -1;
    }
    size_t k = 0;
    for (int i = 0; i < ns; i++)
        for (size_t j = 0; j < s[i]->n; j++)
            ts[k++] = s[i]->t[j];
    qsort(ts, total, sizeof *ts, cmp_i64);
    fprintf(f, "t");
    for (int i = 0; i < ns; i++)
        fprintf(f, ",%s", names[i]);
    fprintf(f, "\n");
    char num[40];
    for (size_t a = 0; a < total; a++) {
        if (a && ts[a] == ts[a - 1])
            continue;
        fprintf(f, "%.6f", (double)(ts[a] - t0) / 1e6);
        for (int i = 0; i < ns; i++) {
            while (pos[i] + 1 < s[i]->n && s[i]->t[pos[i] + 1] <= ts[a])
                pos[i]++;
            hq_format_value(s[i]->v[pos[i]], num, sizeof num);
            fprintf(f, ",%s", num);
        }
        fprintf(f, "\n");
    }
    free(ts);
    free(pos);
    return fclose(f) == 0 ? 0 : -1;
}

static int constant_series(const hq_series *s)
{
    for (size_t i = 1; i < s->n; i++)
        if (s->v[i] != s->v[0])
            return 0;
    return 1;
}

static int export_gpu(FILE *y, store *st, const hq_result *r, int gpu, int64_t t0, const char *dir)
{
    const char *name = "NVIDIA H100 80GB HBM3";
    char uuid[128] = "", namebuf[128] = "";
    sqlite3_stmt *q = NULL;
    if (sqlite3_prepare_v2(store_db(st), "SELECT name, uuid FROM gpus WHERE idx=?", -1, &q, NULL) == SQLITE_OK) {
        sqlite3_bind_int(q, 1, gpu);
        if (sqlite3_step(q) == SQLITE_ROW) {
            if (sqlite3_column_text(q, 0)) {
                gw_strlcpy(namebuf, (const char *)sqlite3_column_text(q, 0), sizeof namebuf);
                name = namebuf;
            }
            if (sqlite3_column_text(q, 1))
                gw_strlcpy(uuid, (const char *)sqlite3_column_text(q, 1), sizeof uuid);
        }
    }
    sqlite3_finalize(q);
    fprintf(y, "  - preset: %s\n    name: ", preset_for(name));
    yaml_str(y, name);
    fprintf(y, "\n");
    if (uuid[0]) {
        fprintf(y, "    uuid: ");
        yaml_str(y, uuid);
        fprintf(y, "\n");
    }
    hq_series *vary[M_COUNT];
    const char *names[M_COUNT];
    int nv = 0, seen[M_COUNT] = {0};
    fprintf(y, "    metrics:\n");
    char num[40];
    for (size_t i = 0; i < r->n; i++) {
        const hq_series *s = &r->s[i];
        if (s->gpu != gpu)
            continue;
        seen[s->metric] = 1;
        if (constant_series(s)) {
            hq_format_value(s->v[0], num, sizeof num);
            fprintf(y, "      %s: %s\n", catalog_get(s->metric)->field, num);
        } else {
            vary[nv] = (hq_series *)s;
            names[nv++] = catalog_get(s->metric)->field;
        }
    }
    char file[64], path[4200];
    snprintf(file, sizeof file, "gpu%d.csv", gpu);
    for (int i = 0; i < nv; i++)
        fprintf(y, "      %s: {csv: {file: %s, column: %s}}\n", names[i], file, names[i]);
    snprintf(path, sizeof path, "%s/%s", dir, file);
    if (nv && write_trace(path, vary, names, nv, t0) != 0)
        return -1;
    int first = 1;
    for (int m = M_STR_END; m < M_COUNT; m++)
        if (exportable((metric_id)m) && !seen[m]) {
            fprintf(y, "%s%s", first ? "    unsupported: [" : ", ", catalog_get((metric_id)m)->field);
            first = 0;
        }
    if (!first)
        fprintf(y, "]\n");
    return 0;
}

/* Processes seen on a GPU in the range, each with its memory and SM traces. */
static int export_procs(FILE *y, store *st, int gpu, int64_t from, int64_t to, int64_t t0, const char *dir)
{
    sqlite3_stmt *q = NULL;
    if (sqlite3_prepare_v2(store_db(st),
                           "SELECT DISTINCT p.pid, p.name, p.user, p.container FROM procs p"
                           " WHERE p.gpu=?1 AND p.last_seen>=?2 AND p.first_seen<=?3 ORDER BY p.pid",
                           -1, &q, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_int(q, 1, gpu);
    sqlite3_bind_int64(q, 2, from);
    sqlite3_bind_int64(q, 3, to);
    int first = 1, rc = 0;
    while (rc == 0 && sqlite3_step(q) == SQLITE_ROW) {
        unsigned pid = (unsigned)sqlite3_column_int64(q, 0);
        metric_id ids[2] = {M_MEM_USED, M_UTIL_GPU};
        unsigned char sel[HQ_MAX_GPUS] = {0};
        sel[gpu] = 1;
        hq_request rq = {
            .metrics = ids, .nmetrics = 2, .gpus = sel, .pid = pid, .from_us = from, .to_us = to, .source = HQ_RAW};
        hq_result r;
        char err[200];
        if (hq_run(st, &rq, &r, err, sizeof err) != 0) {
            rc = -1;
            break;
        }
        if (r.n == 0) {
            hq_free(&r);
            continue;
        }
        if (first)
            fprintf(y, "    processes:\n");
        first = 0;
        fprintf(y, "      - pid: %u\n        type: C\n", pid);
        const char *keys[] = {"name", "user", "container"};
        for (int i = 0; i < 3; i++) {
            const char *v = (const char *)sqlite3_column_text(q, 1 + i);
            if (v && *v) {
                fprintf(y, "        %s: ", keys[i]);
                yaml_str(y, v);
                fprintf(y, "\n");
            }
        }
        int64_t start = INT64_MAX, end = INT64_MIN;
        hq_series *vary[2];
        const char *cols[2];
        int nv = 0;
        char file[64], path[4200], num[40];
        snprintf(file, sizeof file, "gpu%d_pid%u.csv", gpu, pid);
        for (size_t i = 0; i < r.n; i++) {
            hq_series *s = &r.s[i];
            const char *key = s->metric == M_MEM_USED ? "memory_mib" : "sm";
            if (s->t[0] < start)
                start = s->t[0];
            if (s->t[s->n - 1] > end)
                end = s->t[s->n - 1];
            if (constant_series(s)) {
                hq_format_value(s->v[0], num, sizeof num);
                fprintf(y, "        %s: %s\n", key, num);
            } else {
                fprintf(y, "        %s: {csv: {file: %s, column: %s}}\n", key, file, key);
                vary[nv] = s;
                cols[nv++] = key;
            }
        }
        fprintf(y, "        start: %.3fs\n", (double)(start > t0 ? start - t0 : 0) / 1e6);
        if (end < to - 5000000)
            fprintf(y, "        end: %.3fs\n", (double)(end - t0) / 1e6 + 1);
        snprintf(path, sizeof path, "%s/%s", dir, file);
        if (nv && write_trace(path, vary, cols, nv, t0) != 0)
            rc = -1;
        hq_free(&r);
    }
    sqlite3_finalize(q);
    return rc;
}

/* XIDs as events, lost/back pairs as lost windows. */
static void export_events(FILE *y, store *st, int64_t from, int64_t to, int64_t t0, const unsigned char *sel)
{
    sqlite3_stmt *q = NULL;
    if (sqlite3_prepare_v2(store_db(st), "SELECT t, gpu, kind, detail FROM events WHERE t>=? AND t<=? ORDER BY t", -1,
                           &q, NULL) != SQLITE_OK)
        return;
    sqlite3_bind_int64(q, 1, from);
    sqlite3_bind_int64(q, 2, to);
    int ev_first = 1;
    int64_t lost_at[HQ_MAX_GPUS];
    for (int g = 0; g < HQ_MAX_GPUS; g++)
        lost_at[g] = -1;
    char faults[8192] = "";
    size_t fl = 0;
    while (sqlite3_step(q) == SQLITE_ROW) {
        int64_t t = sqlite3_column_int64(q, 0);
        int gpu = sqlite3_column_int(q, 1);
        const char *kind = (const char *)sqlite3_column_text(q, 2), *detail = (const char *)sqlite3_column_text(q, 3);
        if (gpu < 0 || gpu >= HQ_MAX_GPUS || (sel && !sel[gpu]) || !kind)
            continue;
        double at = (double)(t - t0) / 1e6;
        unsigned xid;
        if (strcmp(kind, "xid") == 0 && detail && sscanf(detail, "xid=%u", &xid) == 1) {
            fprintf(y, "%s  - {at: %.3fs, gpu: %d, xid: %u}\n", ev_first ? "events:\n" : "", at, gpu, xid);
            ev_first = 0;
        } else if (strcmp(kind, "gpu_lost") == 0) {
            lost_at[gpu] = t;
        } else if (strcmp(kind, "gpu_back") == 0 && lost_at[gpu] >= 0 && fl < sizeof faults - 100) {
            fl += (size_t)snprintf(faults + fl, sizeof faults - fl, "  - {gpu: %d, lost: {from: %.3fs, to: %.3fs}}\n",
                                   gpu, (double)(lost_at[gpu] - t0) / 1e6, at);
            lost_at[gpu] = -1;
        }
    }
    sqlite3_finalize(q);
    for (int g = 0; g < HQ_MAX_GPUS; g++)
        if (lost_at[g] >= 0 && fl < sizeof faults - 100)
            fl += (size_t)snprintf(faults + fl, sizeof faults - fl, "  - {gpu: %d, lost: {from: %.3fs}}\n", g,
                                   (double)(lost_at[g] - t0) / 1e6);
    if (fl)
        fprintf(y, "faults:\n%s", faults);
}

int history_export(store *st, int64_t from_us, int64_t to_us, const unsigned char *sel, const char *dir, char *err,
                   size_t n)
{
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        snprintf(err, n, "cannot create %s: %s", dir, strerror(errno));
        return -1;
    }
    metric_id ids[M_COUNT];
    int nm = 0;
    for (int m = M_STR_END; m < M_COUNT; m++)
        if (exportable((metric_id)m))
            ids[nm++] = (metric_id)m;
    hq_request rq = {.metrics = ids, .nmetrics = nm, .gpus = sel, .from_us = from_us, .to_us = to_us, .source = HQ_RAW};
    hq_result r;
    if (hq_run(st, &rq, &r, err, n) != 0)
        return -1;
    if (r.n == 0) {
        snprintf(err, n, "no recorded samples in this range");
        hq_free(&r);
        return -1;
    }
    int64_t t0 = INT64_MAX;
    for (size_t i = 0; i < r.n; i++)
        if (r.s[i].t[0] < t0)
            t0 = r.s[i].t[0];
    char path[4200];
    snprintf(path, sizeof path, "%s/scenario.yaml", dir);
    FILE *y = fopen(path, "w");
    if (!y) {
        snprintf(err, n, "cannot write %s: %s", path, strerror(errno));
        hq_free(&r);
        return -1;
    }
    char when[40];
    tp_format_rfc3339(t0, when, sizeof when);
    fprintf(y,
            "# Exported by gpuwatch history export: the recorded range starting %s (t = 0 here).\n"
            "# Varying metrics replay from the CSV traces (linear between samples); constants are numbers.\n"
            "seed: 1\ngpus:\n",
            when);
    int rc = 0;
    for (int g = 0; g < HQ_MAX_GPUS && rc == 0; g++) {
        int has = 0;
        for (size_t i = 0; i < r.n && !has; i++)
            has = r.s[i].gpu == g;
        if (!has)
            continue;
        rc = export_gpu(y, st, &r, g, t0, dir);
        if (rc == 0)
            rc = export_procs(y, st, g, from_us, to_us, t0, dir);
    }
    export_events(y, st, from_us, to_us, t0, sel);
    if (fclose(y) != 0)
        rc = -1;
    hq_free(&r);
    if (rc != 0)
        snprintf(err, n, "writing the scenario into %s failed", dir);
    return rc;
}

int history_export_cmd(int argc, char **argv)
{
    static const struct option opts[] = {{"db", required_argument, 0, 'd'},
                                         {"since", required_argument, 0, 's'},
                                         {"from", required_argument, 0, 'f'},
                                         {"to", required_argument, 0, 't'},
                                         {"gpu", required_argument, 0, 'g'},
                                         {"out", required_argument, 0, 'o'},
                                         {"format", required_argument, 0, 'F'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *db = NULL, *since = NULL, *from = NULL, *to = NULL, *gpus = NULL, *out = NULL;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'd': db = optarg; break;
        case 's': since = optarg; break;
        case 'f': from = optarg; break;
        case 't': to = optarg; break;
        case 'g': gpus = optarg; break;
        case 'o': out = optarg; break;
        case 'F':
            if (strcmp(optarg, "csv") != 0) {
                fprintf(stderr, "gpuwatch: history export writes csv traces only\n");
                return GW_EXIT_USAGE;
            }
            break;
        case 'h':
            printf(
                "usage: gpuwatch history export [--db PATH] [--since 1h | --from T --to T] [--gpu LIST] --out DIR\n"
                "Writes DIR/scenario.yaml and CSV traces that gpusim replays: gpuwatch --sim DIR/scenario.yaml ...\n");
            return 0;
        default: fprintf(stderr, "gpuwatch: history export: bad option '%s'\n", argv[optind - 1]); return GW_EXIT_USAGE;
        }
    }
    if (!out || optind < argc) {
        fprintf(stderr, "gpuwatch: history export needs --out DIR\n");
        return GW_EXIT_USAGE;
    }
    unsigned char sel[HQ_MAX_GPUS];
    if (gpus && gw_parse_index_list(gpus, sel, HQ_MAX_GPUS) != 0) {
        fprintf(stderr, "gpuwatch: bad --gpu '%s'\n", gpus);
        return GW_EXIT_USAGE;
    }
    int64_t from_us, to_us;
    if (hcli_range(since, from, to, &from_us, &to_us) != 0)
        return GW_EXIT_USAGE;
    char path[4096], err[512];
    hcli_db_path(db, path, sizeof path);
    store *st = hcli_open(path);
    if (!st)
        return 1;
    int rc = history_export(st, from_us, to_us, gpus ? sel : NULL, out, err, sizeof err);
    store_close(st);
    if (rc != 0) {
        fprintf(stderr, "gpuwatch: history export: %s\n", err);
        return 1;
    }
    printf("wrote %s/scenario.yaml\n", out);
    return 0;
}
