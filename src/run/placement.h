/* placement.h - which GPUs a job gets: the eligible ones (not lost, not reserved by another run,
 * enough free memory, utilization under the limit, in --only and not in --exclude), ranked by free
 * memory and utilization with GPU 0 last, and for several GPUs the set that sits closest together
 * (NVLink, then one PCIe switch, then one NUMA node). Pure logic: the caller measures. */
#ifndef GPUWATCH_RUN_PLACEMENT_H
#define GPUWATCH_RUN_PLACEMENT_H

#include "backend.h"

#define RUN_MAX_GPUS GW_TOPO_MAX_GPUS

typedef struct place_gpu {
    int lost;
    int reserved;      /* held by another gpuwatch run */
    double free_mib;   /* NAN when unknown */
    double util;       /* mean utilization over the window, %; NAN when unknown */
    char holder[160];  /* who holds it, when reserved */
    char unusable[96]; /* why no job can be given it at all ("" when it can) */
} place_gpu;

typedef struct place_request {
    int n;
    double min_free_mib; /* 0: any */
    double max_util;     /* >= 100: any */
    int has_only;
    unsigned char only[RUN_MAX_GPUS];
    unsigned char exclude[RUN_MAX_GPUS];
} place_request;

typedef struct place_result {
    int n;                  /* GPUs chosen: the request's n, or 0 */
    int gpus[RUN_MAX_GPUS]; /* in index order */
    int neligible;
    int cost;                    /* the chosen set's topology cost (lower is closer) */
    char why[RUN_MAX_GPUS][160]; /* per GPU: why it is not eligible ("" when it is) */
} place_result;

/* Cost of running one job on GPUs a and b together, from a's topology: 0 (NVLink, one switch)
 * to 5 (PCIe only, across NUMA nodes). */
int place_pair_cost(const gpu_topology *a, int b);

/* Chooses rq->n GPUs among ngpus (cost[i][j]: place_pair_cost; NULL when unknown, all equal).
 * Returns rq->n, or 0 when fewer are eligible (out->why says why each GPU is not). */
int place_choose(const place_gpu *g, int ngpus, const place_request *rq, const unsigned char (*cost)[RUN_MAX_GPUS],
                 place_result *out);

#endif
