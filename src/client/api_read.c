/* api_read.c - bounded parsing and validated reads for the decoders of an agent's answers (api_read.h). */
#include "api_read.h"
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "text.h"
#include "timeparse.h"
#include "util.h"

/* Counts values and nesting without building anything, so that an answer over the caps costs no
 * more than reading it once. Values: every array, object and comma adds at most one cJSON item. */
static int within_bounds(const char *s, size_t len, char *err, size_t n)
{
    size_t values = 1;
    int depth = 0, in_str = 0;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (in_str) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_str = 0;
            continue;
        }
        if (c == '"') {
            in_str = 1;
        } else if (c == '[' || c == '{') {
            values++;
            if (++depth > API_MAX_DEPTH) {
                snprintf(err, n, "nested deeper than %d levels", API_MAX_DEPTH);
                return 0;
            }
        } else if (c == ']' || c == '}') {
            depth--;
        } else if (c == ',') {
            values++;
        }
        if (values > API_MAX_VALUES) {
            snprintf(err, n, "more than %d values", API_MAX_VALUES);
            return 0;
        }
    }
    return 1;
}

cJSON *api_parse(const char *body, size_t len, char *err, size_t n)
{
    if (!body || !len) {
        snprintf(err, n, "an empty answer");
        return NULL;
    }
    if (len > API_MAX_BODY) {
        snprintf(err, n, "an answer over %u bytes", API_MAX_BODY);
        return NULL;
    }
    if (!within_bounds(body, len, err, n))
        return NULL;
    cJSON *root = cJSON_ParseWithLength(body, len);
    if (!cJSON_IsObject(root)) {
        snprintf(err, n, root ? "not a JSON object" : "not JSON");
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}

const cJSON *api_list(const char *body, size_t len, const char *key, const char *inner, const char *what, cJSON **root,
                      char *err, size_t n)
{
    *root = api_parse(body, len, err, n);
    if (!*root)
        return NULL;
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(*root, key);
    if (inner)
        arr = cJSON_GetObjectItemCaseSensitive(arr, inner);
    if (!cJSON_IsArray(arr)) {
        snprintf(err, n, "not a list of %s (no \"%s\" array)", what, inner ? inner : key);
        cJSON_Delete(*root);
        *root = NULL;
        return NULL;
    }
    return arr;
}

void *api_items(const cJSON *arr, int max, size_t size, int *room, char *err, size_t n)
{
    int listed = cJSON_GetArraySize(arr);
    *room = listed < max ? listed : max;
    void *p = calloc((size_t)(*room ? *room : 1), size);
    if (!p)
        snprintf(err, n, "out of memory");
    return p;
}

uint64_t api_now(const api_context *ctx)
{
    return ctx && ctx->now_us ? ctx->now_us : gw_now_us();
}

int api_gpu_count(const api_context *ctx)
{
    return ctx && ctx->ngpus > 0 && ctx->ngpus < API_MAX_GPUS ? ctx->ngpus : API_MAX_GPUS;
}

int api_num_value(const cJSON *v, double lo, double hi, double *out)
{
    double x;
    if (cJSON_IsNumber(v))
        x = v->valuedouble;
    else if (cJSON_IsBool(v))
        x = cJSON_IsTrue(v) ? 1 : 0;
    else
        return 0;
    if (!isfinite(x) || x < lo || x > hi)
        return 0;
    *out = x;
    return 1;
}

int api_num(const cJSON *o, const char *key, double lo, double hi, double *out)
{
    return api_num_value(cJSON_GetObjectItemCaseSensitive(o, key), lo, hi, out);
}

int api_whole(const cJSON *o, const char *key, long lo, long hi, long *out)
{
    double v;
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsNumber(x) || !api_num_value(x, (double)lo, (double)hi, &v) || v != floor(v))
        return 0;
    *out = (long)v;
    return 1;
}

int api_true(const cJSON *o, const char *key)
{
    return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, key));
}

void api_copy_text(const char *s, char *out, size_t n)
{
    if (!n)
        return;
    size_t len = strlen(s);
    if (len >= n) {
        len = n - 1;
        while (len > 0 && ((unsigned char)s[len] & 0xC0) == 0x80)
            len--; /* not in the middle of a character */
    }
    memcpy(out, s, len);
    out[len] = 0;
    gw_clean_text(out);
}

int api_str_value(const cJSON *v, char *out, size_t n)
{
    if (n)
        out[0] = 0;
    if (!cJSON_IsString(v) || !v->valuestring)
        return 0;
    api_copy_text(v->valuestring, out, n);
    return 1;
}

int api_str(const cJSON *o, const char *key, char *out, size_t n)
{
    return api_str_value(cJSON_GetObjectItemCaseSensitive(o, key), out, n);
}

int api_time_s(const api_context *ctx, double t_s, uint64_t *out_us)
{
    double now_s = (double)api_now(ctx) / 1e6;
    if (!isfinite(t_s) || t_s <= 0 || t_s < now_s - API_TIME_PAST_S || t_s > now_s + API_TIME_FUTURE_S)
        return 0;
    *out_us = (uint64_t)llround(t_s * 1e6);
    return 1;
}

int api_rfc3339(const api_context *ctx, const cJSON *o, const char *key, uint64_t *out_us)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    int64_t t;
    /* an RFC 3339 date first: the relative forms tp_parse_time also takes mean nothing here */
    if (!cJSON_IsString(v) || !v->valuestring || strlen(v->valuestring) < 10 || strlen(v->valuestring) > 40 ||
        !isdigit((unsigned char)v->valuestring[0]) || v->valuestring[4] != '-' ||
        tp_parse_time(v->valuestring, 0, &t) != 0)
        return 0;
    return api_time_s(ctx, (double)t / 1e6, out_us);
}
