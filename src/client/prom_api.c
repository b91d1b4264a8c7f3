/* prom_api.c - the Prometheus HTTP query API's answers, bounded and validated (see prom_api.h). */
#include "prom_api.h"
#include "api_read.h"
#include "util.h"
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void prom_result_free(prom_result *r)
{
    if (!r)
        return;
    for (int i = 0; i < r->n; i++) {
        prom_series *s = &r->s[i];
        for (int k = 0; k < s->nlabels; k++) {
            free(s->labels[k].name);
            free(s->labels[k].value);
        }
        free(s->labels);
        free(s->t_us);
        free(s->v);
    }
    free(r->s);
    memset(r, 0, sizeof *r);
}

const char *prom_label_get(const prom_series *s, const char *name)
{
    for (int k = 0; k < s->nlabels; k++)
        if (strcmp(s->labels[k].name, name) == 0)
            return s->labels[k].value;
    return NULL;
}

int prom_parse_value(const char *s, double *out)
{
    if (!s || !*s || strlen(s) > 64 || isspace((unsigned char)s[0]))
        return 0;
    char *end;
    double v = strtod(s, &end);
    if (*end || !isfinite(v))
        return 0;
    *out = v;
    return 1;
}

static int label_name_ok(const char *s)
{
    size_t len = strlen(s);
    if (!len || len > PROM_MAX_LABEL_NAME || isdigit((unsigned char)s[0]))
        return 0;
    for (size_t i = 0; i < len; i++)
        if (!isalnum((unsigned char)s[i]) && s[i] != '_')
            return 0;
    return 1;
}

static char *copy_value(const char *s)
{
    size_t len = strlen(s);
    size_t room = (len < PROM_MAX_LABEL_VALUE ? len : PROM_MAX_LABEL_VALUE) + 1;
    char *out = malloc(room);
    if (out)
        api_copy_text(s, out, room);
    return out;
}

/* The labels of one series (an object of strings) into s. 0, or -1 when out of memory. */
static int read_labels(const cJSON *metric, prom_series *s, prom_result *r)
{
    int listed = cJSON_GetArraySize(metric);
    int room = listed < PROM_MAX_LABELS ? listed : PROM_MAX_LABELS;
    s->labels = calloc((size_t)(room ? room : 1), sizeof *s->labels);
    if (!s->labels)
        return -1;
    const cJSON *l;
    cJSON_ArrayForEach(l, metric)
    {
        if (s->nlabels >= room || !l->string || !label_name_ok(l->string) || !cJSON_IsString(l) || !l->valuestring ||
            prom_label_get(s, l->string)) {
            r->labels_left_out++;
            continue;
        }
        prom_label *dst = &s->labels[s->nlabels];
        dst->name = strdup(l->string);
        dst->value = copy_value(l->valuestring);
        if (!dst->name || !dst->value) {
            free(dst->name);
            free(dst->value);
            return -1;
        }
        s->nlabels++;
    }
    return 0;
}

static int time_ok(const prom_context *ctx, double t_s, uint64_t *out_us)
{
    if (!ctx || !ctx->to_us)
        return api_time_s(NULL, t_s, out_us);
    double lo = ((double)ctx->from_us - (double)ctx->slack_us) / 1e6, hi = ((double)ctx->to_us + ctx->slack_us) / 1e6;
    if (!isfinite(t_s) || t_s <= 0 || t_s < lo || t_s > hi)
        return 0;
    *out_us = (uint64_t)llround(t_s * 1e6);
    return 1;
}

/* One [time, "value"] pair appended to s when it passes. */
static void read_point(const cJSON *p, const prom_context *ctx, prom_series *s, prom_result *r)
{
    const cJSON *t = cJSON_GetArrayItem(p, 0), *v = cJSON_GetArrayItem(p, 1);
    uint64_t t_us;
    double x;
    if (!cJSON_IsArray(p) || cJSON_GetArraySize(p) != 2 || !cJSON_IsNumber(t) || !cJSON_IsString(v) ||
        !time_ok(ctx, t->valuedouble, &t_us) || (s->n && t_us <= s->t_us[s->n - 1])) {
        r->points_left_out++;
        return;
    }
    if (!prom_parse_value(v->valuestring, &x)) {
        r->nonfinite++;
        return;
    }
    s->t_us[s->n] = t_us;
    s->v[s->n] = x;
    s->n++;
}

/* The points of one series: a matrix's "values" array, or a vector's one "value". 0, or -1 when out
 * of memory. */
static int read_points(const cJSON *item, prom_kind kind, const prom_context *ctx, prom_series *s, prom_result *r)
{
    const cJSON *values = cJSON_GetObjectItemCaseSensitive(item, kind == PROM_MATRIX ? "values" : "value");
    int listed = kind == PROM_MATRIX ? cJSON_GetArraySize(values) : 1;
    if (kind == PROM_MATRIX && !cJSON_IsArray(values))
        listed = 0;
    int room = listed < PROM_MAX_POINTS ? listed : PROM_MAX_POINTS;
    r->points_left_out += listed - room;
    s->t_us = malloc(sizeof *s->t_us * (size_t)(room ? room : 1));
    s->v = malloc(sizeof *s->v * (size_t)(room ? room : 1));
    if (!s->t_us || !s->v)
        return -1;
    if (kind == PROM_VECTOR) {
        read_point(values, ctx, s, r);
        return 0;
    }
    const cJSON *p;
    int i = 0;
    cJSON_ArrayForEach(p, values)
    {
        if (i++ >= room)
            break;
        read_point(p, ctx, s, r);
    }
    return 0;
}

static const char *kind_name(prom_kind k)
{
    return k == PROM_MATRIX ? "matrix" : k == PROM_VECTOR ? "vector" : "list of series";
}

/* An error answer, or a body that is no answer, as one line into err. */
static void error_text(const cJSON *root, const char *body, size_t len, long status, char *err, size_t n)
{
    char type[64] = "", text[400] = "";
    api_str(root, "errorType", type, sizeof type);
    api_str(root, "error", text, sizeof text);
    if (!root) {
        char *copy = malloc(len < 300 ? len + 1 : 301);
        if (copy) {
            memcpy(copy, body ? body : "", len < 300 ? len : 300);
            copy[len < 300 ? len : 300] = 0;
            copy[strcspn(copy, "\r\n")] = 0;
            api_copy_text(copy, text, sizeof text);
            free(copy);
        }
    }
    char head[32] = "";
    if (status != 200)
        snprintf(head, sizeof head, "HTTP %ld", status);
    snprintf(err, n, "%s%s%s%s%s", head, head[0] && (type[0] || text[0]) ? ": " : "", type,
             type[0] && text[0] ? ": " : "", text[0] || type[0] || head[0] ? text : "an error without a message");
}

/* The result list of a success answer of kind want. */
static const cJSON *result_list(const cJSON *root, prom_kind want, char *err, size_t n)
{
    const cJSON *data = cJSON_GetObjectItemCaseSensitive(root, "data");
    if (want == PROM_SERIES) {
        if (!cJSON_IsArray(data))
            snprintf(err, n, "not a list of series (no \"data\" array)");
        return cJSON_IsArray(data) ? data : NULL;
    }
    char type[16] = "";
    api_str(data, "resultType", type, sizeof type);
    const cJSON *result = cJSON_GetObjectItemCaseSensitive(data, "result");
    if (strcmp(type, kind_name(want)) != 0 || !cJSON_IsArray(result)) {
        snprintf(err, n, "%s%s where a %s was asked", type[0] ? "a " : "no result type", type, kind_name(want));
        return NULL;
    }
    return result;
}

static void first_warning(const cJSON *root, prom_result *r)
{
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(root, "warnings");
    if (cJSON_IsArray(w))
        api_str_value(cJSON_GetArrayItem(w, 0), r->warning, sizeof r->warning);
}

int prom_decode(const char *body, size_t len, long status, const prom_context *ctx, prom_kind want, prom_result *out,
                char *err, size_t n)
{
    memset(out, 0, sizeof *out);
    out->kind = want;
    char why[200] = "";
    cJSON *root = api_parse(body, len, why, sizeof why);
    char st[16] = "";
    api_str(root, "status", st, sizeof st);
    if (status != 200 || strcmp(st, "success") != 0) {
        if (root && status == 200 && !st[0])
            snprintf(err, n, "not an answer of the query API (no \"status\")");
        else if (!root && status == 200)
            snprintf(err, n, "%s", why);
        else
            error_text(root, body, len, status, err, n);
        cJSON_Delete(root);
        return -1;
    }
    const cJSON *list = result_list(root, want, err, n);
    if (!list) {
        cJSON_Delete(root);
        return -1;
    }
    first_warning(root, out);
    int room;
    out->s = api_items(list, PROM_MAX_SERIES, sizeof *out->s, &room, err, n);
    if (!out->s) {
        cJSON_Delete(root);
        return -1;
    }
    const cJSON *item;
    int listed = 0;
    cJSON_ArrayForEach(item, list)
    {
        const cJSON *metric = want == PROM_SERIES ? item : cJSON_GetObjectItemCaseSensitive(item, "metric");
        if (listed++ >= room || !cJSON_IsObject(metric)) {
            out->series_left_out++;
            continue;
        }
        prom_series *s = &out->s[out->n++];
        if (read_labels(metric, s, out) != 0 || (want != PROM_SERIES && read_points(item, want, ctx, s, out) != 0)) {
            snprintf(err, n, "out of memory");
            cJSON_Delete(root);
            prom_result_free(out);
            return -1;
        }
    }
    cJSON_Delete(root);
    return 0;
}
