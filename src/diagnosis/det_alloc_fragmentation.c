/* det_alloc_fragmentation.c - alloc_fragmentation: the job's own output shows PyTorch's caching
 * allocator failing for want of contiguous memory, not of memory: an out-of-memory error while the
 * memory it had reserved but left unallocated could have held the request (and is a material share
 * of the GPU), or allocator cache flushes in step after step. NVML cannot see fragmentation: the
 * job's words are the evidence (`gpuwatch run` reads them). */
#include "diag_internal.h"
#include <math.h>
#include <stdio.h>

typedef struct {
    int ooms, frag, flush_steps, flushes;
    const diag_job_note *worst; /* the fragmented OOM with the most reserved-but-unallocated */
    uint64_t from, to;
} allocs;

static void gather(const diag_ctx *c, int gpu, allocs *a)
{
    const diag_config *cfg = c->cfg;
    double total = c->views[gpu].g->mem_total_mib;
    for (int i = 0; i < c->w->n_notes; i++) {
        const diag_job_note *n = &c->w->notes[i];
        if (n->gpu != gpu)
            continue;
        if (n->kind == DIAG_NOTE_FLUSH) {
            a->flush_steps++;
            a->flushes += n->flushes;
        } else {
            a->ooms++;
            double cap = !isnan(n->capacity_mib) ? n->capacity_mib : total;
            /* fragmented: the cache's free blocks add up to the request (so the memory is there, not in one
             * piece), and to a material share of the GPU */
            int frag = !isnan(n->unallocated_mib) && n->unallocated_mib >= n->tried_mib &&
                       (isnan(cap) || n->unallocated_mib >= cfg->alloc_fragmentation.min_unalloc_frac * cap);
            if (!frag)
                continue;
            a->frag++;
            if (!a->worst || n->unallocated_mib > a->worst->unallocated_mib)
                a->worst = n;
        }
        if (!a->from)
            a->from = n->t_us;
        a->to = n->t_us;
    }
}

static void report(diag_ctx *c, int gpu, const allocs *a)
{
    const diag_job_note *n = a->worst;
    diag_finding *f = diag_emit(c, "alloc_fragmentation", DIAG_WARNING, gpu, a->from, a->to);
    if (!f)
        return;
    f->score = a->frag * 10 + a->flush_steps;
    diag_finding_num(f, "ooms", a->ooms, "");
    diag_finding_num(f, "fragmented_ooms", a->frag, "");
    diag_finding_num(f, "cache_flush_steps", a->flush_steps, "");
    diag_finding_num(f, "cache_flushes", a->flushes, "");
    char numbers[160] = "";
    if (n) {
        diag_finding_num(f, "tried_mib", n->tried_mib, "MiB");
        diag_finding_num(f, "reserved_unallocated_mib", n->unallocated_mib, "MiB");
        if (!isnan(n->allocated_mib))
            diag_finding_num(f, "allocated_mib", n->allocated_mib, "MiB");
        if (!isnan(n->reserved_mib))
            diag_finding_num(f, "reserved_mib", n->reserved_mib, "MiB");
        if (!isnan(n->capacity_mib))
            diag_finding_num(f, "capacity_mib", n->capacity_mib, "MiB");
        if (!isnan(n->free_mib))
            diag_finding_num(f, "free_mib", n->free_mib, "MiB");
        snprintf(numbers, sizeof numbers, "%.0f MiB reserved but unallocated when %.0f MiB could not be allocated",
                 n->unallocated_mib, n->tried_mib);
        diag_finding_summary(f,
                             "GPU %d: the job ran out of memory %d time(s) with memory to spare but not in one piece: "
                             "%s%s",
                             gpu, a->frag, numbers, a->flush_steps ? ", and its allocator flushed its cache" : "");
    } else {
        snprintf(numbers, sizeof numbers, "%d cache flushes in %d steps", a->flushes, a->flush_steps);
        diag_finding_summary(f,
                             "GPU %d: the job's allocator flushed its cache to find memory in %d steps (%d flushes): "
                             "the memory is fragmented or nearly full",
                             gpu, a->flush_steps, a->flushes);
    }
    diag_finding_advice(f,
                        "Set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True so freed blocks can grow into one "
                        "segment (%s)",
                        numbers);
    diag_finding_advice(f, "Or cap the blocks the allocator splits: PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:%.0f",
                        n && n->tried_mib > 128 ? ceil(n->tried_mib / 128) * 128 : 512);
    diag_finding_advice(
        f, "Varying shapes fragment the cache: pad or bucket sequence lengths; torch.cuda.memory_summary() "
           "shows the inactive split blocks");
    if (a->flush_steps)
        diag_finding_advice(f, "Flushes every step stall the job: lower the memory per step (batch, activation "
                               "checkpointing), or call torch.cuda.empty_cache() on every rank at the same step");
}

void det_alloc_fragmentation(diag_ctx *c)
{
    if (c->w->n_notes == 0)
        return;
    for (int g = 0; g < c->n_views; g++) {
        allocs a = {0};
        gather(c, g, &a);
        if (a.frag > 0 || a.flush_steps >= c->cfg->alloc_fragmentation.min_flush_steps)
            report(c, g, &a);
    }
}
