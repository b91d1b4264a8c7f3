/* det_memory_full.c - memory_full: the GPU's memory is at least 95 % used for a long stretch, so
 * the next allocation may fail (out of memory) or the caching allocator thrashes. */
#include "diag_internal.h"
#include <math.h>
#include <stdlib.h>

#define MERGE_US 10000000ull
#define MAX_RUNS 256

static void report(diag_ctx *c, const diag_gpu_view *v, const dstat_run *best, double full_s, double peak)
{
    const diag_gpu *g = v->g;
    diag_finding *f = diag_emit(c, "memory_full", DIAG_WARNING, v->gpu, best->from_us, best->to_us);
    if (!f)
        return;
    double span = (double)(g->last_us - g->first_us) / 1e6;
    f->score = peak / g->mem_total_mib;
    diag_finding_num(f, "max_used_mib", peak, "MiB");
    diag_finding_num(f, "total_mib", g->mem_total_mib, "MiB");
    diag_finding_num(f, "max_used_share", peak / g->mem_total_mib, "");
    diag_finding_num(f, "longest_full_s", (double)(best->to_us - best->from_us) / 1e6, "s");
    diag_finding_num(f, "full_s", full_s, "s");
    if (span > 0)
        diag_finding_num(f, "full_share", full_s < span ? full_s / span : 1, "");
    const diag_proc *p[DIAG_MAX_PIDS];
    int k = diag_procs_in(c, v->gpu, best->from_us, best->to_us, p, DIAG_MAX_PIDS);
    char label[160] = "";
    if (k > 0)
        diag_proc_label(p[0], label, sizeof label);
    diag_finding_summary(f, "GPU %d memory is full: %.0f of %.0f MiB used (%.1f %%) for %.0f min%s%s", v->gpu, peak,
                         g->mem_total_mib, 100 * peak / g->mem_total_mib, full_s / 60, k ? ", mostly by " : "", label);
    diag_finding_advice(f, "Reduce the memory per step: a smaller batch with gradient accumulation to keep the "
                           "effective batch");
    diag_finding_advice(f, "Use mixed precision (bf16/fp16 autocast) and activation checkpointing "
                           "(torch.utils.checkpoint) to trade compute for memory");
    diag_finding_advice(f, "If out-of-memory errors come with free memory left, the caching allocator is fragmented: "
                           "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True");
    diag_finding_advice(f, "If a framework reserved the memory up front (TensorFlow by default, JAX's preallocation, "
                           "vLLM's --gpu-memory-utilization), it is held rather than needed: let it grow on demand "
                           "(TF_FORCE_GPU_ALLOW_GROWTH=true, XLA_PYTHON_CLIENT_PREALLOCATE=false) or reserve less");
    if (k > 1)
        diag_finding_advice(f, "%d processes share this GPU: move one elsewhere", k);
    diag_chart_series(f, &g->s[DS_MEM_USED], v->gpu, "memory.used", "MiB", best->from_us, best->to_us, 0);
    f->chart.lo = 0;
    f->chart.hi = (float)g->mem_total_mib;
}

void det_memory_full(diag_ctx *c)
{
    const diag_config *cfg = c->cfg;
    for (int i = 0; i < c->n_views; i++) {
        diag_gpu_view *v = &c->views[i];
        const diag_gpu *g = v->g;
        const diag_series *m = &g->s[DS_MEM_USED];
        if (m->n < 2 || isnan(g->mem_total_mib))
            continue;
        unsigned char *mask = malloc((size_t)m->n);
        dstat_run *runs = malloc(MAX_RUNS * sizeof *runs);
        float *scratch = malloc((size_t)m->n * sizeof *scratch);
        if (mask && runs && scratch) {
            double thr = cfg->memory_full.used_frac * g->mem_total_mib, peak = 0;
            for (int k = 0; k < m->n; k++) {
                mask[k] = m->v[k] >= thr;
                peak = m->v[k] > peak ? m->v[k] : peak;
            }
            uint64_t step = dstat_median_step(m->t, m->n, scratch);
            int n = dstat_runs(m->t, mask, m->n, step ? step : 1000000, MERGE_US, runs, MAX_RUNS);
            double span = (double)(g->last_us - g->first_us) / 1e6, need = cfg->memory_full.min_duration_s;
            if (span < 2 * need)
                need = cfg->memory_full.min_share * span;
            double full = 0;
            int best = -1;
            for (int k = 0; k < n && k < MAX_RUNS; k++) {
                double d = (double)(runs[k].to_us - runs[k].from_us) / 1e6;
                full += d;
                if (best < 0 || d > (double)(runs[best].to_us - runs[best].from_us) / 1e6)
                    best = k;
            }
            if (best >= 0 && need > 0 && (double)(runs[best].to_us - runs[best].from_us) / 1e6 >= need)
                report(c, v, &runs[best], full, peak);
        }
        free(mask);
        free(runs);
        free(scratch);
    }
}
