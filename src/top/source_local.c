/* source_local.c - a top_source reading this machine's GPUs through the sampler. */
#include "top_model.h"
#include "sampler.h"
#include "util.h"
#include <stdlib.h>
#include <string.h>

typedef struct local_ctx {
    sampler s;
    metric_set want;
    gpu_sample *tmp; /* one per GPU, filled without the model lock */
    gpu_proc *procs;
} local_ctx;

/* The metrics the UI shows (static ones are merged in by the sampler anyway). */
static void wanted(metric_set *w)
{
    static const metric_id ids[] = {
        M_PSTATE,   M_FAN_SPEED, M_TEMP_GPU,     M_TEMP_MEMORY, M_UTIL_GPU,      M_UTIL_MEMORY,
        M_MEM_USED, M_MEM_FREE,  M_MEM_RESERVED, M_POWER_DRAW,  M_POWER_LIMIT,   M_POWER_ENFORCED_LIMIT,
        M_CLOCK_GR, M_CLOCK_SM,  M_CLOCK_MEM,    M_CER_ACTIVE,  M_PCIE_GEN_CUR,  M_PCIE_WIDTH_CUR,
        M_PCIE_RX,  M_PCIE_TX,   M_ECC_SBE_VOL,  M_ECC_DBE_VOL, M_REMAP_PENDING, M_REMAP_FAILURE,
        M_XID_LAST, M_XID_COUNT,
    };
    memset(w, 0, sizeof *w);
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
        mset_add(w, ids[i]);
}

static int local_refresh(void *vctx, top_model *m)
{
    local_ctx *c = vctx;
    int n = c->s.count, np = 0;
    for (int i = 0; i < n; i++)
        sampler_read(&c->s, i, &c->want, &c->tmp[i]);
    for (int i = 0; i < n && np < TOP_MAX_PROCS; i++) {
        int k = sampler_read_processes(&c->s, i, c->procs + np, TOP_MAX_PROCS - np);
        if (k > 0)
            np += k;
    }
    uint64_t now = gw_mono_us();
    pthread_mutex_lock(&m->lock);
    for (int i = 0; i < n; i++) {
        top_gpu *g = &m->gpus[i];
        g->info = c->s.gpus[i].info;
        g->s = c->tmp[i];
        g->have_sample = 1;
        g->lost = c->tmp[i].status == GPU_LOST;
        if (c->tmp[i].status == GPU_OK) {
            g->fresh_us = now;
            ring_push(m->hist, i, &c->tmp[i]);
        }
    }
    memcpy(m->procs, c->procs, (size_t)np * sizeof *m->procs);
    m->nprocs = np;
    m->updated_us = now;
    m->seq++;
    m->error[0] = 0;
    pthread_mutex_unlock(&m->lock);
    return 0;
}

static void local_close(void *vctx)
{
    local_ctx *c = vctx;
    sampler_close(&c->s);
    free(c->tmp);
    free(c->procs);
    free(c);
}

int top_source_local(top_source *src, top_model *m, char *err, size_t errlen)
{
    local_ctx *c = calloc(1, sizeof *c);
    if (!c) {
        gw_strlcpy(err, "out of memory", errlen);
        return BK_ERR_OTHER;
    }
    backend_status st = sampler_open(&c->s, err, errlen);
    if (st != BK_OK) {
        free(c);
        return st;
    }
    int n = c->s.count > TOP_MAX_GPUS ? TOP_MAX_GPUS : c->s.count;
    c->s.count = n;
    c->tmp = calloc((size_t)(n ? n : 1), sizeof *c->tmp);
    c->procs = calloc(TOP_MAX_PROCS, sizeof *c->procs);
    m->hist = ring_new(n ? n : 1, TOP_HISTORY);
    if (!c->tmp || !c->procs || !m->hist) {
        gw_strlcpy(err, "out of memory", errlen);
        local_close(c);
        return BK_ERR_OTHER;
    }
    wanted(&c->want);
    m->versions = c->s.versions;
    m->ngpus = n;
    for (int i = 0; i < n; i++)
        m->gpus[i].info = c->s.gpus[i].info;
    src->ctx = c;
    src->refresh = local_refresh;
    src->close = local_close;
    return BK_OK;
}
