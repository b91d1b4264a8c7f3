/* placement.c - eligibility, ranking and the topology-aware choice of a job's GPUs (placement.h). */
#include "placement.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

int place_pair_cost(const gpu_topology *a, int b)
{
    int c = a->nvlink[b] ? 0 : 3;
    switch (a->path[b]) {
    case TOPO_PATH_SWITCH:
    case TOPO_PATH_BRIDGES: return c;
    case TOPO_PATH_HOSTBRIDGE:
    case TOPO_PATH_NODE: return c + 1;
    default: return c + 2;
    }
}

static void eligibility(const place_gpu *g, int i, const place_request *rq, char *why, size_t n)
{
    why[0] = 0;
    if (rq->has_only && !rq->only[i])
        snprintf(why, n, "not in --only");
    else if (rq->exclude[i])
        snprintf(why, n, "excluded");
    else if (g->lost)
        snprintf(why, n, "lost (fell off the bus)");
    else if (g->unusable[0])
        snprintf(why, n, "%s", g->unusable);
    else if (g->reserved)
        snprintf(why, n, "reserved by %s", g->holder[0] ? g->holder : "another gpuwatch run");
    else if (rq->min_free_mib > 0 && !(g->free_mib >= rq->min_free_mib))
        snprintf(why, n, isnan(g->free_mib) ? "free memory unknown" : "%.0f MiB free, under --min-free-mem",
                 g->free_mib);
    else if (rq->max_util < 100 && !(g->util <= rq->max_util))
        snprintf(why, n, isnan(g->util) ? "utilization unknown" : "%.0f %% busy, over --max-util", g->util);
}

/* Rank keys: whole GiB free (more first), utilization in 5 % steps (less first), GPU 0 last, index. */
static int better(const place_gpu *g, int a, int b)
{
    double fa = isnan(g[a].free_mib) ? -1 : floor(g[a].free_mib / 1024);
    double fb = isnan(g[b].free_mib) ? -1 : floor(g[b].free_mib / 1024);
    if (fa != fb)
        return fa > fb;
    double ua = isnan(g[a].util) ? 101 : floor(g[a].util / 5);
    double ub = isnan(g[b].util) ? 101 : floor(g[b].util / 5);
    if (ua != ub)
        return ua < ub;
    if ((a == 0) != (b == 0))
        return b == 0;
    return a < b;
}

int place_choose(const place_gpu *g, int ngpus, const place_request *rq, const unsigned char (*cost)[RUN_MAX_GPUS],
                 place_result *out)
{
    memset(out, 0, sizeof *out);
    if (ngpus > RUN_MAX_GPUS)
        ngpus = RUN_MAX_GPUS;
    int rank[RUN_MAX_GPUS], nr = 0;
    for (int i = 0; i < ngpus; i++) {
        eligibility(&g[i], i, rq, out->why[i], sizeof out->why[i]);
        if (out->why[i][0])
            continue;
        int k = nr++;
        while (k > 0 && better(g, i, rank[k - 1])) {
            rank[k] = rank[k - 1];
            k--;
        }
        rank[k] = i;
    }
    out->neligible = nr;
    if (rq->n <= 0 || nr < rq->n)
        return 0;
    /* For each seed in rank order, grow a set by the GPU closest to it (then the best ranked); keep
     * the set of lowest total cost, then of best worst rank (so a set without GPU 0 wins a tie),
     * then of best ranks. */
    int best[RUN_MAX_GPUS], best_cost = -1, best_ranks = 0, best_worst = 0;
    for (int s = 0; s < nr; s++) {
        int set[RUN_MAX_GPUS], in[RUN_MAX_GPUS] = {0}, total = 0, ranks = s, worst = s;
        set[0] = rank[s];
        in[s] = 1;
        for (int m = 1; m < rq->n; m++) {
            int pick = -1, pick_cost = 0;
            for (int r = 0; r < nr; r++) {
                if (in[r])
                    continue;
                int c = 0;
                for (int k = 0; k < m && cost; k++)
                    c += cost[set[k]][rank[r]];
                if (pick < 0 || c < pick_cost) {
                    pick = r;
                    pick_cost = c;
                }
            }
            in[pick] = 1;
            set[m] = rank[pick];
            total += pick_cost;
            ranks += pick;
            worst = pick > worst ? pick : worst;
        }
        if (best_cost < 0 || total < best_cost ||
            (total == best_cost && (worst < best_worst || (worst == best_worst && ranks < best_ranks)))) {
            best_cost = total;
            best_ranks = ranks;
            best_worst = worst;
            memcpy(best, set, (size_t)rq->n * sizeof *set);
        }
    }
    /* index order */
    for (int i = 1; i < rq->n; i++)
        for (int k = i; k > 0 && best[k] < best[k - 1]; k--) {
            int t = best[k];
            best[k] = best[k - 1];
            best[k - 1] = t;
        }
    memcpy(out->gpus, best, (size_t)rq->n * sizeof *best);
    out->n = rq->n;
    out->cost = best_cost;
    return rq->n;
}
