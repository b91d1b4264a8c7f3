/* agent_read.c - reading a gpuwatch agent's JSON API for gpuwatch run (agent_read.h). */
#include "agent_read.h"
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "http_client.h"
#include "util.h"

struct agent_reader {
    http_client *c;
    gw_buf body;
};

static cJSON *get_json(agent_reader *a, const char *path, char *err, size_t n)
{
    long st = http_client_get(a->c, path, &a->body, err, n);
    if (st != 200)
        return NULL;
    cJSON *j = cJSON_Parse(a->body.data ? a->body.data : "");
    if (!j)
        snprintf(err, n, "%s%s: not JSON", http_client_base(a->c), path);
    return j;
}

agent_reader *agent_reader_open(const char *host, long timeout_ms, char *err, size_t n)
{
    agent_reader *a = calloc(1, sizeof *a);
    if (!a) {
        snprintf(err, n, "out of memory");
        return NULL;
    }
    buf_init(&a->body);
    http_client_opts o = {.host = host, .user_agent = "gpuwatch-run", .timeout_ms = timeout_ms};
    a->c = http_client_open(&o, err, n);
    if (!a->c) {
        agent_reader_close(a);
        return NULL;
    }
    cJSON *j = get_json(a, "/api/v1/gpus", err, n);
    if (!j || !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(j, "gpus"))) {
        if (j)
            snprintf(err, n, "%s/api/v1/gpus: not a gpuwatch agent", http_client_base(a->c));
        cJSON_Delete(j);
        agent_reader_close(a);
        return NULL;
    }
    cJSON_Delete(j);
    return a;
}

void agent_reader_close(agent_reader *a)
{
    if (!a)
        return;
    http_client_close(a->c);
    buf_release(&a->body);
    free(a);
}

const char *agent_reader_base(const agent_reader *a)
{
    return http_client_base(a->c);
}

static int jnum(const cJSON *o, const char *k, double *v)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);
    if (!cJSON_IsNumber(x) && !cJSON_IsBool(x))
        return 0;
    *v = cJSON_IsBool(x) ? (double)cJSON_IsTrue(x) : x->valuedouble;
    return 1;
}

static const char *jstr(const cJSON *o, const char *k)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(x) ? x->valuestring : NULL;
}

int agent_reader_gpus(agent_reader *a, gpu_info *info, gpu_sample *s, int max, char *err, size_t n)
{
    cJSON *root = get_json(a, "/api/v1/gpus", err, n);
    if (!root)
        return -1;
    int count = 0;
    const cJSON *o;
    cJSON_ArrayForEach(o, cJSON_GetObjectItemCaseSensitive(root, "gpus"))
    {
        if (count >= max)
            break;
        gpu_info *in = &info[count];
        gpu_sample *sm = &s[count];
        double v;
        memset(in, 0, sizeof *in);
        memset(sm, 0, sizeof *sm);
        in->index = jnum(o, "index", &v) ? (int)v : count;
        for (int id = 0; id < M_STR_END; id++) {
            const char *str = jstr(o, catalog_get((metric_id)id)->field);
            if (str) {
                gw_strlcpy(in->str[id], str, GW_STR_LEN);
                mset_add(&in->str_present, (metric_id)id);
            }
        }
        sm->status = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "lost")) ? GPU_LOST : GPU_OK;
        sm->t_us = jnum(o, "timestamp", &v) ? (uint64_t)llround(v * 1e6) : 0;
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, "metrics");
        for (int id = M_STR_END; id < M_COUNT && m; id++) {
            const metric_def *d = catalog_get((metric_id)id);
            if (!(d->flags & MF_BIT) && jnum(m, d->field, &v))
                sample_set(sm, (metric_id)id, v);
        }
        count++;
    }
    cJSON_Delete(root);
    return count;
}

int agent_reader_procs(agent_reader *a, gpu_proc *out, int max, char *err, size_t n)
{
    cJSON *root = get_json(a, "/api/v1/processes", err, n);
    if (!root)
        return -1;
    int count = 0;
    const cJSON *o;
    cJSON_ArrayForEach(o, cJSON_GetObjectItemCaseSensitive(root, "processes"))
    {
        if (count >= max)
            break;
        gpu_proc *p = &out[count++];
        double v;
        memset(p, 0, sizeof *p);
        p->gpu = jnum(o, "gpu", &v) ? (int)v : -1;
        p->pid = jnum(o, "pid", &v) ? (unsigned)v : 0;
        const char *type = jstr(o, "type");
        p->type = type && strchr(type, 'G') ? PROC_GRAPHICS : PROC_COMPUTE;
        const char *str;
        if ((str = jstr(o, "name")))
            gw_strlcpy(p->name, str, sizeof p->name);
        if ((str = jstr(o, "command")))
            gw_strlcpy(p->cmdline, str, sizeof p->cmdline);
        if ((str = jstr(o, "user")))
            gw_strlcpy(p->user, str, sizeof p->user);
        if ((str = jstr(o, "container")))
            gw_strlcpy(p->container, str, sizeof p->container);
        p->has_mem = jnum(o, "memory_mib", &p->mem_mib);
        p->has_sm = jnum(o, "sm_util", &p->sm_util);
    }
    cJSON_Delete(root);
    return count;
}

int agent_reader_util(agent_reader *a, double window_s, double *util, int max)
{
    char path[128], err[256];
    snprintf(path, sizeof path, "/api/v1/samples?metric=utilization.gpu&since=%gs", window_s);
    for (int i = 0; i < max; i++)
        util[i] = NAN;
    cJSON *root = get_json(a, path, err, sizeof err);
    if (!root)
        return -1;
    const cJSON *o;
    cJSON_ArrayForEach(o, cJSON_GetObjectItemCaseSensitive(root, "series"))
    {
        double g;
        if (!jnum(o, "gpu", &g) || g < 0 || g >= max)
            continue;
        double sum = 0;
        int cnt = 0;
        const cJSON *pair;
        cJSON_ArrayForEach(pair, cJSON_GetObjectItemCaseSensitive(o, "samples"))
        {
            const cJSON *v = cJSON_GetArrayItem(pair, 1);
            if (cJSON_IsNumber(v)) {
                sum += v->valuedouble;
                cnt++;
            }
        }
        if (cnt)
            util[(int)g] = sum / cnt;
    }
    cJSON_Delete(root);
    return 0;
}
