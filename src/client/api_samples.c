/* api_samples.c - decoding /api/v1/samples: one metric's recent points per GPU (agent_api.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "api_read.h"

/* The newest `cap` points of one series, kept in a ring while the answer is walked. */
static int series_read(const api_context *ctx, const cJSON *pts, int cap, api_series *s, int *left_out)
{
    int listed = cJSON_GetArraySize(pts);
    if (listed < cap)
        cap = listed > 0 ? listed : 1;
    s->p = malloc((size_t)cap * sizeof *s->p);
    if (!s->p)
        return -1;
    int head = 0, count = 0;
    uint64_t last = 0;
    const cJSON *pt;
    cJSON_ArrayForEach(pt, pts)
    {
        double t, v;
        uint64_t t_us;
        const cJSON *val = cJSON_GetArrayItem(pt, 1);
        if (!cJSON_IsArray(pt) || !api_num_value(cJSON_GetArrayItem(pt, 0), 0, API_MAX_NUMBER, &t) ||
            !api_time_s(ctx, t, &t_us) || t_us < last) {
            (*left_out)++;
            continue;
        }
        if (!api_num_value(val, -API_MAX_NUMBER, API_MAX_NUMBER, &v))
            v = NAN; /* null: no value then */
        last = t_us;
        s->p[head] = (api_point){t_us, v};
        head = (head + 1) % cap;
        if (count < cap)
            count++;
    }
    if (count == cap && head != 0) {
        /* unroll the ring: oldest first */
        api_point *flat = malloc((size_t)cap * sizeof *flat);
        if (!flat)
            return -1;
        for (int i = 0; i < cap; i++)
            flat[i] = s->p[(head + i) % cap];
        free(s->p);
        s->p = flat;
    }
    s->n = count;
    return 0;
}

int api_decode_samples(const char *body, size_t len, const api_context *ctx, int max_points, api_samples *out,
                       char *err, size_t n)
{
    memset(out, 0, sizeof *out);
    cJSON *root;
    const cJSON *arr = api_list(body, len, "series", NULL, "series", &root, err, n);
    if (!arr)
        return -1;
    int ngpus = api_gpu_count(ctx);
    int cap = max_points < 1 ? 1 : max_points > API_MAX_POINTS ? API_MAX_POINTS : max_points;
    out->s = calloc((size_t)ngpus, sizeof *out->s);
    if (!out->s) {
        snprintf(err, n, "out of memory");
        cJSON_Delete(root);
        return -1;
    }
    unsigned char seen[API_MAX_GPUS] = {0};
    const cJSON *o;
    cJSON_ArrayForEach(o, arr)
    {
        long gpu;
        const cJSON *pts = cJSON_GetObjectItemCaseSensitive(o, "samples");
        if (!cJSON_IsObject(o) || !api_whole(o, "gpu", 0, ngpus - 1, &gpu) || seen[gpu] || !cJSON_IsArray(pts)) {
            out->left_out++;
            continue;
        }
        seen[gpu] = 1;
        api_series *s = &out->s[out->n++];
        s->gpu = (int)gpu;
        if (series_read(ctx, pts, cap, s, &out->left_out) != 0) {
            snprintf(err, n, "out of memory");
            api_samples_free(out);
            cJSON_Delete(root);
            return -1;
        }
    }
    cJSON_Delete(root);
    return 0;
}

void api_samples_free(api_samples *s)
{
    for (int i = 0; s->s && i < s->n; i++)
        free(s->s[i].p);
    free(s->s);
    memset(s, 0, sizeof *s);
}
