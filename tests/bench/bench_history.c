/* bench_history.c - the history's figures (scripts/bench_history.sh): bytes per sample, ingest rate and query times on 1 h of
 * synthetic 8-GPU 1 Hz training data (all catalog metrics), written to a scratch file. */
#include "bundle.h"
#include "history.h"
#include "query.h"
#include "rollup.h"
#include "hsynth.h"
#include "util.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define T0_US 1764673200000000ll /* 2025-12-02T11:00:00Z, an hour boundary */

static double ms_since(uint64_t t0)
{
    return (double)(gw_mono_us() - t0) / 1000.0;
}

/* CPU time of this thread, in microseconds: the figures stay meaningful on a loaded machine. */
static uint64_t cpu_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static int64_t file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (int64_t)st.st_size : 0;
}

/* Writes 24 h of minute roll-ups for every GPU and stored metric (what a day of recording leaves):
 * per GPU and 6-hour window, one row with every metric's minutes (rollup_store.c). */
static void fill_rollups(store *st, int gpus, int64_t day0)
{
    store_exec(st, "BEGIN");
    rmin *r = malloc(360 * sizeof *r);
    hsynth_gpu sg;
    hsynth_init(&sg, 0);
    gw_buf cols[M_COUNT], b = {0};
    int ids[M_COUNT];
    memset(cols, 0, sizeof cols);
    sqlite3_stmt *ins = NULL;
    sqlite3_prepare_v2(store_db(st), "INSERT OR REPLACE INTO rollups VALUES(?,-1,?,?,?,?)", -1, &ins, NULL);
    for (int g = 0; g < gpus; g++)
        for (int w = 0; w < 4; w++) {
            int n = 0;
            for (int m = M_STR_END; m < M_COUNT; m++) {
                if (catalog_get((metric_id)m)->flags & MF_BIT)
                    continue;
                for (int i = 0; i < 360; i++) {
                    gpu_sample s;
                    hsynth_sample(&sg, g, day0, &s);
                    double v = s.v[m];
                    r[i] = (rmin){day0 + (int64_t)(w * 360 + i) * MINUTE_US, 60, v - 1, v + 1, v * 60, v};
                }
                buf_clear(&cols[n]);
                rollup_encode(&cols[n], r, 360);
                ids[n++] = store_metric_id(st, (metric_id)m);
            }
            buf_clear(&b);
            bundle_put(&b, n, ids, cols);
            sqlite3_bind_int(ins, 1, g);
            sqlite3_bind_int64(ins, 2, day0 + (int64_t)w * 360 * MINUTE_US);
            sqlite3_bind_int64(ins, 3, r[359].t);
            sqlite3_bind_int64(ins, 4, n);
            sqlite3_bind_blob(ins, 5, b.data, (int)b.len, SQLITE_STATIC);
            sqlite3_step(ins);
            sqlite3_reset(ins);
        }
    sqlite3_finalize(ins);
    for (int i = 0; i < M_COUNT; i++)
        buf_release(&cols[i]);
    buf_release(&b);
    free(r);
    store_exec(st, "COMMIT");
}

/* CPU of /api/v1/query_range's work (history_query_range_json: open, query, JSON) for 1 h of data. */
static double time_query_range(const char *path, const char *metric, const char *gpus, int seconds, int reps,
                               size_t *bytes)
{
    char from[32], to[32];
    snprintf(from, sizeof from, "%lld", (long long)(T0_US / 1000000));
    snprintf(to, sizeof to, "%lld", (long long)(T0_US / 1000000 + seconds - 1));
    uint64_t c0 = cpu_us();
    for (int i = 0; i < reps; i++) {
        int status = 0;
        char *json = history_query_range_json(path, metric, gpus, NULL, from, to, NULL, NULL, &status);
        *bytes = json ? strlen(json) : 0;
        free(json);
        if (status != 200)
            return -1;
    }
    return (double)(cpu_us() - c0) / 1000.0 / reps;
}

static double time_query(store *st, hq_request *rq, int reps, size_t *points, double *cpu_ms)
{
    char err[256];
    uint64_t t0 = gw_mono_us(), c0 = cpu_us();
    for (int i = 0; i < reps; i++) {
        hq_result res;
        if (hq_run(st, rq, &res, err, sizeof err) != 0) {
            fprintf(stderr, "bench: %s\n", err);
            return -1;
        }
        *points = 0;
        for (size_t k = 0; k < res.n; k++)
            *points += res.s[k].n;
        hq_free(&res);
    }
    *cpu_ms = (double)(cpu_us() - c0) / 1000.0 / reps;
    return ms_since(t0) / reps;
}

/* One recorded sample of the bench's data set. */
typedef struct bench_row {
    int gpu;
    gpu_sample s;
} bench_row;

/* Samples from `gpusim render` CSV (t,gpu,<catalog fields>; empty cells = absent), t from T0_US.
 * round_gpm: GPM rates kept to 0.001 of their unit, as the NVML backend keeps them (nvml_gpm.c),
 * so that the file is the one the agent would write; render prints them with 17 digits. */
static bench_row *read_render_csv(const char *path, int round_gpm, size_t *n, int *gpus, int *seconds)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        return NULL;
    }
    char *line = NULL;
    size_t cap = 0, count = 0, rows_cap = 0;
    int ids[512], ncols = 0;
    bench_row *rows = NULL;
    double t_max = 0;
    *gpus = 0;
    while (getline(&line, &cap, f) > 0) {
        line[strcspn(line, "\r\n")] = 0;
        char *save = NULL;
        int col = 0;
        if (ncols == 0) {
            for (char *tok = strtok_r(line, ",", &save); tok && col < 512; tok = strtok_r(NULL, ",", &save), col++) {
                const metric_def *d = catalog_find(tok);
                ids[col] = d && !metric_is_string(d->id) && col >= 2 ? (int)d->id : -1;
            }
            ncols = col;
            continue;
        }
        if (count == rows_cap) {
            rows_cap = rows_cap ? rows_cap * 2 : 4096;
            bench_row *nr = realloc(rows, rows_cap * sizeof *rows);
            if (!nr)
                break;
            rows = nr;
        }
        bench_row *r = &rows[count];
        memset(r, 0, sizeof *r);
        char *p = line;
        for (col = 0; col < ncols && p; col++) {
            char *comma = strchr(p, ',');
            if (comma)
                *comma = 0;
            if (col == 0) {
                double t = strtod(p, NULL);
                r->s.t_us = (uint64_t)(T0_US + llround(t * 1e6));
                if (t > t_max)
                    t_max = t;
            } else if (col == 1)
                r->gpu = atoi(p);
            else if (*p && ids[col] >= 0) {
                double v = strtod(p, NULL);
                if (round_gpm && catalog_get((metric_id)ids[col])->flags & MF_GPM)
                    v = round(v * 1000.0) / 1000.0;
                sample_set(&r->s, (metric_id)ids[col], v);
            }
            p = comma ? comma + 1 : NULL;
        }
        if (r->gpu >= *gpus)
            *gpus = r->gpu + 1;
        count++;
    }
    free(line);
    fclose(f);
    *n = count;
    *seconds = (int)t_max + 1;
    return rows;
}

int main(int argc, char **argv)
{
    int gpus = 8, seconds = 3600;
    const char *dir = NULL, *csv = NULL;
    int span = 0, record_only = 0, round_gpm = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--dir") == 0 && i + 1 < argc)
            dir = argv[++i];
        else if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc)
            seconds = atoi(argv[++i]);
        else if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc)
            csv = argv[++i];
        else if (strcmp(argv[i], "--span") == 0 && i + 1 < argc)
            span = atoi(argv[++i]);
        else if (strcmp(argv[i], "--record-only") == 0)
            record_only = 1;
        else if (strcmp(argv[i], "--round-gpm") == 0)
            round_gpm = 1;
        else {
            fprintf(stderr, "usage: gpuwatch history bench [--dir DIR] [--seconds N] [--csv GPUSIM_RENDER_CSV] [--span "
                            "SECONDS] [--record-only] [--round-gpm]\n");
            return 2;
        }
    }
    if (seconds <= 0)
        seconds = 1;
    char tmpl[] = "/tmp/gpuwatch-bench-XXXXXX", path[4200];
    if (!dir && !(dir = mkdtemp(tmpl))) {
        perror("bench: mkdtemp");
        return 1;
    }
    snprintf(path, sizeof path, "%s/history.db", dir);
    unlink(path);
    history_config cfg;
    history_config_defaults(&cfg);
    cfg.path = path;
    cfg.no_thread = 1;
    if (span > 0)
        cfg.chunk_span_s = span;
    char err[256];
    history *h = history_open(&cfg, err, sizeof err);
    if (!h) {
        fprintf(stderr, "bench: %s\n", err);
        return 1;
    }

    size_t nrows = 0;
    bench_row *batch = NULL;
    if (csv) {
        batch = read_render_csv(csv, round_gpm, &nrows, &gpus, &seconds);
        if (!batch || !nrows || gpus > 64) {
            fprintf(stderr, "bench: no samples in %s\n", csv);
            free(batch);
            return 1;
        }
    } else {
        hsynth_gpu sg[8];
        batch = malloc((size_t)seconds * 8 * sizeof *batch);
        if (!batch)
            return 1;
        for (int g = 0; g < gpus; g++)
            hsynth_init(&sg[g], g);
        for (int i = 0; i < seconds; i++)
            for (int g = 0; g < gpus; g++, nrows++) {
                batch[nrows].gpu = g;
                hsynth_sample(&sg[g], g, T0_US + (int64_t)i * 1000000, &batch[nrows].s);
            }
    }
    gpu_info info[64];
    for (int g = 0; g < gpus && g < 64; g++)
        hsynth_info(g, &info[g]);
    uint64_t rec_us = 0, t_all = gw_mono_us(), cpu_all = cpu_us(), next_flush = T0_US + 10000000;
    for (size_t k = 0; k < nrows; k++) {
        if (batch[k].s.t_us >= next_flush) { /* a flush every 10 s of data */
            history_flush(h);
            next_flush += 10000000;
        }
        uint64_t t0 = cpu_us();
        history_record_sample(h, batch[k].gpu, &info[batch[k].gpu], &batch[k].s);
        rec_us += cpu_us() - t0;
    }
    history_stats hs;
    history_get_stats(h, &hs);
    history_close(h);
    double all_ms = ms_since(t_all), all_cpu_ms = (double)(cpu_us() - cpu_all) / 1000.0;
    free(batch);

    if (record_only) { /* a file for tests (no timings), or only its size */
        printf("recorded %.0f values into %s: %.3f bytes/value\n", (double)hs.samples, path,
               (double)(file_size(path) + file_size(strcat(strcpy(err, path), "-wal"))) / (double)hs.samples);
        return 0;
    }
    store *st = store_open(path, 0, err, sizeof err);
    if (!st) {
        fprintf(stderr, "bench: %s\n", err);
        return 1;
    }
    int64_t raw_bytes = 0, roll_bytes = 0;
    sqlite3_stmt *q = NULL;
    sqlite3_prepare_v2(store_db(st),
                       "SELECT (SELECT sum(length(blob)) FROM chunks), (SELECT sum(length(blob)) FROM rollups)", -1, &q,
                       NULL);
    if (sqlite3_step(q) == SQLITE_ROW) {
        raw_bytes = sqlite3_column_int64(q, 0);
        roll_bytes = sqlite3_column_int64(q, 1);
    }
    sqlite3_finalize(q);
    int64_t fsize = file_size(path) + file_size(strcat(strcpy(err, path), "-wal"));
    double values = (double)hs.samples;

    metric_id m = M_TEMP_GPU;
    unsigned char one[HQ_MAX_GPUS] = {1};
    size_t pts = 0, pts24 = 0;
    hq_request rq = {.metrics = &m,
                     .nmetrics = 1,
                     .gpus = one,
                     .from_us = T0_US,
                     .to_us = T0_US + (int64_t)seconds * 1000000 - 1,
                     .agg = AGG_AVG,
                     .source = HQ_RAW};
    double c1, c1p, c24;
    double q1 = time_query(st, &rq, 50, &pts, &c1);
    metric_id pw = M_POWER_DRAW;
    rq.metrics = &pw;
    size_t ptsp = 0;
    double q1p = time_query(st, &rq, 50, &ptsp, &c1p);
    size_t jb1 = 0, jb8 = 0, jbt = 0;
    double j1 = time_query_range(path, "power.draw", "0", seconds, 20, &jb1);
    double jt = time_query_range(path, "temperature.gpu", "0", seconds, 20, &jbt);
    double j8 = time_query_range(path, "power.draw", NULL, seconds, 5, &jb8);
    int64_t day0 = T0_US - 86400ll * 1000000 * 30; /* a day a month earlier: roll-ups only */
    fill_rollups(st, gpus, day0);
    hq_request r24 = {.metrics = &pw,
                      .nmetrics = 1,
                      .gpus = one,
                      .from_us = day0,
                      .to_us = day0 + 86400ll * 1000000 - 1,
                      .step_us = MINUTE_US,
                      .agg = AGG_AVG,
                      .source = HQ_ROLLUP};
    double q24 = time_query(st, &r24, 50, &pts24, &c24);
    store_close(st);

    printf("history bench: %d GPUs x %d s at 1 Hz, every metric the source has (%s)\n", gpus, seconds,
           csv ? csv : "synthetic H100 training load");
    printf("%-56s %12s\n", "figure", "value");
    printf("%-56s %12.0f\n", "metric values recorded", values);
    printf("%-56s %12.3f\n", "bytes/sample, whole file", (double)fsize / values);
    printf("%-56s %12.3f\n", "bytes/sample, raw chunk blobs only", (double)raw_bytes / values);
    printf("%-56s %12.3f\n", "bytes/sample, roll-up blobs", (double)roll_bytes / values);
    printf("%-56s %12.1f\n", "ingest, record API, CPU (M samples/s)", values / (double)rec_us);
    printf("%-56s %12.2f\n", "ingest+encode+write, flush/10 s of data, CPU (M/s)", values / (all_cpu_ms * 1000.0));
    printf("%-56s %12.2f\n", "ingest+encode+write, wall clock (M/s)", values / (all_ms * 1000.0));
    printf("%-56s %12.3f  (CPU %.3f ms, %zu points)\n", "query 1 h raw, temperature.gpu, 1 GPU (ms)", q1, c1, pts);
    printf("%-56s %12.3f  (CPU %.3f ms, %zu points)\n", "query 1 h raw, power.draw, 1 GPU (ms)", q1p, c1p, ptsp);
    printf("%-56s %12.3f  (CPU %.3f ms, %zu points)\n", "query 24 h roll-ups, step 60 s, 1 GPU (ms)", q24, c24, pts24);
    printf("%-56s %12.3f  (%zu bytes)\n", "/api/v1/query_range 1 h, power.draw, 1 GPU (CPU ms)", j1, jb1);
    printf("%-56s %12.3f  (%zu bytes)\n", "/api/v1/query_range 1 h, temperature.gpu, 1 GPU (CPU ms)", jt, jbt);
    printf("%-56s %12.3f  (%zu bytes)\n", "/api/v1/query_range 1 h, power.draw, every GPU (CPU ms)", j8, jb8);
    printf("file: %s (%lld bytes)\n", path, (long long)fsize);
    return 0;
}
