/* query_json.c - JSON for range queries (written directly, numbers by numtext.c), and the /api/v1/query_range handler body. */
#include "query_json.h"
#include "history.h"
#include "numtext.h"
#include "timeparse.h"
#include "util.h"
#include <cjson/cJSON.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void hq_format_value(double v, char *out, size_t n)
{
    char text[NT_MAX];
    nt_double(v, text);
    gw_strlcpy(out, text, n);
}

/* A JSON string: quotes, backslashes and control characters escaped (other bytes as they are). */
static void put_string(gw_buf *b, const char *s)
{
    buf_putc(b, '"');
    for (const char *p = s; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '"' || c == '\\') {
            buf_putc(b, '\\');
            buf_putc(b, (char)c);
        } else if (c < 0x20) {
            buf_printf(b, "\\u%04x", c);
        } else {
            buf_putc(b, (char)c);
        }
    }
    buf_putc(b, '"');
}

/* ,"key":"value" (the comma unless first). */
static void put_label(gw_buf *b, int *first, const char *key, const char *value)
{
    if (!*first)
        buf_putc(b, ',');
    *first = 0;
    put_string(b, key);
    buf_putc(b, ':');
    put_string(b, value);
}

/* gpu index -> uuid / name / bus id from the gpus table. */
static void gpu_labels(store *st, int gpu, gw_buf *b, int *first)
{
    sqlite3_stmt *q = store_query_stmt(st, SQ_GPU_LABELS, "SELECT uuid, name, pci_bus_id FROM gpus WHERE idx=?");
    if (!q)
        return;
    sqlite3_bind_int(q, 1, gpu);
    if (sqlite3_step(q) == SQLITE_ROW) {
        const char *keys[] = {"UUID", "modelName", "pci_bus_id"};
        for (int i = 0; i < 3; i++)
            if (sqlite3_column_type(q, i) == SQLITE_TEXT)
                put_label(b, first, keys[i], (const char *)sqlite3_column_text(q, i));
    }
    sqlite3_reset(q);
}

/* [t,"v"] (or [t,v], numbers) for every point: seconds and the value's shortest exact text, no
 * printf per point; a point without a value (NaN) is [t,null] as numbers, left out as strings. */
static void put_values(gw_buf *b, const hq_series *s, int pretty, int numbers)
{
    int first = 1;
    nt_clock clock = {0};
    for (size_t k = 0; k < s->n; k++) {
        if (buf_reserve(b, 2 * NT_MAX + 16) != 0)
            return;
        if (!isfinite(s->v[k]) && !numbers)
            continue;
        char *p = b->data + b->len;
        if (!first)
            *p++ = ',';
        first = 0;
        if (pretty) {
            memcpy(p, "\n      ", 7);
            p += 7;
        }
        *p++ = '[';
        p += nt_seconds_next(&clock, s->t[k], p);
        *p++ = ',';
        if (!isfinite(s->v[k])) {
            memcpy(p, "null", 4);
            p += 4;
        } else if (numbers) {
            p += nt_double(s->v[k], p);
        } else {
            *p++ = '"';
            p += nt_double(s->v[k], p);
            *p++ = '"';
        }
        *p++ = ']';
        *p = 0;
        b->len = (size_t)(p - b->data);
    }
}

char *hq_result_json(store *st, const hq_request *rq, const hq_result *r, int flags)
{
    int pretty = flags & HQ_JSON_PRETTY, numbers = !!(flags & HQ_JSON_NUMBERS);
    const char *nl = pretty ? "\n" : "", *nl2 = pretty ? "\n  " : "", *nl4 = pretty ? "\n    " : "";
    gw_buf b = {0};
    char num[NT_MAX];
    size_t points = 0;
    for (size_t i = 0; i < r->n; i++)
        points += r->s[i].n;
    buf_reserve(&b, 512 + r->n * 512 + points * 30); /* one allocation: no copies as it grows */
    nt_seconds(rq->step_us, num);
    buf_printf(
        &b,
        "{%s\"data\":{%s\"resultType\":\"matrix\",%s\"source\":\"%s\",%s\"step\":%s,%s\"agg\":\"%s\",%s\"result\":[",
        nl2, nl2, nl2, r->used_rollups ? "rollup" : "raw", nl2, num, nl2, hq_agg_name(rq->agg), nl2);
    for (size_t i = 0; i < r->n; i++) {
        const hq_series *s = &r->s[i];
        const char *unit = hq_series_unit(rq, s);
        buf_printf(&b, "%s%s{\"metric\":{", i ? "," : "", nl4);
        int first = 1;
        put_label(&b, &first, "__name__", hq_series_name(rq, s));
        snprintf(num, sizeof num, "%d", s->gpu);
        put_label(&b, &first, "gpu", num);
        if (s->pid) {
            snprintf(num, sizeof num, "%u", s->pid);
            put_label(&b, &first, "pid", num);
        }
        if (unit)
            put_label(&b, &first, "unit", unit);
        gpu_labels(st, s->gpu, &b, &first);
        buf_puts(&b, "},\"values\":[");
        put_values(&b, s, pretty, numbers);
        buf_printf(&b, "%s]}", s->n ? nl4 : "");
    }
    buf_printf(&b, "%s]},", r->n ? nl2 : "");
    if (r->damaged) { /* Prometheus's API carries such notes in "warnings" */
        char warn[300];
        hq_damage_warning(r, warn, sizeof warn);
        buf_printf(&b, "%s\"warnings\":[", nl2);
        put_string(&b, warn);
        buf_puts(&b, "],");
    }
    buf_printf(&b, "%s\"status\":\"success\"%s}%s", nl2, nl, nl);
    if (b.oom) {
        buf_release(&b);
        return NULL;
    }
    return b.data;
}

static char *hq_error_json(const char *msg)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "status", "error");
    cJSON_AddStringToObject(root, "errorType", "bad_data");
    cJSON_AddStringToObject(root, "error", msg);
    char *text = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    return text;
}

/* One read connection kept for the next query of the same file: opening it and reading its schema
 * cost more than an hour of one GPU's points (the agent answers /api/v1/query_range many times).
 * It is kept while the path names the same file (device and inode: a file replaced behind it is
 * opened anew) and used by one query at a time; a query that finds it busy opens its own. Its
 * statements are reset after each query, so it holds no read transaction between queries. */
static pthread_mutex_t cached_mu = PTHREAD_MUTEX_INITIALIZER;
static struct {
    char path[4096];
    dev_t dev;
    ino_t ino;
    store *st;
} cached;

/* A store for path: the kept one (locked: give it back with release_store) or a new one. */
static store *open_store(const char *path, int *kept, char *err, size_t n)
{
    *kept = 0;
    struct stat sb;
    if (strlen(path) >= sizeof cached.path || stat(path, &sb) != 0 || pthread_mutex_trylock(&cached_mu) != 0)
        return store_open(path, 1, err, n);
    if (cached.st && (strcmp(cached.path, path) != 0 || cached.dev != sb.st_dev || cached.ino != sb.st_ino)) {
        store_close(cached.st);
        cached.st = NULL;
    }
    if (!cached.st && (cached.st = store_open(path, 1, err, n)) != NULL) {
        gw_strlcpy(cached.path, path, sizeof cached.path);
        cached.dev = sb.st_dev;
        cached.ino = sb.st_ino;
    }
    if (!cached.st) {
        pthread_mutex_unlock(&cached_mu);
        return NULL;
    }
    *kept = 1;
    return cached.st;
}

static void release_store(store *st, int kept)
{
    if (kept)
        pthread_mutex_unlock(&cached_mu);
    else
        store_close(st);
}

/* Metric list "a,b" -> ids; returns count or -1 (with the bad name in err). */
static int parse_metrics(const char *list, metric_id *out, int max, char *err, size_t n)
{
    char buf[1024];
    gw_strlcpy(buf, list, sizeof buf);
    int k = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        const metric_def *d = catalog_find(tok);
        if (!d || metric_is_string(d->id)) {
            snprintf(err, n, "unknown or non-numeric metric '%s'", tok);
            return -1;
        }
        if (k < max)
            out[k++] = d->id;
    }
    if (!k)
        snprintf(err, n, "no metric given");
    return k ? k : -1;
}

char *history_query_range_json(const char *db_path, const char *metric, const char *gpu, const char *pid,
                               const char *start, const char *end, const char *step, const char *agg, int *status)
{
    char err[300] = "";
    metric_id ids[M_COUNT];
    unsigned char sel[HQ_MAX_GPUS];
    int64_t now = (int64_t)gw_now_us();
    hq_request rq = {.metrics = ids, .agg = AGG_AVG, .to_us = now, .from_us = now - 3600ll * 1000000};
    *status = 400;
    if (!metric || !*metric)
        snprintf(err, sizeof err, "metric is required");
    else if ((rq.nmetrics = parse_metrics(metric, ids, M_COUNT, err, sizeof err)) < 0) {
    } else if (gpu && *gpu && gw_parse_index_list(gpu, sel, HQ_MAX_GPUS) != 0)
        snprintf(err, sizeof err, "bad gpu list '%s'", gpu);
    else if (start && *start && tp_parse_time(start, now, &rq.from_us) != 0)
        snprintf(err, sizeof err, "bad start '%s'", start);
    else if (end && *end && tp_parse_time(end, now, &rq.to_us) != 0)
        snprintf(err, sizeof err, "bad end '%s'", end);
    else if (step && *step && gw_parse_duration_us(step, &rq.step_us) != 0)
        snprintf(err, sizeof err, "bad step '%s'", step);
    else if (agg && *agg && hq_parse_agg(agg, &rq.agg) != 0)
        snprintf(err, sizeof err, "bad agg '%s' (avg, min, max, last, p50, p90, p95, p99)", agg);
    else if (pid && *pid && (rq.pid = (unsigned)strtoul(pid, NULL, 10)) == 0)
        snprintf(err, sizeof err, "bad pid '%s'", pid);
    if (err[0])
        return hq_error_json(err);
    if (gpu && *gpu)
        rq.gpus = sel;
    int kept;
    store *st = open_store(db_path, &kept, err, sizeof err);
    if (!st) {
        *status = 503;
        return hq_error_json(err);
    }
    hq_result res;
    char *text;
    if (hq_run(st, &rq, &res, err, sizeof err) != 0) {
        text = hq_error_json(err);
    } else {
        *status = 200;
        text = hq_result_json(st, &rq, &res, 0);
        hq_free(&res);
    }
    release_store(st, kept);
    return text;
}
