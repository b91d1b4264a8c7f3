/* api_gpus.c - decoding /api/v1/gpus (identity and latest sample of each GPU) and /api/v1/processes
 * (agent_api.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "api_read.h"

#define PID_MAX 4194304 /* the kernel's PID_MAX_LIMIT */
#define MIB_MAX 1e9     /* a petabyte: no GPU or process holds more */

static void gpu_read(const api_context *ctx, const cJSON *o, int index, api_gpu *g)
{
    memset(g, 0, sizeof *g);
    g->info.index = index;
    for (int id = 0; id < M_STR_END; id++)
        if (api_str(o, catalog_get((metric_id)id)->field, g->info.str[id], GW_STR_LEN))
            mset_add(&g->info.str_present, (metric_id)id);
    g->lost = api_true(o, "lost");
    g->stale = api_true(o, "stale");
    g->hung = api_true(o, "hung");
    g->s.status = g->lost ? GPU_LOST : GPU_OK;
    double t;
    if (api_num(o, "timestamp", 0, API_MAX_NUMBER, &t))
        api_time_s(ctx, t, &g->s.t_us); /* else 0: no valid time */
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, "metrics");
    if (!cJSON_IsObject(m))
        return;
    /* The agent writes the metrics in the catalog's order: each field is looked for at the cursor
     * first, and through the whole object only when it is not there (another order, a field left
     * out): a search for every field, each compared with half the object's keys, was most of the
     * time top --hosts spent. */
    const cJSON *cur = m->child;
    for (int id = M_STR_END; id < M_COUNT; id++) {
        const metric_def *d = catalog_get((metric_id)id);
        const cJSON *item;
        double v;
        if (cur && cur->string && strcmp(cur->string, d->field) == 0) {
            item = cur;
            cur = cur->next;
        } else if (d->flags & MF_BIT) {
            continue; /* a bit of a mask read whole: not read on its own */
        } else {
            item = cJSON_GetObjectItemCaseSensitive(m, d->field);
        }
        if (!(d->flags & MF_BIT) && api_num_value(item, -API_MAX_NUMBER, API_MAX_NUMBER, &v))
            sample_set(&g->s, (metric_id)id, v);
    }
}

int api_decode_gpus(const char *body, size_t len, const api_context *ctx, api_gpus *out, char *err, size_t n)
{
    memset(out, 0, sizeof *out);
    out->interval_s = NAN;
    out->backend_up = 1;
    cJSON *root;
    const cJSON *arr = api_list(body, len, "gpus", NULL, "GPUs", &root, err, n);
    int room;
    if (!arr || !(out->gpus = api_items(arr, API_MAX_GPUS, sizeof *out->gpus, &room, err, n))) {
        cJSON_Delete(root);
        return -1;
    }
    unsigned char seen[API_MAX_GPUS] = {0};
    const cJSON *o;
    cJSON_ArrayForEach(o, arr)
    {
        long index;
        if (out->n >= room || !cJSON_IsObject(o) || !api_whole(o, "index", 0, room - 1, &index) || seen[index]) {
            out->left_out++;
            continue;
        }
        seen[index] = 1;
        gpu_read(ctx, o, (int)index, &out->gpus[out->n]);
        out->simulated |= api_true(o, "simulated");
        out->n++;
    }
    out->simulated |= api_true(root, "simulated");
    if (cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(root, "backend_up")))
        out->backend_up = 0;
    if (!api_num(root, "interval_seconds", 0.001, 86400, &out->interval_s))
        out->interval_s = NAN;
    api_str(root, "hostname", out->hostname, sizeof out->hostname);
    api_str(root, "driver_version", out->driver_version, sizeof out->driver_version);
    cJSON_Delete(root);
    return 0;
}

void api_gpus_free(api_gpus *g)
{
    free(g->gpus);
    g->gpus = NULL;
    g->n = 0;
}

static void proc_read(const api_context *ctx, const cJSON *o, gpu_proc *p)
{
    char type[16];
    if (api_str(o, "type", type, sizeof type)) {
        p->type |= strchr(type, 'C') ? PROC_COMPUTE : 0;
        p->type |= strchr(type, 'G') ? PROC_GRAPHICS : 0;
        p->type |= strchr(type, 'M') ? PROC_MPS : 0;
    }
    api_str(o, "name", p->name, sizeof p->name);
    api_str(o, "command", p->cmdline, sizeof p->cmdline);
    api_str(o, "user", p->user, sizeof p->user);
    api_str(o, "container", p->container, sizeof p->container);
    p->has_mem = api_num(o, "memory_mib", 0, MIB_MAX, &p->mem_mib);
    p->has_sm = api_num(o, "sm_util", 0, 100, &p->sm_util);
    p->has_memutil = api_num(o, "memory_util", 0, 100, &p->mem_util);
    p->has_enc = api_num(o, "encoder_util", 0, 100, &p->enc_util);
    p->has_dec = api_num(o, "decoder_util", 0, 100, &p->dec_util);
    p->has_cpu = api_num(o, "cpu_percent", 0, 1e6, &p->cpu_percent);
    p->has_rss = api_num(o, "rss_mib", 0, MIB_MAX, &p->rss_mib);
    double start;
    uint64_t start_us;
    if (api_num(o, "start_time", 1, API_MAX_NUMBER, &start) && api_time_s(ctx, start, &start_us))
        p->start_time_s = start_us / 1000000u;
}

int api_decode_processes(const char *body, size_t len, const api_context *ctx, api_procs *out, char *err, size_t n)
{
    memset(out, 0, sizeof *out);
    cJSON *root;
    const cJSON *arr = api_list(body, len, "processes", NULL, "processes", &root, err, n);
    int room;
    if (!arr || !(out->p = api_items(arr, API_MAX_PROCS, sizeof *out->p, &room, err, n))) {
        cJSON_Delete(root);
        return -1;
    }
    const cJSON *o;
    cJSON_ArrayForEach(o, arr)
    {
        long gpu, pid;
        if (out->n >= room || !cJSON_IsObject(o) || !api_whole(o, "gpu", 0, api_gpu_count(ctx) - 1, &gpu) ||
            !api_whole(o, "pid", 1, PID_MAX, &pid)) {
            out->left_out++;
            continue;
        }
        gpu_proc *p = &out->p[out->n++];
        p->gpu = (int)gpu;
        p->pid = (unsigned)pid;
        proc_read(ctx, o, p);
    }
    cJSON_Delete(root);
    return 0;
}

void api_procs_free(api_procs *p)
{
    free(p->p);
    p->p = NULL;
    p->n = 0;
}
