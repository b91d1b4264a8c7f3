/* exposition.c - the series of a snapshot, driven by the metric catalog: walked once into a sink,
 * which writes the /metrics text (expo_write_gpus) or what remote write sends. */
#include "exposition.h"
#include "http_guard.h"
#include "expo_text.h"
#include "workload.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void expo_options_default(expo_options *o)
{
    memset(o, 0, sizeof *o);
    o->series = EXPO_DCGM | EXPO_NATIVE;
    o->process_limit = 100;
    o->hostname = "";
}

#define PROC_MEMORY "gpuwatch_process_memory_bytes"
#define PROC_SM "gpuwatch_process_sm_utilization_ratio"
#define JOB_INFO "gpuwatch_gpu_job_info"

int expo_enable(expo_options *o, const char *name)
{
    o->filter = 1;
    if (strcmp(name, PROC_MEMORY) == 0) {
        o->proc_memory = 1;
        return 0;
    }
    if (strcmp(name, PROC_SM) == 0) {
        o->proc_sm = 1;
        return 0;
    }
    if (strcmp(name, JOB_INFO) == 0) {
        o->job_info = 1;
        return 0;
    }
    const metric_def *d = catalog_find(name);
    if (d) {
        mset_add(&o->enabled, d->id);
        return 0;
    }
    for (int i = 0; i < M_COUNT; i++) {
        const metric_def *m = catalog_get((metric_id)i);
        if ((m->dcgm && strcmp(m->dcgm, name) == 0) || (m->prom && strcmp(m->prom, name) == 0)) {
            mset_add(&o->enabled, m->id);
            return 0;
        }
    }
    return -1;
}

static int wanted(const expo_options *o, metric_id id)
{
    return !o->filter || mset_has(&o->enabled, id);
}

static const char *type_name(metric_kind k)
{
    return k == MK_COUNTER ? "counter" : "gauge";
}

static const char *info_str(const agent_gpu_view *g, metric_id id)
{
    return g->have_info && mset_has(&g->info.str_present, id) ? g->info.str[id] : "";
}

/* ---- label sets: pairs for the sink, and the same as escaped text ---- */

typedef struct label_set {
    expo_pair l[EXPO_MAX_LABELS];
    int n;
    int first;
    gw_buf text;
} label_set;

static void ls_init(label_set *s)
{
    s->n = 0;
    s->first = 1;
    buf_init(&s->text);
}

static void ls_clear(label_set *s)
{
    s->n = 0;
    s->first = 1;
    buf_clear(&s->text);
}

/* Adds name="value"; value must live as long as the set is used. */
static void ls_add(label_set *s, const char *name, const char *value)
{
    if (s->n == EXPO_MAX_LABELS)
        return;
    s->l[s->n++] = (expo_pair){name, value};
    expo_label(&s->text, &s->first, name, value);
}

static void ls_copy(label_set *dst, const label_set *src)
{
    ls_clear(dst);
    for (int i = 0; i < src->n; i++)
        ls_add(dst, src->l[i].name, src->l[i].value);
}

/* Label values of every GPU and its label sets, built once per walk. */
typedef struct gpu_labels {
    char idx[16], dev[32];
    workload pod; /* the pod using the GPU (dcgm-exporter's pod, namespace, container), when one is */
    label_set dcgm, native;
} gpu_labels;

/* The walk: a snapshot, what to show and where it goes. */
typedef struct walk {
    const agent_snapshot *s;
    const expo_options *o;
    const expo_sink *sink;
    gpu_labels *l;
    label_set tmp;
    const char *family; /* announced lazily: at the first series of a family */
    const char *help, *type;
} walk;

static void family(walk *w, const char *name, const char *help, const char *type)
{
    w->family = name;
    w->help = help;
    w->type = type;
}

static void series(walk *w, const char *name, const label_set *ls, double v)
{
    if (w->family) {
        w->sink->family(w->sink->ctx, w->family, w->help, w->type);
        w->family = NULL;
    }
    w->sink->sample(w->sink->ctx, name, ls->l, ls->n, ls->text.data ? ls->text.data : "", v);
}

/* Is process p on the snapshot's GPU i? */
static int on_gpu(const agent_snapshot *s, int i, const gpu_proc *p)
{
    return p->gpu == s->gpus[i].info.index;
}

/* The pod of the GPU's process holding the most memory, among those in a pod whose namespace and
 * name are known: the pod dcgm-exporter would name for the GPU. */
static void gpu_pod(const agent_snapshot *s, int i, workload *out)
{
    memset(out, 0, sizeof *out);
    double best = -1;
    for (int k = 0; k < s->nprocs; k++) {
        const gpu_proc *p = &s->procs[k];
        workload w;
        if (!on_gpu(s, i, p) || workload_parse(p->container, &w) != WL_POD || !w.namespace_[0])
            continue;
        double mem = p->has_mem ? p->mem_mib : 0;
        if (mem > best) {
            best = mem;
            *out = w;
        }
    }
}

static void build_labels(walk *w)
{
    const agent_snapshot *s = w->s;
    for (int i = 0; i < s->ngpus; i++) {
        const agent_gpu_view *g = &s->gpus[i];
        gpu_labels *l = &w->l[i];
        double minor;
        snprintf(l->idx, sizeof l->idx, "%d", g->info.index);
        if (g->has_sample && sample_get(&g->sample, M_MINOR_NUMBER, &minor))
            snprintf(l->dev, sizeof l->dev, "nvidia%d", (int)minor);
        else
            snprintf(l->dev, sizeof l->dev, "nvidia%d", g->info.index);
        const char *drv = info_str(g, M_DRIVER_VERSION);
        gpu_pod(s, i, &l->pod);
        ls_init(&l->dcgm);
        ls_add(&l->dcgm, "gpu", l->idx);
        ls_add(&l->dcgm, "UUID", info_str(g, M_UUID));
        ls_add(&l->dcgm, "pci_bus_id", info_str(g, M_PCI_BUS_ID));
        ls_add(&l->dcgm, "device", l->dev);
        ls_add(&l->dcgm, "modelName", info_str(g, M_NAME));
        ls_add(&l->dcgm, "Hostname", w->o->hostname);
        ls_add(&l->dcgm, "DCGM_FI_DRIVER_VERSION", *drv ? drv : s->driver_version);
        if (l->pod.kind == WL_POD) {
            ls_add(&l->dcgm, "pod", l->pod.pod);
            ls_add(&l->dcgm, "namespace", l->pod.namespace_);
            if (l->pod.container[0])
                ls_add(&l->dcgm, "container", l->pod.container);
        }
        ls_init(&l->native);
        ls_add(&l->native, "gpu", l->idx);
        ls_add(&l->native, "uuid", info_str(g, M_UUID));
    }
}

/* A GPU's value of a metric, when it has one to export. */
static int gpu_value(const agent_gpu_view *g, metric_id id, double *v)
{
    return g->has_sample && !g->lost && sample_get(&g->sample, id, v);
}

/* A MIG device's value of the memory metrics dcgm-exporter reports per MIG device (FB_USED,
 * FB_FREE); 0 for the others. */
static int mig_value(const gpu_mig *m, metric_id id, double *v)
{
    if (!m->has_mem || (id != M_MEM_USED && id != M_MEM_FREE))
        return 0;
    *v = id == M_MEM_USED ? m->mem_used_mib : m->mem_total_mib - m->mem_used_mib;
    return 1;
}

/* Each MIG device's series of a dcgm metric of GPU i, as dcgm-exporter writes them: the GPU's labels
 * and GPU_I_PROFILE, GPU_I_ID. */
static void write_mig(walk *w, int i, const metric_def *d, double scale)
{
    const agent_gpu_view *g = &w->s->gpus[i];
    for (int k = 0; k < g->nmig; k++) {
        double v;
        if (!mig_value(&g->mig[k], d->id, &v))
            continue;
        char gi[16];
        snprintf(gi, sizeof gi, "%u", g->mig[k].gi);
        ls_copy(&w->tmp, &w->l[i].dcgm);
        ls_add(&w->tmp, "GPU_I_PROFILE", g->mig[k].profile);
        ls_add(&w->tmp, "GPU_I_ID", gi);
        series(w, d->dcgm, &w->tmp, v * scale);
    }
}

static void write_family(walk *w, const metric_def *d, int dcgm)
{
    const agent_snapshot *s = w->s;
    const char *name = dcgm ? d->dcgm : d->prom;
    double scale = dcgm ? d->dcgm_scale : d->prom_scale;
    if (scale == 0)
        scale = 1;
    family(w, name, dcgm ? d->dcgm_unit_help : d->help, type_name(d->kind));
    for (int i = 0; i < s->ngpus; i++) {
        double v;
        if (!gpu_value(&s->gpus[i], d->id, &v))
            continue;
        series(w, name, dcgm ? &w->l[i].dcgm : &w->l[i].native, v * scale);
        if (dcgm && !s->gpus[i].lost)
            write_mig(w, i, d, scale);
    }
}

/* gpuwatch_xid_errors_total: one counter per GPU and XID code seen (xid_tally.h). */
static void write_xids(walk *w, const metric_def *d)
{
    const agent_snapshot *s = w->s;
    family(w, d->prom, "XID errors seen since gpuwatch started, by code.", "counter");
    for (int i = 0; i < s->ngpus; i++) {
        const agent_gpu_view *g = &s->gpus[i];
        double v;
        if (!gpu_value(g, d->id, &v))
            continue;
        for (int k = 0; k < g->xids.n; k++) {
            char code[16];
            snprintf(code, sizeof code, "%u", g->xids.code[k]);
            ls_copy(&w->tmp, &w->l[i].native);
            ls_add(&w->tmp, "xid", code);
            series(w, d->prom, &w->tmp, g->xids.total[k]);
        }
    }
}

/* Health, kept whatever the series mode: a GPU whose read (an NVML call) has not returned for over
 * max(2 intervals, 1 s); its samples then stop, and it goes stale, while the others go on. */
static void write_hung(walk *w)
{
    family(w, "gpuwatch_gpu_hung",
           "1 while a read of the GPU (an NVML call) has not returned for over 2 sampling intervals; the "
           "other GPUs are sampled meanwhile.",
           "gauge");
    for (int i = 0; i < w->s->ngpus; i++)
        series(w, "gpuwatch_gpu_hung", &w->l[i].native, w->s->gpus[i].hung ? 1 : 0);
}

static void write_lost(walk *w)
{
    family(w, "gpuwatch_gpu_lost",
           "1 when the GPU has fallen off the bus or stopped answering; it then has no value series.", "gauge");
    for (int i = 0; i < w->s->ngpus; i++)
        series(w, "gpuwatch_gpu_lost", &w->l[i].native, w->s->gpus[i].lost ? 1 : 0);
    write_hung(w);
}

static void write_info(walk *w)
{
    const agent_snapshot *s = w->s;
    if (s->ngpus == 0)
        return;
    family(w, "gpuwatch_gpu_info", "Identity of a GPU; always 1.", "gauge");
    for (int i = 0; i < s->ngpus; i++) {
        const agent_gpu_view *g = &s->gpus[i];
        const char *drv = info_str(g, M_DRIVER_VERSION);
        char cc_text[16];
        double cc;
        ls_copy(&w->tmp, &w->l[i].native);
        ls_add(&w->tmp, "name", info_str(g, M_NAME));
        ls_add(&w->tmp, "pci_bus_id", info_str(g, M_PCI_BUS_ID));
        ls_add(&w->tmp, "driver_version", *drv ? drv : s->driver_version);
        ls_add(&w->tmp, "vbios_version", info_str(g, M_VBIOS_VERSION));
        ls_add(&w->tmp, "serial", info_str(g, M_SERIAL));
        ls_add(&w->tmp, "simulated", s->simulated ? "true" : "false");
        if (g->has_sample && sample_get(&g->sample, M_COMPUTE_CAP, &cc)) {
            snprintf(cc_text, sizeof cc_text, "%.1f", cc);
            ls_add(&w->tmp, "compute_cap", cc_text);
        }
        series(w, "gpuwatch_gpu_info", &w->tmp, 1);
    }
    write_lost(w);
}

#define JOBS_PER_GPU 64

/* The labels that tell one job apart on a GPU (empty when unknown). */
typedef struct job_key {
    const char *user;
    workload wl;
    char array_id[48];
} job_key;

static int same_job(const job_key *a, const job_key *b)
{
    return strcmp(a->user, b->user) == 0 && a->wl.kind == b->wl.kind &&
           strcmp(a->wl.namespace_, b->wl.namespace_) == 0 && strcmp(a->wl.pod, b->wl.pod) == 0 &&
           strcmp(a->wl.container, b->wl.container) == 0 && strcmp(a->wl.slurm_job, b->wl.slurm_job) == 0 &&
           strcmp(a->wl.job_name, b->wl.job_name) == 0 && strcmp(a->array_id, b->array_id) == 0 &&
           strcmp(a->wl.pod_uid, b->wl.pod_uid) == 0 && strcmp(a->wl.container_id, b->wl.container_id) == 0;
}

static void add_if(label_set *ls, const char *name, const char *value)
{
    if (value && *value)
        ls_add(ls, name, value);
}

/* gpuwatch_gpu_job_info: one series per GPU and job using it (user, pod, Slurm job...), so that
 * GPU series can be joined to who uses them without multiplying them by jobs. */
static void write_jobs(walk *w)
{
    const agent_snapshot *s = w->s;
    family(w, JOB_INFO,
           "Who uses a GPU: one series per GPU and job (its processes' user, Kubernetes pod, Slurm job); "
           "always 1.",
           "gauge");
    job_key *seen = malloc(JOBS_PER_GPU * sizeof *seen);
    if (!seen)
        return;
    int total = 0;
    for (int i = 0; i < s->ngpus; i++) {
        int n = 0;
        for (int k = 0; k < s->nprocs && n < JOBS_PER_GPU && total < w->o->process_limit; k++) {
            const gpu_proc *p = &s->procs[k];
            if (!on_gpu(s, i, p))
                continue;
            job_key *j = &seen[n];
            j->user = p->user;
            workload_parse(p->container, &j->wl);
            j->array_id[0] = 0;
            if (j->wl.slurm_array_job[0])
                snprintf(j->array_id, sizeof j->array_id, "%s_%s", j->wl.slurm_array_job, j->wl.slurm_array_task);
            if (!p->user[0] && j->wl.kind == WL_NONE)
                continue;
            int dup = 0;
            for (int m = 0; m < n && !dup; m++)
                dup = same_job(&seen[m], j);
            if (dup)
                continue;
            n++;
            total++;
            ls_copy(&w->tmp, &w->l[i].native);
            add_if(&w->tmp, "user", j->user);
            add_if(&w->tmp, "job_name", j->wl.job_name);
            add_if(&w->tmp, "namespace", j->wl.namespace_);
            add_if(&w->tmp, "pod", j->wl.pod);
            add_if(&w->tmp, "pod_uid", j->wl.namespace_[0] ? "" : j->wl.pod_uid);
            add_if(&w->tmp, "container", j->wl.kind == WL_POD ? j->wl.container : "");
            add_if(&w->tmp, "container_id", j->wl.kind == WL_CONTAINER ? j->wl.container_id : "");
            add_if(&w->tmp, "slurm_job_id", j->wl.slurm_job);
            add_if(&w->tmp, "slurm_array_id", j->array_id);
            add_if(&w->tmp, "unit", j->wl.unit);
            series(w, JOB_INFO, &w->tmp, 1);
        }
    }
    free(seen);
}

static void write_processes(walk *w, int sm)
{
    const agent_snapshot *s = w->s;
    const char *name = sm ? PROC_SM : PROC_MEMORY;
    int n = 0;
    family(w, name,
           sm ? "Share of the GPU's SM time used by the process (0-1)." : "GPU memory used by the process, in bytes.",
           "gauge");
    for (int i = 0; i < s->nprocs && n < w->o->process_limit; i++) {
        const gpu_proc *p = &s->procs[i];
        if (sm ? !p->has_sm : !p->has_mem)
            continue;
        char gpu[16], pid[16];
        snprintf(gpu, sizeof gpu, "%d", p->gpu);
        snprintf(pid, sizeof pid, "%u", p->pid);
        ls_clear(&w->tmp);
        ls_add(&w->tmp, "gpu", gpu);
        ls_add(&w->tmp, "pid", pid);
        ls_add(&w->tmp, "user", p->user);
        ls_add(&w->tmp, "command", p->name);
        ls_add(&w->tmp, "container", p->container);
        series(w, name, &w->tmp, sm ? p->sm_util / 100.0 : p->mem_mib * 1048576.0);
        n++;
    }
}

void expo_walk_gpus(const agent_snapshot *s, const expo_options *o, const expo_sink *sink)
{
    walk w = {.s = s, .o = o, .sink = sink};
    w.l = calloc((size_t)(s->ngpus ? s->ngpus : 1), sizeof *w.l);
    if (!w.l) {
        if (sink->oom)
            *sink->oom = 1;
        return;
    }
    ls_init(&w.tmp);
    build_labels(&w);
    if (o->series & EXPO_DCGM)
        for (int id = M_STR_END; id < M_COUNT; id++) {
            const metric_def *d = catalog_get((metric_id)id);
            if (d->dcgm && wanted(o, d->id))
                write_family(&w, d, 1);
        }
    if (o->series & EXPO_NATIVE) {
        write_info(&w);
        if (!o->filter || o->job_info)
            write_jobs(&w);
        for (int id = M_STR_END; id < M_COUNT; id++) {
            const metric_def *d = catalog_get((metric_id)id);
            if (!d->prom || !wanted(o, d->id))
                continue;
            if (d->id == M_XID_COUNT)
                write_xids(&w, d);
            else
                write_family(&w, d, 0);
        }
        if (!o->filter || o->proc_memory)
            write_processes(&w, 0);
        if (!o->filter || o->proc_sm)
            write_processes(&w, 1);
    } else if (s->ngpus) {
        /* gpuwatch_gpu_lost is the one native series a lost GPU keeps, whatever the series mode. */
        write_lost(&w);
    }
    int oom = w.tmp.text.oom;
    for (int i = 0; i < s->ngpus; i++) {
        oom |= w.l[i].dcgm.text.oom | w.l[i].native.text.oom;
        buf_release(&w.l[i].dcgm.text);
        buf_release(&w.l[i].native.text);
    }
    buf_release(&w.tmp.text);
    free(w.l);
    if (oom && sink->oom)
        *sink->oom = 1;
}

/* The /metrics text of the walk. */
static void text_family(void *ctx, const char *name, const char *help, const char *type)
{
    expo_family(ctx, name, help, type);
}

static void text_sample(void *ctx, const char *name, const expo_pair *labels, int n, const char *text, double v)
{
    (void)labels;
    (void)n;
    expo_sample(ctx, name, text, v);
}

void expo_write_gpus(gw_buf *out, const agent_snapshot *s, const expo_options *o)
{
    expo_sink sink = {.ctx = out, .family = text_family, .sample = text_sample, .oom = &out->oom};
    expo_walk_gpus(s, o, &sink);
}

void expo_write_round_health(gw_buf *out, const agent_snapshot *s)
{
    if (s->nerrors)
        expo_family(out, "gpuwatch_nvml_errors_total", "Failed NVML calls, by function and error.", "counter");
    gw_buf l;
    buf_init(&l);
    for (int i = 0; i < s->nerrors; i++) {
        int first = 1;
        buf_clear(&l);
        expo_label(&l, &first, "function", s->errors[i].function);
        expo_label(&l, &first, "code", s->errors[i].error);
        expo_sample(out, "gpuwatch_nvml_errors_total", l.data, (double)s->errors[i].count);
    }
    buf_release(&l);
    if (s->backend_up) {
        expo_family(out, "gpuwatch_sampling_duration_seconds", "Time the last sampling round of every GPU took.",
                    "gauge");
        expo_sample(out, "gpuwatch_sampling_duration_seconds", "", s->sampling_duration_s);
        expo_family(out, "gpuwatch_ring_bytes", "Memory the in-memory ring of recent samples holds.", "gauge");
        expo_sample(out, "gpuwatch_ring_bytes", "", (double)s->ring_bytes);
    }
}

/* name{gpu="N"} v */
static void live_sample(gw_buf *out, const char *name, int gpu, double v)
{
    char labels[32];
    snprintf(labels, sizeof labels, "gpu=\"%d\"", gpu);
    expo_sample(out, name, labels, v);
}

void expo_write_http(gw_buf *out, const guard_stats *g)
{
    expo_family(out, "gpuwatch_http_connections", "HTTP connections open.", "gauge");
    expo_sample(out, "gpuwatch_http_connections", "", g->open);
    expo_family(out, "gpuwatch_http_connections_closed_total",
                "HTTP connections the agent closed: no whole request within http.request_timeout "
                "(request_timeout), to make room under http.max_connections(_per_ip) (evicted), or at "
                "once because their address's connections were all busy (refused) or it opened them faster than "
                "http.connection_rate_per_ip (rate).",
                "counter");
    expo_sample(out, "gpuwatch_http_connections_closed_total", "reason=\"request_timeout\"", (double)g->timed_out);
    expo_sample(out, "gpuwatch_http_connections_closed_total", "reason=\"evicted\"", (double)g->evicted);
    expo_sample(out, "gpuwatch_http_connections_closed_total", "reason=\"refused\"", (double)g->refused);
    expo_sample(out, "gpuwatch_http_connections_closed_total", "reason=\"rate\"", (double)g->rate_limited);
}

void expo_write_live(gw_buf *out, const agent_snapshot *s, uint64_t now_us, double scrape_seconds)
{
    expo_family(out, "gpuwatch_up", "1 when the GPU backend (NVML) is loaded and answering.", "gauge");
    expo_sample(out, "gpuwatch_up", "", s->backend_up);
    expo_family(out, "gpuwatch_simulated",
                "1 when the GPUs are gpusim's simulated ones (a demo or test agent): never real measurements.",
                "gauge");
    expo_sample(out, "gpuwatch_simulated", "", s->simulated);
    int header = 0, stale;
    for (int i = 0; i < s->ngpus; i++) {
        if (!s->gpus[i].has_sample)
            continue;
        if (!header++)
            expo_family(out, "gpuwatch_sample_age_seconds", "Age of the GPU's latest sample.", "gauge");
        live_sample(out, "gpuwatch_sample_age_seconds", i, snapshot_sample_age(s, i, now_us, &stale));
    }
    if (s->ngpus)
        expo_family(out, "gpuwatch_gpu_stale", "1 when the GPU's latest sample is older than 3 sampling intervals.",
                    "gauge");
    for (int i = 0; i < s->ngpus; i++) {
        snapshot_sample_age(s, i, now_us, &stale);
        live_sample(out, "gpuwatch_gpu_stale", i, stale);
    }
    expo_family(out, "gpuwatch_scrape_duration_seconds", "Time taken to build this page.", "gauge");
    expo_sample(out, "gpuwatch_scrape_duration_seconds", "", scrape_seconds);
}
