/* diagnose_prometheus.c - `diagnose --prometheus`'s source: a fleet's GPU series read from an
 * engine with the Prometheus HTTP API (prom_client.h), gpuwatch's native names or, for a host that
 * has none, dcgm-exporter's; grouped by host (instance, else Hostname), GPU (gpu) and job
 * (gpuwatch_gpu_job_info's labels, dcgm-exporter's pod/namespace/hpc_job); one diagnosis window per
 * host, filled as a history file's would be, diagnosed by the same detectors; each job's GPUs
 * summarised for the cross-host detectors (diag_fleet.h). Hosts are read a batch at a time, so
 * that memory holds one batch's series and windows. docs/fleet.md, "Diagnosing a fleet". */
#include "diagnose_sources.h"
#include "diag_fleet.h"
#include "diagnose_needs.h"
#include "prom_client.h"
#include "util.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_HOST_GPUS 64
#define QUERY_POINTS 200000 /* points asked of one query: its answer stays under the client's caps */
#define UTIL_NATIVE "gpuwatch_utilization_ratio"
#define UTIL_DCGM "DCGM_FI_DEV_GPU_UTIL"
#define JOB_INFO "gpuwatch_gpu_job_info"

/* A metric read from the engine: its name in one naming and the catalog value = engine value / scale. */
typedef struct want {
    metric_id id;
    const char *name;
    double scale;
    int is_static; /* read at the range's two ends only */
} want;

typedef struct fleet_gpu {
    char job[128];
    char uuid[GW_STR_LEN];
    char model[GW_STR_LEN];
    int known;
} fleet_gpu;

typedef struct fleet_host {
    char *key;       /* the value of its key label */
    int by_hostname; /* keyed by Hostname (no instance label) */
    int native;      /* it has gpuwatch's native series */
    fleet_gpu gpu[MAX_HOST_GPUS];
} fleet_host;

typedef struct source {
    const prom_source_opts *o;
    const diag_config *cfg;
    prom_client *c;
    diag_fleet *fl;
    fleet_host *hosts; /* parallel to fl->hosts */
    int nhosts;
    double step_s;
    want wants[2][M_COUNT]; /* [native][k] */
    int nwants[2];
    unsigned char seen[2][M_COUNT]; /* a series of it came back for some host */
    int procs_seen;                 /* process series came back for some native host */
    int hosts_capped;               /* past DIAG_FLEET_MAX_HOSTS: said once */
    char err[700];
} source;

/* ---- what to read ---- */

static int wanted_metric(metric_id id)
{
    if (id == M_MEM_FREE || id == M_MEM_RESERVED)
        return 1; /* dcgm-exporter's total: used + free + reserved */
    static const metric_id statics[] = {M_POWER_DEFAULT_LIMIT, M_MEM_TOTAL,    M_TEMP_SLOWDOWN,
                                        M_TEMP_SHUTDOWN,       M_TEMP_GPU_MAX, M_TEMP_MEM_MAX,
                                        M_CLOCK_MAX_SM,        M_PCIE_GEN_MAX, M_PCIE_WIDTH_MAX};
    for (size_t i = 0; i < sizeof statics / sizeof *statics; i++)
        if (statics[i] == id)
            return 2;
    if ((id >= M_NVLINK_FIRST && id <= M_NVLINK_LAST) || id == M_NVLINK_ACTIVE || id == M_XID_COUNT)
        return 0; /* per link, per XID code: not one series per GPU */
    metric_set s;
    memset(&s, 0, sizeof s);
    diag_window_metrics(&s);
    return mset_has(&s, id) ? 1 : 0;
}

static void build_wants(source *src)
{
    for (int native = 0; native < 2; native++)
        for (int id = M_STR_END; id < M_COUNT; id++) {
            const metric_def *d = &metric_catalog[id];
            int kind = wanted_metric((metric_id)id);
            const char *name = native ? d->prom : d->dcgm;
            double scale = native ? d->prom_scale : d->dcgm_scale;
            if (!kind || !name)
                continue;
            src->wants[native][src->nwants[native]++] = (want){(metric_id)id, name, scale != 0 ? scale : 1, kind == 2};
        }
}

/* ---- selectors ---- */

/* The matchers inside --match's braces ("" when none), checked when parsing (diagnose_match_check). */
static const char *inner(const char *match, char *out, size_t n)
{
    out[0] = 0;
    if (match) {
        size_t len = strlen(match);
        snprintf(out, n, "%.*s", (int)(len >= 2 ? len - 2 : 0), match + 1);
    }
    return out;
}

/* Appends a PromQL string's content matching value exactly as a regular expression. */
static void put_regex(gw_buf *b, const char *value)
{
    for (const char *p = value; *p; p++) {
        if (strchr(".+*?()[]{}|^$\\", *p))
            buf_puts(b, "\\\\");
        if (*p == '"')
            buf_putc(b, '\\');
        buf_putc(b, *p);
    }
}

/* {__name__="NAME",HOSTLABEL=~"h1|h2",MATCH} */
static void selector(gw_buf *b, const source *src, const char *name, const int *hosts, int nh)
{
    char m[4096];
    buf_clear(b);
    buf_printf(b, "{__name__=\"%s\"", name);
    if (nh > 0) {
        buf_printf(b, ",%s=~\"", src->hosts[hosts[0]].by_hostname ? "Hostname" : "instance");
        for (int i = 0; i < nh; i++) {
            if (i)
                buf_putc(b, '|');
            put_regex(b, src->hosts[hosts[i]].key);
        }
        buf_putc(b, '"');
    }
    if (inner(src->o->match, m, sizeof m)[0])
        buf_printf(b, ",%s", m);
    buf_putc(b, '}');
}

/* ---- hosts, GPUs, jobs ---- */

static const char *host_key(const prom_series *s, int *by_hostname)
{
    const char *v = prom_label_get(s, "instance");
    *by_hostname = !v || !*v;
    return *by_hostname ? prom_label_get(s, "Hostname") : v;
}

static int gpu_of(const prom_series *s)
{
    const char *g = prom_label_get(s, "gpu");
    char *end;
    long v = g ? strtol(g, &end, 10) : -1;
    return g && *g && !*end && v >= 0 && v < MAX_HOST_GPUS ? (int)v : -1;
}

/* The host of a series, added when new (-1: no host label, or out of memory). */
static int host_of(source *src, const prom_series *s, int add)
{
    int by_hostname;
    const char *key = host_key(s, &by_hostname);
    if (!key || !*key)
        return -1;
    for (int i = 0; i < src->nhosts; i++)
        if (src->hosts[i].by_hostname == by_hostname && strcmp(src->hosts[i].key, key) == 0)
            return i;
    if (!add)
        return -1;
    int h = diag_fleet_host(src->fl, key);
    if (h < 0 || h != src->nhosts)
        return -1;
    fleet_host *p = realloc(src->hosts, sizeof *p * (size_t)(h + 1));
    if (!p)
        return -1;
    src->hosts = p;
    memset(&p[h], 0, sizeof p[h]);
    p[h].key = src->fl->hosts[h];
    p[h].by_hostname = by_hostname;
    src->nhosts++;
    return h;
}

/* A job's id from an info series' or a dcgm series' labels: "slurm:ID", "k8s:NS/POD", "hpc:ID",
 * "job:NAME", "docker:ID"; "" when they name none. */
static void job_id(const prom_series *s, char *out, size_t n)
{
    const char *slurm = prom_label_get(s, "slurm_job_id"), *ns = prom_label_get(s, "namespace"),
               *pod = prom_label_get(s, "pod"), *hpc = prom_label_get(s, "hpc_job"),
               *name = prom_label_get(s, "job_name"), *cid = prom_label_get(s, "container_id");
    out[0] = 0;
    if (slurm && *slurm)
        snprintf(out, n, "slurm:%s", slurm);
    else if (pod && *pod)
        snprintf(out, n, "k8s:%s/%s", ns ? ns : "", pod);
    else if (hpc && *hpc)
        snprintf(out, n, "hpc:%s", hpc);
    else if (name && *name)
        snprintf(out, n, "job:%s", name);
    else if (cid && *cid)
        snprintf(out, n, "docker:%s", cid);
}

static int job_matches(const char *id, const char *want)
{
    const char *colon = strchr(id, ':');
    return strcmp(id, want) == 0 || (colon && strcmp(colon + 1, want) == 0);
}

/* Says on stderr what an answer left out or the engine warned of: the report is then partial. */
static void warn_partial(const source *src, const char *what, const prom_result *r)
{
    if (r->series_left_out)
        fprintf(stderr, "gpuwatch diagnose: warning: %s: %d series past the first %d left out (narrow with --match)\n",
                what, r->series_left_out, PROM_MAX_SERIES);
    if (r->warning[0])
        fprintf(stderr, "gpuwatch diagnose: warning: engine %s: %s\n", prom_client_url(src->c), r->warning);
}

/* The GPUs: every series of the utilization in either naming. 0, or -1 with src->err. */
static int discover(source *src, gw_buf *sel)
{
    const char *names[2] = {UTIL_DCGM, UTIL_NATIVE};
    for (int native = 0; native < 2; native++) {
        selector(sel, src, names[native], NULL, 0);
        prom_result r;
        if (prom_client_series(src->c, sel->data, src->o->from_us, src->o->to_us, &r, src->err, sizeof src->err))
            return -1;
        warn_partial(src, names[native], &r);
        for (int i = 0; i < r.n; i++) {
            const prom_series *s = &r.s[i];
            int h = host_of(src, s, 1), g = gpu_of(s);
            if (h < 0 && src->nhosts >= DIAG_FLEET_MAX_HOSTS && !src->hosts_capped) {
                fprintf(stderr, "gpuwatch diagnose: warning: hosts past the first %d left out (narrow with --match)\n",
                        DIAG_FLEET_MAX_HOSTS);
                src->hosts_capped = 1;
            }
            if (h < 0 || g < 0 || prom_label_get(s, "GPU_I_ID"))
                continue; /* a MIG device's series: the GPU's own come too */
            fleet_gpu *fg = &src->hosts[h].gpu[g];
            fg->known = 1;
            src->hosts[h].native |= native;
            const char *uuid = prom_label_get(s, native ? "uuid" : "UUID"), *model = prom_label_get(s, "modelName");
            if (uuid)
                snprintf(fg->uuid, sizeof fg->uuid, "%s", uuid);
            if (model)
                snprintf(fg->model, sizeof fg->model, "%s", model);
            if (!native && !fg->job[0])
                job_id(s, fg->job, sizeof fg->job);
        }
        prom_result_free(&r);
    }
    return 0;
}

/* The jobs of part 1's info series (a GPU's last job in the range wins over dcgm's pod labels). */
static int read_jobs(source *src, gw_buf *sel)
{
    selector(sel, src, JOB_INFO, NULL, 0);
    prom_result r;
    if (prom_client_series(src->c, sel->data, src->o->from_us, src->o->to_us, &r, src->err, sizeof src->err))
        return -1;
    warn_partial(src, JOB_INFO, &r);
    for (int i = 0; i < r.n; i++) {
        int h = host_of(src, &r.s[i], 0), g = gpu_of(&r.s[i]);
        char id[128];
        job_id(&r.s[i], id, sizeof id);
        if (h >= 0 && g >= 0 && id[0] && src->hosts[h].gpu[g].known)
            snprintf(src->hosts[h].gpu[g].job, sizeof src->hosts[h].gpu[g].job, "%s", id);
    }
    prom_result_free(&r);
    return 0;
}

/* --job: keeps the GPUs of that job. Returns how many GPUs are left. */
static int keep_job(source *src)
{
    int left = 0;
    for (int h = 0; h < src->nhosts; h++)
        for (int g = 0; g < MAX_HOST_GPUS; g++) {
            fleet_gpu *fg = &src->hosts[h].gpu[g];
            if (fg->known && src->o->job && !job_matches(fg->job, src->o->job))
                fg->known = 0;
            left += fg->known;
        }
    return left;
}

/* The step: the data's own interval (from the median count of utilization samples over the range),
 * at least 100 ms, and coarse enough for PROM_MAX_POINTS points a series. */
static double choose_step(source *src, gw_buf *sel, double range_s)
{
    double interval = 1; /* when the engine cannot count */
    int native = 0;
    for (int h = 0; h < src->nhosts; h++)
        native |= src->hosts[h].native;
    selector(sel, src, native ? UTIL_NATIVE : UTIL_DCGM, NULL, 0);
    gw_buf q;
    buf_init(&q);
    buf_printf(&q, "quantile(0.5, count_over_time(%s[%.0fs]))", sel->data, ceil(range_s));
    prom_result r;
    char why[300];
    if (!q.oom && prom_client_query(src->c, q.data, src->o->to_us, &r, why, sizeof why) == 0) {
        if (r.n > 0 && r.s[0].n > 0 && r.s[0].v[0] >= 2)
            interval = range_s / (r.s[0].v[0] - 1);
        prom_result_free(&r);
    }
    buf_release(&q);
    return prom_step(range_s, interval < 0.1 ? 0.1 : interval);
}

/* ---- one batch of hosts ---- */

typedef struct batch {
    int hosts[DIAG_FLEET_MAX_HOSTS];
    int nh;
    int native;
    prom_result *res;         /* one per want, and the processes' */
    const prom_series **slot; /* [host in batch][gpu][want] */
    int *proc_owner;          /* per process series: host in batch * MAX_HOST_GPUS + gpu, or -1 */
    int nres;
} batch;

static const prom_series **slot_at(batch *b, const source *src, int hb, int gpu, int k)
{
    return &b->slot[((size_t)hb * MAX_HOST_GPUS + (size_t)gpu) * (size_t)(src->nwants[b->native] + 1) + (size_t)k];
}

static int batch_host(const batch *b, int h)
{
    for (int i = 0; i < b->nh; i++)
        if (b->hosts[i] == h)
            return i;
    return -1;
}

/* Queries each wanted metric (and, for native hosts, the processes) of the batch's hosts. */
static int fetch_batch(source *src, batch *b, gw_buf *sel)
{
    int nw = src->nwants[b->native];
    double range_s = (double)(src->o->to_us - src->o->from_us) / 1e6;
    for (int k = 0; k <= nw; k++) {
        int procs = k == nw;
        if (procs && !b->native)
            break;
        const want *wt = procs ? NULL : &src->wants[b->native][k];
        selector(sel, src, procs ? PROC_MEMORY : wt->name, b->hosts, b->nh);
        double step = wt && wt->is_static ? (range_s > src->step_s ? range_s : src->step_s) : src->step_s;
        prom_result *r = &b->res[b->nres];
        if (prom_client_query_range(src->c, sel->data, src->o->from_us, src->o->to_us, step, r, src->err,
                                    sizeof src->err))
            return -1;
        b->nres++;
        if (procs) {
            b->proc_owner = malloc(sizeof *b->proc_owner * (size_t)(r->n + 1));
            if (!b->proc_owner) {
                snprintf(src->err, sizeof src->err, "out of memory");
                return -1;
            }
            for (int i = 0; i < r->n; i++)
                b->proc_owner[i] = -1;
        }
        for (int i = 0; i < r->n; i++) {
            const prom_series *s = &r->s[i];
            int h = host_of(src, s, 0), g = gpu_of(s), hb = h >= 0 ? batch_host(b, h) : -1;
            if (hb < 0 || g < 0 || prom_label_get(s, "GPU_I_ID") || !src->hosts[h].gpu[g].known || s->n == 0)
                continue;
            if (procs) {
                src->procs_seen = 1;
                b->proc_owner[i] = hb * MAX_HOST_GPUS + g;
                continue; /* read per step below */
            }
            src->seen[b->native][wt->id] = 1;
            const prom_series **sl = slot_at(b, src, hb, g, k);
            if (!*sl)
                *sl = s;
        }
    }
    return 0;
}

/* The value of series s at t (its cursor *i moves forward); 0 when it has none then. */
static int value_at(const prom_series *s, uint64_t t, int *i, double *v)
{
    while (*i < s->n && s->t_us[*i] + 500 < t)
        (*i)++;
    if (*i < s->n && s->t_us[*i] <= t + 500) { /* the engine's times are whole milliseconds */
        *v = s->v[*i];
        return 1;
    }
    return 0;
}

/* The processes of GPU g of host h at t, from the process series (a point at t: listed). */
static int procs_at(const batch *b, int hb, int g, uint64_t t, gpu_proc *out, int max, int *cursor)
{
    const prom_result *r = &b->res[b->nres - 1];
    int n = 0;
    for (int i = 0; i < r->n && n < max; i++) {
        const prom_series *s = &r->s[i];
        double v;
        if (b->proc_owner[i] != hb * MAX_HOST_GPUS + g || !value_at(s, t, &cursor[i], &v))
            continue;
        const char *pid = prom_label_get(s, "pid"), *user = prom_label_get(s, "user"),
                   *cmd = prom_label_get(s, "command"), *ctr = prom_label_get(s, "container");
        long p = pid ? strtol(pid, NULL, 10) : 0;
        if (p <= 0 || p > 4194304)
            continue;
        gpu_proc *q = &out[n++];
        memset(q, 0, sizeof *q);
        q->gpu = g;
        q->pid = (unsigned)p;
        q->type = PROC_COMPUTE;
        q->mem_mib = v / 1048576.0;
        q->has_mem = 1;
        snprintf(q->name, sizeof q->name, "%s", cmd ? cmd : "");
        snprintf(q->user, sizeof q->user, "%s", user ? user : "");
        snprintf(q->container, sizeof q->container, "%s", ctr ? ctr : "");
    }
    return n;
}

/* Host hb's window from the batch's series: one sample per GPU and step. */
static int fill_window(source *src, batch *b, int hb, diag_window *w)
{
    const fleet_host *fh = &src->hosts[b->hosts[hb]];
    int nw = src->nwants[b->native];
    int procs = b->native && b->nres > nw && b->proc_owner && src->procs_seen;
    gpu_sample *s = malloc(sizeof *s);
    gpu_proc *pl = procs ? malloc(sizeof *pl * 64) : NULL;
    int *cur = calloc((size_t)nw, sizeof *cur);
    int *pcur = procs ? calloc((size_t)(b->res[b->nres - 1].n + 1), sizeof *pcur) : NULL;
    int rc = s && cur && (!procs || (pl && pcur)) ? 0 : -1;
    uint64_t span = src->o->to_us - src->o->from_us, step = (uint64_t)llround(src->step_s * 1e6);
    for (int g = 0; rc == 0 && g < MAX_HOST_GPUS; g++) {
        if (!fh->gpu[g].known)
            continue;
        gpu_info info = {.index = g};
        snprintf(info.str[M_UUID], GW_STR_LEN, "%s", fh->gpu[g].uuid);
        snprintf(info.str[M_NAME], GW_STR_LEN, "%s", fh->gpu[g].model);
        mset_add(&info.str_present, M_UUID);
        if (fh->gpu[g].model[0])
            mset_add(&info.str_present, M_NAME);
        memset(cur, 0, sizeof *cur * (size_t)nw);
        if (pcur)
            memset(pcur, 0, sizeof *pcur * (size_t)b->res[b->nres - 1].n);
        double statics[M_COUNT];
        for (int k = 0; k < nw; k++) {
            const prom_series *sl = *slot_at(b, src, hb, g, k);
            const want *wt = &src->wants[b->native][k];
            statics[wt->id] = wt->is_static && sl && sl->n ? sl->v[sl->n - 1] / wt->scale : NAN;
        }
        for (uint64_t t = src->o->from_us; t <= src->o->from_us + span; t += step) {
            memset(s, 0, sizeof *s);
            s->t_us = t;
            int any = 0;
            for (int k = 0; k < nw; k++) {
                const want *wt = &src->wants[b->native][k];
                const prom_series *sl = *slot_at(b, src, hb, g, k);
                double v;
                if (wt->is_static && isfinite(statics[wt->id]))
                    sample_set(s, wt->id, statics[wt->id]);
                else if (!wt->is_static && sl && value_at(sl, t, &cur[k], &v)) {
                    sample_set(s, wt->id, v / wt->scale);
                    any |= wt->id == M_UTIL_GPU;
                }
            }
            if (!any)
                continue; /* no utilization then: the GPU was not there */
            double used, free_, res = 0;
            if (!sample_has(s, M_MEM_TOTAL) && sample_get(s, M_MEM_USED, &used) && sample_get(s, M_MEM_FREE, &free_)) {
                sample_get(s, M_MEM_RESERVED, &res);
                sample_set(s, M_MEM_TOTAL, used + free_ + res); /* dcgm-exporter has no total */
            }
            diag_window_add_sample(w, g, &info, s);
            if (procs) {
                int n = procs_at(b, hb, g, t, pl, 64, pcur);
                diag_window_add_processes(w, g, t, pl, n);
            }
        }
    }
    free(s);
    free(pl);
    free(cur);
    free(pcur);
    return rc == 0 && !w->oom ? 0 : -1;
}

/* Diagnoses each host of the batch and summarises its jobs' GPUs. */
static int diagnose_batch(source *src, batch *b)
{
    for (int hb = 0; hb < b->nh; hb++) {
        int h = b->hosts[hb];
        diag_window *w = diag_window_new();
        diag_report r;
        diag_report_init(&r);
        int rc = w && fill_window(src, b, hb, w) == 0 && diag_run(w, src->cfg, &r) >= 0 ? 0 : -1;
        if (rc == 0)
            rc = diag_fleet_add_report(src->fl, h, &r, w);
        for (int g = 0; rc == 0 && g < MAX_HOST_GPUS; g++) {
            const fleet_gpu *fg = &src->hosts[h].gpu[g];
            if (fg->known && fg->job[0] && !diag_fleet_member(src->fl, fg->job, h, g, w) && src->fl->oom)
                rc = -1;
        }
        diag_report_free(&r);
        diag_window_free(w);
        if (rc) {
            snprintf(src->err, sizeof src->err, "out of memory");
            return -1;
        }
    }
    return 0;
}

static void batch_free(batch *b)
{
    for (int i = 0; i < b->nres; i++)
        prom_result_free(&b->res[i]);
    b->nres = 0;
    b->nh = 0;
    free(b->proc_owner);
    b->proc_owner = NULL;
}

/* Every host, in batches of one naming whose queries stay under QUERY_POINTS points. */
static int read_hosts(source *src, gw_buf *sel)
{
    double range_s = (double)(src->o->to_us - src->o->from_us) / 1e6;
    double points = range_s / src->step_s + 1;
    int room = (int)(QUERY_POINTS / points); /* GPUs of one batch (and one host at least) */
    batch *b = calloc(1, sizeof *b);
    if (b)
        b->res = calloc(M_COUNT + 1, sizeof *b->res);
    int rc = b && b->res ? 0 : -1;
    unsigned char *done = calloc((size_t)src->nhosts + 1, 1);
    rc = done ? rc : -1;
    for (int start = 0; rc == 0 && start < src->nhosts; start++) {
        if (done[start])
            continue;
        b->nh = 0;
        const fleet_host *first = &src->hosts[start];
        b->native = first->native;
        int gpus = 0;
        for (int h = start; h < src->nhosts; h++) {
            const fleet_host *fh = &src->hosts[h];
            int n = 0;
            for (int g = 0; g < MAX_HOST_GPUS; g++)
                n += fh->gpu[g].known;
            if (!n)
                done[h] = 1; /* none of its GPUs selected */
            if (done[h] || fh->native != first->native || fh->by_hostname != first->by_hostname ||
                (b->nh > 0 && (gpus + n > room || b->nh >= DIAG_FLEET_MAX_HOSTS)))
                continue;
            b->hosts[b->nh++] = h;
            done[h] = 1;
            gpus += n;
            src->fl->ngpus += n;
            src->fl->hosts_read++;
        }
        if (b->nh == 0)
            continue; /* no GPU of it selected: nothing to ask (no host matcher would ask for all) */
        b->slot = calloc((size_t)b->nh * MAX_HOST_GPUS * (size_t)(src->nwants[b->native] + 1), sizeof *b->slot);
        rc = b->slot ? 0 : -1;
        if (rc == 0)
            rc = fetch_batch(src, b, sel);
        if (rc == 0)
            rc = diagnose_batch(src, b);
        free(b->slot);
        b->slot = NULL;
        batch_free(b);
    }
    if (!b || !b->res || !done)
        snprintf(src->err, sizeof src->err, "out of memory");
    if (b)
        free(b->res);
    free(b);
    free(done);
    return rc;
}

/* ---- the source ---- */

int diagnose_from_prometheus(const prom_source_opts *given, const diag_config *cfg, diag_fleet *fl)
{
    prom_source_opts ms = *given; /* the range in whole milliseconds, as the engine's times are */
    ms.from_us -= ms.from_us % 1000;
    ms.to_us -= ms.to_us % 1000;
    const prom_source_opts *o = &ms;
    source src = {.o = o, .cfg = cfg, .fl = fl};
    gw_buf sel;
    buf_init(&sel);
    diag_fleet_init(fl, (uint64_t)o->from_us, (uint64_t)o->to_us);
    build_wants(&src);
    src.c = prom_client_open(o->url, &o->auth, src.err, sizeof src.err);
    int rc = src.c ? discover(&src, &sel) : -1;
    if (rc == 0 && src.nhosts == 0) {
        snprintf(src.err, sizeof src.err, "no GPU series at %s%s%s in the range (neither %s nor %s)", o->url,
                 o->match ? " matching " : "", o->match ? o->match : "", UTIL_NATIVE, UTIL_DCGM);
        rc = -1;
    }
    if (rc == 0)
        rc = read_jobs(&src, &sel);
    if (rc == 0 && keep_job(&src) == 0) {
        snprintf(src.err, sizeof src.err,
                 "no GPU of job %s at %s in the range (jobs come from %s or dcgm-exporter's "
                 "pod, namespace and hpc_job labels)",
                 o->job, o->url, JOB_INFO);
        rc = -1;
    }
    if (rc == 0) {
        src.step_s = choose_step(&src, &sel, (double)(o->to_us - o->from_us) / 1e6);
        rc = read_hosts(&src, &sel);
    }
    if (rc == 0 && diag_fleet_cross(fl, cfg) < 0) {
        snprintf(src.err, sizeof src.err, "out of memory");
        rc = -1;
    }
    if (rc == 0) {
        int used[2] = {0, 0};
        for (int h = 0; h < src.nhosts; h++)
            used[src.hosts[h].native] = 1;
        diagnose_note_missing(src.seen, src.procs_seen, used, fl);
        diag_fleet_sort(fl);
    }
    if (rc)
        fprintf(stderr, "gpuwatch diagnose: %s\n", src.err[0] ? src.err : "out of memory");
    free(src.hosts);
    prom_client_close(src.c);
    buf_release(&sel);
    return rc ? 1 : 0;
}

int diagnose_match_check(const gw_opt *opt, const char *value, void *out, char *why, size_t n)
{
    size_t len = value ? strlen(value) : 0;
    const char *p = value ? value + 1 : NULL;
    while (p && (*p == ' ' || *p == '\t'))
        p++;
    if (len < 2 || value[0] != '{' || value[len - 1] != '}' || len > 2000) {
        snprintf(why, n, "expected a selector of label matchers, {instance=~\"gpu-.*\"}, got '%s'", value ? value : "");
        return -1;
    }
    if (*p == '}') {
        snprintf(why, n, "an empty selector: name a label at least, {cluster=\"a\"}");
        return -1;
    }
    *(const char **)gw_opt_dst(opt, out) = value;
    return 0;
}
