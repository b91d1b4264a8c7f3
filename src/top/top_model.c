/* top_model.c - the model's life cycle and staleness rule (see top_model.h). */
#include "top_model.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int top_model_init(top_model *m)
{
    memset(m, 0, sizeof *m);
    if (pthread_mutex_init(&m->lock, NULL) != 0)
        return -1;
    m->procs = calloc(TOP_MAX_PROCS, sizeof *m->procs);
    if (!m->procs)
        return -1;
    if (gethostname(m->host, sizeof m->host - 1) != 0)
        strcpy(m->host, "localhost");
    return 0;
}

void top_model_free(top_model *m)
{
    if (m->hist)
        ring_free(m->hist);
    free(m->procs);
    pthread_mutex_destroy(&m->lock);
    memset(m, 0, sizeof *m);
}

int top_gpu_stale(const top_gpu *g, uint64_t now_mono_us, double interval_s)
{
    if (!g->have_sample || g->lost)
        return 0;
    double limit_us = interval_s * 1e6 * TOP_STALE_INTERVALS;
    if (limit_us < 3e6)
        limit_us = 3e6;
    return (double)(now_mono_us - g->fresh_us) > limit_us;
}
