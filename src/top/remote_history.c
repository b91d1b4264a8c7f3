/* remote_history.c - top --host starts its charts with the agent's recent history: the charted
 * metrics from /api/v1/samples, merged by timestamp into samples and pushed into the ring. */
#include "remote_http.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct gpu_hist {
    gpu_sample *s; /* TOP_HISTORY samples, by time */
    int n;
} gpu_hist;

/* The sample of h with time t, appended when there is none (the series share their times). */
static gpu_sample *hist_at(gpu_hist *h, uint64_t t)
{
    for (int i = h->n - 1; i >= 0 && i >= h->n - 4; i--)
        if (h->s[i].t_us == t)
            return &h->s[i];
    for (int i = 0; i < h->n; i++)
        if (h->s[i].t_us == t)
            return &h->s[i];
    if (h->n >= TOP_HISTORY)
        return NULL;
    gpu_sample *s = &h->s[h->n++];
    memset(s, 0, sizeof *s);
    s->t_us = t;
    return s;
}

static int by_time(const void *a, const void *b)
{
    uint64_t x = ((const gpu_sample *)a)->t_us, y = ((const gpu_sample *)b)->t_us;
    return (x > y) - (x < y);
}

static void add_series(const cJSON *root, metric_id id, gpu_hist *h, int ngpus)
{
    const cJSON *ser;
    cJSON_ArrayForEach(ser, cJSON_GetObjectItemCaseSensitive(root, "series"))
    {
        double g;
        if (!jnum(ser, "gpu", &g) || g < 0 || g >= ngpus)
            continue;
        const cJSON *pts = cJSON_GetObjectItemCaseSensitive(ser, "samples");
        int total = cJSON_GetArraySize(pts), skip = total - TOP_HISTORY, k = 0;
        const cJSON *pt;
        cJSON_ArrayForEach(pt, pts)
        {
            if (k++ < skip)
                continue; /* keep the newest */
            const cJSON *t = cJSON_GetArrayItem(pt, 0), *v = cJSON_GetArrayItem(pt, 1);
            if (!cJSON_IsNumber(t))
                continue;
            gpu_sample *s = hist_at(&h[(int)g], (uint64_t)(t->valuedouble * 1e6));
            if (s && cJSON_IsNumber(v))
                sample_set(s, id, v->valuedouble);
        }
    }
}

/* An agent without history (or an error) just leaves the charts to fill from now on. */
void remote_prefill_history(remote_http *c, ring *r, int ngpus)
{
    static const metric_id ids[] = {M_UTIL_GPU, M_MEM_USED, M_POWER_DRAW, M_TEMP_GPU, M_TEMP_MEMORY};
    gpu_hist *h = calloc((size_t)ngpus, sizeof *h);
    int ok = h != NULL;
    for (int g = 0; ok && g < ngpus; g++)
        ok = (h[g].s = calloc(TOP_HISTORY, sizeof *h[g].s)) != NULL;
    for (size_t i = 0; ok && i < sizeof ids / sizeof ids[0]; i++) {
        char path[160], err[512];
        snprintf(path, sizeof path, "/api/v1/samples?metric=%s&since=15m", catalog_get(ids[i])->field);
        cJSON *root = remote_get_json(c, path, err, sizeof err);
        if (!root)
            break;
        add_series(root, ids[i], h, ngpus);
        cJSON_Delete(root);
    }
    for (int g = 0; ok && g < ngpus; g++) {
        qsort(h[g].s, (size_t)h[g].n, sizeof *h[g].s, by_time);
        for (int i = 0; i < h[g].n; i++)
            ring_push(r, g, &h[g].s[i]);
    }
    for (int g = 0; h && g < ngpus; g++)
        free(h[g].s);
    free(h);
}
