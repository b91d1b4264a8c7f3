/* exposition.c - builds the /metrics page from a snapshot, driven by the metric catalog. */
#include "exposition.h"
#include "http_guard.h"
#include "expo_text.h"
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

/* Label strings of every GPU, built once per page. */
typedef struct {
    gw_buf dcgm, native;
} gpu_labels;

static void build_labels(const agent_snapshot *s, const expo_options *o, gpu_labels *l)
{
    for (int i = 0; i < s->ngpus; i++) {
        const agent_gpu_view *g = &s->gpus[i];
        char idx[16], dev[32];
        double minor;
        snprintf(idx, sizeof idx, "%d", g->info.index);
        if (g->has_sample && sample_get(&g->sample, M_MINOR_NUMBER, &minor))
            snprintf(dev, sizeof dev, "nvidia%d", (int)minor);
        else
            snprintf(dev, sizeof dev, "nvidia%d", g->info.index);
        const char *drv = info_str(g, M_DRIVER_VERSION);
        int first = 1;
        buf_init(&l[i].dcgm);
        expo_label(&l[i].dcgm, &first, "gpu", idx);
        expo_label(&l[i].dcgm, &first, "UUID", info_str(g, M_UUID));
        expo_label(&l[i].dcgm, &first, "pci_bus_id", info_str(g, M_PCI_BUS_ID));
        expo_label(&l[i].dcgm, &first, "device", dev);
        expo_label(&l[i].dcgm, &first, "modelName", info_str(g, M_NAME));
        expo_label(&l[i].dcgm, &first, "Hostname", o->hostname);
        expo_label(&l[i].dcgm, &first, "DCGM_FI_DRIVER_VERSION", *drv ? drv : s->driver_version);
        first = 1;
        buf_init(&l[i].native);
        expo_label(&l[i].native, &first, "gpu", idx);
        expo_label(&l[i].native, &first, "uuid", info_str(g, M_UUID));
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

/* Each MIG device's series of a metric, as dcgm-exporter writes them: the GPU's labels and
 * GPU_I_PROFILE, GPU_I_ID. */
static void write_mig(gw_buf *out, const agent_gpu_view *g, const gw_buf *labels, const metric_def *d, double scale)
{
    gw_buf lab;
    buf_init(&lab);
    for (int k = 0; k < g->nmig; k++) {
        double v;
        if (!mig_value(&g->mig[k], d->id, &v))
            continue;
        char gi[16];
        snprintf(gi, sizeof gi, "%u", g->mig[k].gi);
        buf_clear(&lab);
        buf_puts(&lab, labels->data);
        int first = 0;
        expo_label(&lab, &first, "GPU_I_PROFILE", g->mig[k].profile);
        expo_label(&lab, &first, "GPU_I_ID", gi);
        expo_sample(out, d->dcgm, lab.data, v * scale);
    }
    out->oom |= lab.oom;
    buf_release(&lab);
}

static void write_family(gw_buf *out, const agent_snapshot *s, const gpu_labels *l, const metric_def *d, int dcgm)
{
    const char *name = dcgm ? d->dcgm : d->prom;
    double scale = dcgm ? d->dcgm_scale : d->prom_scale;
    if (scale == 0)
        scale = 1;
    int header = 0;
    for (int i = 0; i < s->ngpus; i++) {
        double v;
        if (!gpu_value(&s->gpus[i], d->id, &v))
            continue;
        if (!header) {
            expo_family(out, name, dcgm ? d->dcgm_unit_help : d->help, type_name(d->kind));
            header = 1;
        }
        expo_sample(out, name, dcgm ? l[i].dcgm.data : l[i].native.data, v * scale);
        if (dcgm && !s->gpus[i].lost)
            write_mig(out, &s->gpus[i], &l[i].dcgm, d, scale);
    }
}

/* Health, kept whatever the series mode: a GPU whose read (an NVML call) has not returned for over
 * max(2 intervals, 1 s); its samples then stop, and it goes stale, while the others go on. */
static void write_hung(gw_buf *out, const agent_snapshot *s, const gpu_labels *l)
{
    expo_family(out, "gpuwatch_gpu_hung",
                "1 while a read of the GPU (an NVML call) has not returned for over 2 sampling intervals; the "
                "other GPUs are sampled meanwhile.",
                "gauge");
    for (int i = 0; i < s->ngpus; i++)
        expo_sample(out, "gpuwatch_gpu_hung", l[i].native.data, s->gpus[i].hung ? 1 : 0);
}

static void write_info(gw_buf *out, const agent_snapshot *s, const gpu_labels *l)
{
    if (s->ngpus == 0)
        return;
    expo_family(out, "gpuwatch_gpu_info", "Identity of a GPU; always 1.", "gauge");
    gw_buf lab;
    buf_init(&lab);
    for (int i = 0; i < s->ngpus; i++) {
        const agent_gpu_view *g = &s->gpus[i];
        buf_clear(&lab);
        buf_puts(&lab, l[i].native.data);
        int first = 0;
        const char *drv = info_str(g, M_DRIVER_VERSION);
        expo_label(&lab, &first, "name", info_str(g, M_NAME));
        expo_label(&lab, &first, "pci_bus_id", info_str(g, M_PCI_BUS_ID));
        expo_label(&lab, &first, "driver_version", *drv ? drv : s->driver_version);
        expo_label(&lab, &first, "vbios_version", info_str(g, M_VBIOS_VERSION));
        expo_label(&lab, &first, "serial", info_str(g, M_SERIAL));
        expo_label(&lab, &first, "simulated", s->simulated ? "true" : "false");
        double cc;
        if (g->has_sample && sample_get(&g->sample, M_COMPUTE_CAP, &cc)) {
            char tmp[16];
            snprintf(tmp, sizeof tmp, "%.1f", cc);
            expo_label(&lab, &first, "compute_cap", tmp);
        }
        expo_sample(out, "gpuwatch_gpu_info", lab.data, 1);
    }
    buf_release(&lab);
    expo_family(out, "gpuwatch_gpu_lost",
                "1 when the GPU has fallen off the bus or stopped answering; it then has no value series.", "gauge");
    for (int i = 0; i < s->ngpus; i++)
        expo_sample(out, "gpuwatch_gpu_lost", l[i].native.data, s->gpus[i].lost ? 1 : 0);
    write_hung(out, s, l);
}

static void write_processes(gw_buf *out, const agent_snapshot *s, const expo_options *o, int sm)
{
    const char *name = sm ? PROC_SM : PROC_MEMORY;
    int n = 0, header = 0;
    gw_buf lab;
    buf_init(&lab);
    for (int i = 0; i < s->nprocs && n < o->process_limit; i++) {
        const gpu_proc *p = &s->procs[i];
        if (sm ? !p->has_sm : !p->has_mem)
            continue;
        if (!header) {
            expo_family(out, name,
                        sm ? "Share of the GPU's SM time used by the process (0-1)."
                           : "GPU memory used by the process, in bytes.",
                        "gauge");
            header = 1;
        }
        char gpu[16], pid[16];
        snprintf(gpu, sizeof gpu, "%d", p->gpu);
        snprintf(pid, sizeof pid, "%u", p->pid);
        int first = 1;
        buf_clear(&lab);
        expo_label(&lab, &first, "gpu", gpu);
        expo_label(&lab, &first, "pid", pid);
        expo_label(&lab, &first, "user", p->user);
        expo_label(&lab, &first, "command", p->name);
        expo_label(&lab, &first, "container", p->container);
        expo_sample(out, name, lab.data, sm ? p->sm_util / 100.0 : p->mem_mib * 1048576.0);
        n++;
    }
    buf_release(&lab);
}

void expo_write_gpus(gw_buf *out, const agent_snapshot *s, const expo_options *o)
{
    gpu_labels *l = calloc((size_t)(s->ngpus ? s->ngpus : 1), sizeof *l);
    if (!l) {
        out->oom = 1;
        return;
    }
    build_labels(s, o, l);
    if (o->series & EXPO_DCGM)
        for (int id = M_STR_END; id < M_COUNT; id++) {
            const metric_def *d = catalog_get((metric_id)id);
            if (d->dcgm && wanted(o, d->id))
                write_family(out, s, l, d, 1);
        }
    if (o->series & EXPO_NATIVE) {
        write_info(out, s, l);
        for (int id = M_STR_END; id < M_COUNT; id++) {
            const metric_def *d = catalog_get((metric_id)id);
            if (d->prom && wanted(o, d->id))
                write_family(out, s, l, d, 0);
        }
        if (!o->filter || o->proc_memory)
            write_processes(out, s, o, 0);
        if (!o->filter || o->proc_sm)
            write_processes(out, s, o, 1);
    } else {
        /* gpuwatch_gpu_lost is the one native series a lost GPU keeps, whatever the series mode. */
        if (s->ngpus) {
            expo_family(out, "gpuwatch_gpu_lost",
                        "1 when the GPU has fallen off the bus or stopped answering; it then has no value series.",
                        "gauge");
            for (int i = 0; i < s->ngpus; i++)
                expo_sample(out, "gpuwatch_gpu_lost", l[i].native.data, s->gpus[i].lost ? 1 : 0);
            write_hung(out, s, l);
        }
    }
    for (int i = 0; i < s->ngpus; i++) {
        buf_release(&l[i].dcgm);
        buf_release(&l[i].native);
    }
    free(l);
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
