/* diag_fleet_cross.c - the cross-host detectors over a fleet's jobs (diag_fleet_cross, see
 * diag_fleet.h): straggler among all of a job's GPUs wherever they are; imbalance between a job's
 * hosts (one host's GPUs busy less than the others', their clocks normal: less work or a slower
 * input pipeline there); idle_holding of a whole job across its hosts (every GPU idle with memory
 * held). docs/diagnosis.md, "Fleets". */
#include "diag_fleet.h"
#include "diag_internal.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static diag_fleet_finding *emit(diag_fleet *fl, int host, const char *detector, diag_severity sev, uint64_t from,
                                uint64_t to)
{
    if (fl->n == fl->cap) {
        int cap = fl->cap ? fl->cap * 2 : 16;
        diag_fleet_finding *p = realloc(fl->f, sizeof *p * (size_t)cap);
        if (!p) {
            fl->oom = 1;
            return NULL;
        }
        fl->f = p;
        fl->cap = cap;
    }
    diag_fleet_finding *ff = &fl->f[fl->n++];
    memset(ff, 0, sizeof *ff);
    ff->host = host;
    ff->f.detector = detector;
    ff->f.severity = sev;
    ff->f.from_us = from;
    ff->f.to_us = to;
    return ff;
}

/* The job's GPUs on host h into f (and how many there are). */
static int gpus_on(const diag_job *j, int h, diag_finding *f)
{
    int k = 0;
    for (int i = 0; i < j->n; i++)
        if (j->m[i].host == h) {
            diag_finding_gpu(f, j->m[i].gpu);
            k++;
        }
    return k;
}

/* "a, b, c" of the job's hosts. */
static int host_list(const diag_fleet *fl, const diag_job *j, char *out, size_t n)
{
    int nh = 0;
    size_t len = 0;
    out[0] = 0;
    for (int i = 0; i < j->n; i++) {
        int seen = 0;
        for (int k = 0; k < i; k++)
            seen |= j->m[k].host == j->m[i].host;
        if (seen)
            continue;
        nh++;
        if (len < n)
            len += (size_t)snprintf(out + len, n - len, "%s%s", len ? ", " : "", fl->hosts[j->m[i].host]);
    }
    return nh;
}

static void stragglers(diag_fleet *fl, const diag_job *j, const diag_config *cfg, int nhosts)
{
    diag_straggler *s = malloc(sizeof *s * (size_t)j->n);
    if (!s) {
        fl->oom = 1;
        return;
    }
    int found = diag_straggler_scan(j->m, j->n, cfg, fl->from_us, fl->to_us, s, j->n);
    for (int k = 0; k < found; k++) {
        const diag_member *m = &j->m[s[k].member];
        diag_fleet_finding *ff = emit(fl, m->host, "straggler", s[k].deficit >= 0.25 ? DIAG_CRITICAL : DIAG_WARNING,
                                      s[k].from_us, s[k].to_us);
        if (!ff)
            break;
        diag_finding *f = &ff->f;
        diag_finding_gpu(f, m->gpu);
        /* the whole job waits for it: every member loses the straggler's deficit */
        ff->gpu_hours = s[k].deficit * j->n * s[k].slow_s / 3600;
        f->score = ff->gpu_hours;
        const char *unit = s[k].why == STRAGGLER_CLOCK ? "MHz" : s[k].why == STRAGGLER_POWER ? "W" : "";
        diag_finding_str(f, "job", "%s", j->id);
        diag_finding_num(f, "members", j->n, "");
        diag_finding_num(f, "hosts", nhosts, "");
        diag_finding_num(f, "slow_share", s[k].share, "");
        diag_finding_num(f, "slow_s", s[k].slow_s, "s");
        diag_finding_num(f, "deficit", s[k].deficit, "");
        diag_finding_num(f, "its_value", s[k].mine, unit);
        diag_finding_num(f, "others_median", s[k].others, unit);
        const char *what = s[k].why == STRAGGLER_CLOCK   ? "SM clock"
                           : s[k].why == STRAGGLER_POWER ? "power draw"
                                                         : "share of time throttled";
        double scale = s[k].why == STRAGGLER_THROTTLE ? 100 : 1;
        const char *suffix = s[k].why == STRAGGLER_CLOCK ? " MHz" : s[k].why == STRAGGLER_POWER ? " W" : " %";
        diag_finding_summary(f,
                             "GPU %d of %s is the straggler of job %s (%d GPUs on %d hosts): its %s is %.0f%s against "
                             "the others' %.0f%s in %.0f %% of the busy time; the job runs at its pace",
                             m->gpu, fl->hosts[m->host], j->id, j->n, nhosts, what, s[k].mine * scale, suffix,
                             s[k].others * scale, suffix, s[k].share * 100);
        diag_finding_advice(f,
                            "Check this GPU's clock event reasons, cooling and power on %s (nvidia-smi -q -d "
                            "PERFORMANCE,TEMPERATURE,POWER)",
                            fl->hosts[m->host]);
        diag_finding_advice(f, "Drain the host or exclude the GPU from the job's next allocation (Slurm: --exclude; "
                               "Kubernetes: cordon the node) and run dcgmi diag -r 3 on it");
    }
    free(s);
}

/* The mean of a member's utilization over the buckets where busy[b]. */
static double mean_util(const diag_member *m, const unsigned char *busy, int *n)
{
    double sum = 0;
    *n = 0;
    for (int b = 0; b < DIAG_FLEET_BUCKETS; b++)
        if (busy[b] && isfinite(m->util[b])) {
            sum += m->util[b];
            (*n)++;
        }
    return *n ? sum / *n : NAN;
}

/* One host's GPUs of a job busy less than the job's other hosts', with normal clocks. */
static void host_imbalance(diag_fleet *fl, const diag_job *j, const diag_config *cfg, const int *hosts, int nh)
{
    unsigned char busy[DIAG_FLEET_BUCKETS];
    int nbusy = 0;
    for (int b = 0; b < DIAG_FLEET_BUCKETS; b++) {
        float hi = NAN;
        for (int i = 0; i < j->n; i++)
            if (!(j->m[i].util[b] <= hi))
                hi = j->m[i].util[b];
        busy[b] = isfinite(hi) && hi >= cfg->imbalance.min_busy_util;
        nbusy += busy[b];
    }
    double width_s = (double)(fl->to_us - fl->from_us) / 1e6 / DIAG_FLEET_BUCKETS;
    if (nbusy * width_s < cfg->imbalance.min_duration_s)
        return;
    float *means = calloc((size_t)nh, sizeof *means);
    if (!means) {
        fl->oom = 1;
        return;
    }
    for (int h = 0; h < nh; h++) {
        double sum = 0;
        int cnt = 0;
        for (int i = 0; i < j->n; i++) {
            int k;
            double u = j->m[i].host == hosts[h] ? mean_util(&j->m[i], busy, &k) : NAN;
            if (isfinite(u)) {
                sum += u;
                cnt++;
            }
        }
        means[h] = cnt ? (float)(sum / cnt) : NAN;
    }
    float *tmp = malloc(sizeof *tmp * (size_t)nh);
    for (int h = 0; tmp && h < nh; h++) {
        memcpy(tmp, means, sizeof *tmp * (size_t)nh);
        double others = diag_median_but(tmp, nh, h);
        if (!isfinite(means[h]) || !isfinite(others) || means[h] > others - cfg->imbalance.min_gap)
            continue;
        diag_fleet_finding *ff = emit(fl, hosts[h], "imbalance", DIAG_WARNING, fl->from_us, fl->to_us);
        if (!ff)
            break;
        diag_finding *f = &ff->f;
        int ngpu = gpus_on(j, hosts[h], f);
        ff->gpu_hours = (others - means[h]) / 100 * (j->n - ngpu) * nbusy * width_s / 3600;
        f->score = ff->gpu_hours;
        diag_finding_str(f, "job", "%s", j->id);
        diag_finding_num(f, "host_util", means[h], "%");
        diag_finding_num(f, "other_hosts_util", others, "%");
        diag_finding_num(f, "hosts", nh, "");
        diag_finding_summary(f,
                             "job %s: the GPUs on %s are busy %.0f %% of the time against %.0f %% on its other %d "
                             "host%s: that host gets less work or feeds its GPUs slower, and the others wait",
                             j->id, fl->hosts[hosts[h]], means[h], others, nh - 1, nh == 2 ? "" : "s");
        diag_finding_advice(f,
                            "Compare the data loading on %s with the other hosts (CPU, storage, network): a "
                            "slower input pipeline there holds every rank back",
                            fl->hosts[hosts[h]]);
        diag_finding_advice(f, "Check that the job's shards or batches are the same size on every host");
    }
    free(tmp);
    free(means);
}

/* Every GPU of the job idle with memory held, across its hosts, for at least min_idle_s. */
static void job_idle(diag_fleet *fl, const diag_job *j, const diag_config *cfg, const int *hosts, int nh)
{
    double width_s = (double)(fl->to_us - fl->from_us) / 1e6 / DIAG_FLEET_BUCKETS;
    int idle = 0, first = -1, last = 0;
    for (int b = 0; b < DIAG_FLEET_BUCKETS; b++) {
        int all = 1, seen = 0;
        for (int i = 0; i < j->n && all; i++) {
            const diag_member *m = &j->m[i];
            if (!isfinite(m->util[b]))
                continue;
            seen++;
            all = m->util[b] < cfg->idle_holding.idle_util && isfinite(m->mem[b]) &&
                  m->mem[b] >= cfg->idle_holding.min_held_mib;
        }
        if (all && seen == j->n) {
            idle++;
            first = first < 0 ? b : first;
            last = b;
        }
    }
    if (idle * width_s < cfg->idle_holding.min_idle_s)
        return;
    uint64_t from = fl->from_us + (uint64_t)(first * width_s * 1e6),
             to = fl->from_us + (uint64_t)((last + 1) * width_s * 1e6);
    diag_fleet_finding *ff = emit(fl, hosts[0], "idle_holding", DIAG_WARNING, from, to);
    if (!ff)
        return;
    diag_finding *f = &ff->f;
    gpus_on(j, hosts[0], f);
    ff->gpu_hours = j->n * idle * width_s / 3600;
    f->score = ff->gpu_hours;
    char list[300];
    host_list(fl, j, list, sizeof list);
    diag_finding_str(f, "job", "%s", j->id);
    diag_finding_str(f, "hosts", "%s", list);
    diag_finding_num(f, "members", j->n, "");
    diag_finding_num(f, "idle_s", idle * width_s, "s");
    diag_finding_summary(f,
                         "job %s holds %d GPUs on %d hosts (%s) with memory in use, all idle (utilization < %.0f "
                         "%%) for %.0f min",
                         j->id, j->n, nh, list, cfg->idle_holding.idle_util, idle * width_s / 60);
    diag_finding_advice(f, "Ask the job's owner to end it or release its GPUs; let the scheduler reclaim jobs idle "
                           "this long (an idle timeout)");
}

int diag_fleet_cross(diag_fleet *fl, const diag_config *cfg)
{
    int before = fl->n;
    int *hosts = malloc(sizeof *hosts * DIAG_FLEET_MAX_MEMBERS);
    if (!hosts)
        return -1;
    for (int k = 0; k < fl->njobs; k++) {
        const diag_job *j = &fl->jobs[k];
        int nh = 0;
        for (int i = 0; i < j->n; i++) {
            int seen = 0;
            for (int h = 0; h < nh; h++)
                seen |= hosts[h] == j->m[i].host;
            if (!seen)
                hosts[nh++] = j->m[i].host;
        }
        if (j->n >= 2 && cfg->straggler.enabled >= 0.5)
            stragglers(fl, j, cfg, nh);
        if (nh >= 2 && cfg->imbalance.enabled >= 0.5)
            host_imbalance(fl, j, cfg, hosts, nh);
        if (nh >= 2 && cfg->idle_holding.enabled >= 0.5)
            job_idle(fl, j, cfg, hosts, nh);
    }
    free(hosts);
    return fl->oom ? -1 : fl->n - before;
}
