/* det_imbalance.c - imbalance: the GPUs of one job (same user, container and command on several
 * GPUs), or the replicas of one service (same user and command line, one container each, behind a
 * balancer), are not used alike. Over the time they run together, each GPU's utilization
 * histogram is compared with the group's most typical GPU (Jensen-Shannon distance); a GPU far
 * from it (> 0.2) whose p10, p50 or p90 also differs from it by 15 points or more is named: one
 * straggler, or a group that does less. A job is judged when it keeps its typical GPU busy (p10
 * >= 40 %: synchronous work); replicas serve bursts on their own, and are judged when the busiest
 * is used at all (mean >= 20 %): a fair balancer spreads the same load, so replicas that differ
 * only by noise stay close, and a skewed one shows. */
#include "diag_internal.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BINS 10
#define MAX_JOB_GPUS DIAG_MAX_FINDING_GPUS

typedef struct {
    int gpu;
    const diag_proc *proc;
    uint64_t from, to; /* the process's presence */
    double hist[BINS];
    double q[3]; /* p10, p50, p90 */
    double mean; /* what the summary says (a median hides a GPU that swings) */
    int n;
    double dist; /* JS distance to the job's typical GPU */
    double gap;  /* largest quantile difference from it */
} member;

typedef struct {
    char key[512];
    member m[MAX_JOB_GPUS];
    int n;
    int replicas; /* a service's replicas (one container each), not one job's ranks */
} job;

static int find_member(const job *j, int gpu)
{
    for (int i = 0; i < j->n; i++)
        if (j->m[i].gpu == gpu)
            return i;
    return -1;
}

/* The replicas of one service share this key: user and command line (without a rank), whatever
 * their containers. Only a visible command line tells a service's replicas from a user's other jobs. */
static void replica_key(const diag_proc *p, char *out, size_t n)
{
    diag_proc q = *p;
    q.container[0] = 0;
    diag_job_key(&q, out, n);
}

/* Members in more than one container: replicas (in one, the group is a job, judged as such). */
static int several_containers(const job *j)
{
    for (int i = 1; i < j->n; i++)
        if (strcmp(j->m[i].proc->container, j->m[0].proc->container) != 0)
            return 1;
    return 0;
}

/* Groups the processes into jobs (replicas: into services); returns the number of groups in out. */
static int group(const diag_ctx *c, job *out, int max, int replicas)
{
    int n = 0;
    char key[512];
    for (int i = 0; i < c->w->n_procs; i++) {
        const diag_proc *p = &c->w->procs[i];
        if (p->n_spans == 0 || p->gpu < 0 || p->gpu >= c->n_views || c->views[p->gpu].n == 0 ||
            (replicas && !p->cmdline[0]))
            continue;
        if (replicas)
            replica_key(p, key, sizeof key);
        else
            diag_job_key(p, key, sizeof key);
        int k = 0;
        while (k < n && strcmp(out[k].key, key) != 0)
            k++;
        if (k == n) {
            if (n == max)
                continue;
            memset(&out[n], 0, sizeof out[n]);
            snprintf(out[n].key, sizeof out[n].key, "%s", key);
            n++;
        }
        job *j = &out[k];
        int mi = find_member(j, p->gpu);
        if (mi < 0 && j->n < MAX_JOB_GPUS) {
            mi = j->n++;
            j->m[mi].gpu = p->gpu;
            j->m[mi].proc = p;
            j->m[mi].from = p->spans[0].from_us;
            j->m[mi].to = p->spans[p->n_spans - 1].to_us;
        } else if (mi >= 0) {
            member *m = &j->m[mi];
            m->from = p->spans[0].from_us < m->from ? p->spans[0].from_us : m->from;
            m->to = p->spans[p->n_spans - 1].to_us > m->to ? p->spans[p->n_spans - 1].to_us : m->to;
        }
    }
    if (!replicas)
        return n;
    int kept = 0;
    for (int k = 0; k < n; k++)
        if (several_containers(&out[k])) {
            if (kept != k)
                out[kept] = out[k];
            out[kept++].replicas = 1;
        }
    return kept;
}

/* Each member's histogram and quantiles over [from, to]. */
static int describe(const diag_ctx *c, job *j, uint64_t from, uint64_t to)
{
    for (int i = 0; i < j->n; i++) {
        member *m = &j->m[i];
        const diag_gpu_view *v = &c->views[m->gpu];
        float *vals = malloc((size_t)v->n * sizeof *vals);
        if (!vals)
            return -1;
        m->n = 0;
        for (int k = 0; k < v->n; k++)
            if (v->t[k] >= from && v->t[k] <= to && v->held[k] != 0)
                vals[m->n++] = v->u[k];
        dstat_hist(vals, m->n, 0, 100, BINS, m->hist);
        dstat_mean_sd(vals, m->n, &m->mean, NULL);
        static const double ps[3] = {10, 50, 90};
        dstat_percentiles(vals, m->n, ps, m->q, 3);
        free(vals);
        if (m->n < 10)
            return -1;
    }
    return 0;
}

static double median(double *v, int n)
{
    for (int i = 1; i < n; i++)
        for (int k = i; k > 0 && v[k] < v[k - 1]; k--) {
            double t = v[k];
            v[k] = v[k - 1];
            v[k - 1] = t;
        }
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Each member against the job's most typical GPU (the medoid: the smallest summed distance to
 * the others): JS distance and the largest p10/p50/p90 difference. Returns the medoid. */
static int compare(job *j)
{
    double d[MAX_JOB_GPUS][MAX_JOB_GPUS];
    int medoid = 0;
    double best = INFINITY;
    for (int i = 0; i < j->n; i++) {
        double sum = 0;
        for (int o = 0; o < j->n; o++) {
            d[i][o] = o == i ? 0 : dstat_js_distance(j->m[i].hist, j->m[o].hist, BINS);
            sum += d[i][o];
        }
        if (sum < best) {
            best = sum;
            medoid = i;
        }
    }
    for (int i = 0; i < j->n; i++) {
        member *m = &j->m[i];
        /* with two GPUs neither is the typical one: each is compared with the other */
        int ref = j->n == 2 ? 1 - i : medoid;
        m->dist = d[i][ref];
        m->gap = 0;
        for (int qi = 0; qi < 3; qi++) {
            double diff = fabs(m->q[qi] - j->m[ref].q[qi]);
            m->gap = diff > m->gap ? diff : m->gap;
        }
    }
    return medoid;
}

static void report(diag_ctx *c, const job *j, const int *out, int n_out, uint64_t from, uint64_t to)
{
    diag_finding *f = diag_report_add(c->out, "imbalance", DIAG_WARNING);
    if (!f)
        return;
    f->from_us = from;
    f->to_us = to;
    char list[512] = "", all[256] = "";
    size_t len = 0, alen = 0;
    double worst = 0, max_dist = 0;
    double peer[MAX_JOB_GPUS];
    int np = 0;
    for (int i = 0; i < j->n; i++) {
        alen +=
            (size_t)snprintf(all + alen, alen < sizeof all ? sizeof all - alen : 0, "%s%d", i ? "," : "", j->m[i].gpu);
        int is_out = 0;
        for (int k = 0; k < n_out; k++)
            is_out |= out[k] == i;
        if (!is_out)
            peer[np++] = j->m[i].mean;
    }
    for (int k = 0; k < n_out; k++) {
        const member *m = &j->m[out[k]];
        diag_finding_gpu(f, m->gpu);
        diag_finding_pid(f, m->proc->pid);
        c->views[m->gpu].flags |= VIEW_IMBALANCED;
        worst = m->gap > worst ? m->gap : worst;
        max_dist = m->dist > max_dist ? m->dist : max_dist;
        len += (size_t)snprintf(list + len, len < sizeof list ? sizeof list - len : 0, "%sGPU %d at %.0f %%",
                                k ? ", " : "", m->gpu, m->mean);
    }
    double peer_med = np ? median(peer, np) : NAN;
    const diag_proc *p = j->m[out[0]].proc;
    f->score = worst / 100;
    diag_finding_str(f, "job_gpus", "%s", all);
    diag_finding_str(f, "outliers", "%s", list);
    if (!isnan(peer_med))
        diag_finding_num(f, "peer_median_util", peer_med, "%");
    diag_finding_num(f, "max_js_distance", max_dist, "");
    diag_finding_num(f, "max_quantile_gap", worst, "%");
    diag_finding_str(f, "process", "%s", p->name);
    if (p->user[0])
        diag_finding_str(f, "user", "%s", p->user);
    if (p->cmdline[0])
        diag_finding_str(f, "command", "%s", p->cmdline);
    const char *what = j->replicas ? "Replicas" : "Job";
    diag_finding_str(f, "group", "%s", j->replicas ? "replicas" : "job");
    if (isnan(peer_med))
        diag_finding_summary(f, "%s of %s on GPUs %s %s unbalanced: %s", what, p->user[0] ? p->user : p->name, all,
                             j->replicas ? "are" : "is", list);
    else
        diag_finding_summary(f, "%s of %s on GPUs %s %s unbalanced: %s while the other GPUs run at %.0f %%", what,
                             p->user[0] ? p->user : p->name, all, j->replicas ? "are" : "is", list, peer_med);
    if (j->replicas) {
        diag_finding_advice(f, "Check the load balancer: session affinity (sticky sessions), uneven weights, or a "
                               "replica taken out by a slow health check send more requests to some replicas");
        diag_finding_advice(f, "Balance on load, not on turns: least outstanding requests or power-of-two choices; "
                               "for LLM serving, prefix- or KV-cache-aware routing spreads long prompts");
        diag_finding_advice(f, "Check for a slow or throttled GPU (power cap, thermal, PCIe link): a slower replica "
                               "may get fewer requests from a latency-aware balancer");
    } else {
        diag_finding_advice(f, "Check the data sharding: shards of unequal size or sample length (bucket by length, "
                               "drop_last, a DistributedSampler per rank)");
        diag_finding_advice(f, "Check the pipeline or model-parallel split: uneven stages leave some GPUs waiting");
        diag_finding_advice(f, "Check for a slow or throttled GPU (power cap, thermal, PCIe link) and for a data "
                               "loader on the wrong NUMA node");
    }
    const member *m0 = &j->m[out[0]];
    diag_chart_series(f, &c->views[m0->gpu].g->s[DS_UTIL], m0->gpu, "utilization.gpu", "%", from, to, 1);
}

static void judge(diag_ctx *c, job *j)
{
    const diag_config *cfg = c->cfg;
    if (j->n < 2)
        return;
    for (int i = 0; i < j->n; i++)
        if (c->views[j->m[i].gpu].flags & VIEW_HANG)
            return; /* a hung job: collective_hang names its odd GPU */
    uint64_t from = j->m[0].from, to = j->m[0].to;
    for (int i = 1; i < j->n; i++) {
        from = j->m[i].from > from ? j->m[i].from : from;
        to = j->m[i].to < to ? j->m[i].to : to;
    }
    if (to <= from || (double)(to - from) / 1e6 < cfg->imbalance.min_duration_s)
        return;
    if (describe(c, j, from, to) != 0)
        return;
    int typical = compare(j);
    if (j->replicas) {
        double busiest = 0;
        for (int i = 0; i < j->n; i++)
            busiest = fmax(busiest, j->m[i].mean);
        if (busiest < cfg->imbalance.replica_min_util)
            return; /* idle replicas: nothing to balance */
    } else if (j->n > 2 && j->m[typical].q[0] < cfg->imbalance.min_busy_util) {
        return; /* the job does not keep its GPUs busy: bursty or idle work is not synchronous */
    } else if (j->n == 2 && fmax(j->m[0].q[0], j->m[1].q[0]) < cfg->imbalance.min_busy_util) {
        return;
    }
    int out[MAX_JOB_GPUS], n_out = 0;
    for (int i = 0; i < j->n; i++)
        if (j->m[i].dist > cfg->imbalance.js_max && j->m[i].gap >= cfg->imbalance.min_gap)
            out[n_out++] = i;
    if (n_out > 0)
        report(c, j, out, n_out, from, to);
}

void det_imbalance(diag_ctx *c)
{
    enum { MAX_JOBS = 64 };
    job *jobs = malloc(MAX_JOBS * sizeof *jobs);
    if (!jobs)
        return;
    for (int replicas = 0; replicas < 2; replicas++) {
        int n = group(c, jobs, MAX_JOBS, replicas);
        for (int i = 0; i < n; i++)
            judge(c, &jobs[i]);
    }
    free(jobs);
}
