/* fleet_prom.c - an engine's series as the fleet's hosts and GPUs (top --prometheus). Each series of
 * an instant vector is one value of one GPU of one host: the host is its instance label (else its
 * Hostname, as dcgm-exporter names its node), the GPU its gpu label (else its UUID), who the GPU
 * works for is gpuwatch_gpu_job_info's series or dcgm-exporter's pod, namespace, container and
 * hpc_job labels. Label values come cleaned and cut by prom_api.h; what cannot be placed (no host,
 * no GPU, a second value of one metric of one GPU, a value out of range, past the caps) is left
 * out and counted, never guessed. */
#include "top_fleet.h"
#include "util.h"
#include "workload.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const metric_id fleet_metrics[] = {M_UTIL_GPU, M_MEM_USED, M_MEM_TOTAL,  M_POWER_DRAW,          M_POWER_LIMIT,
                                   M_TEMP_GPU, M_CLOCK_SM, M_CER_ACTIVE, M_POWER_ENFORCED_LIMIT};
const int fleet_nmetrics = (int)(sizeof fleet_metrics / sizeof fleet_metrics[0]);

int prom_fleet_init(prom_fleet *f)
{
    memset(f, 0, sizeof *f);
    f->h = calloc(FLEET_MAX_HOSTS, sizeof *f->h);
    return f->h ? 0 : -1;
}

void prom_fleet_free(prom_fleet *f)
{
    for (int i = 0; f->h && i < f->n; i++) {
        api_gpus_free(&f->h[i].gpus);
        free(f->h[i].who);
    }
    free(f->h);
    memset(f, 0, sizeof *f);
}

static const char *label(const prom_series *s, const char *name)
{
    const char *v = prom_label_get(s, name);
    return v && v[0] ? v : NULL;
}

int prom_host_key(const prom_series *s, char *key, size_t n)
{
    const char *inst = label(s, "instance"), *name = label(s, "Hostname");
    const char *addr = inst ? inst : name;
    if (!addr)
        return -1;
    gw_strlcpy(key, addr, n);
    return 0;
}

/* The host of s, added when new; NULL when s names none or there is no room (counted). */
static prom_host *host_of(prom_fleet *f, const prom_series *s)
{
    const char *inst = label(s, "instance"), *name = label(s, "Hostname");
    char key[FLEET_ADDR_LEN];
    if (prom_host_key(s, key, sizeof key) != 0) {
        f->no_host++;
        return NULL;
    }
    for (int i = 0; i < f->n; i++)
        if (strcmp(f->h[i].addr, key) == 0)
            return &f->h[i];
    if (f->n >= FLEET_MAX_HOSTS) {
        f->hosts_left_out++;
        return NULL;
    }
    prom_host *h = &f->h[f->n++];
    gw_strlcpy(h->addr, key, sizeof h->addr);
    if (inst && name && strcmp(name, key) != 0) {
        gw_strlcpy(h->name, name, sizeof h->name);
        gw_strlcpy(h->gpus.hostname, name, sizeof h->gpus.hostname);
    }
    return h;
}

/* A gpu label: 0 to API_MAX_GPUS - 1 in decimal, else -1. */
static int gpu_index(const char *v)
{
    if (!v || !v[0] || strlen(v) > 2)
        return -1;
    int i = 0;
    for (const char *p = v; *p; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        i = i * 10 + (*p - '0');
    }
    return i < API_MAX_GPUS ? i : -1;
}

/* GPU (index, else uuid) of host h, added when new; -1 when s names none, or no room (counted). */
static int gpu_of(prom_fleet *f, prom_host *h, const prom_series *s, int *oom)
{
    int index = gpu_index(label(s, "gpu"));
    const char *uuid = label(s, "UUID") ? label(s, "UUID") : label(s, "uuid");
    if (index < 0 && !uuid) {
        f->no_gpu++;
        return -1;
    }
    for (int g = 0; g < h->gpus.n; g++) {
        const api_gpu *ag = &h->gpus.gpus[g];
        if (index >= 0 ? ag->info.index == index : strcmp(ag->info.str[M_UUID], uuid) == 0)
            return g;
    }
    if (index < 0) /* a GPU known by its UUID alone: the first index free */
        for (index = 0; index < API_MAX_GPUS; index++) {
            int used = 0;
            for (int g = 0; g < h->gpus.n && !used; g++)
                used = h->gpus.gpus[g].info.index == index;
            if (!used)
                break;
        }
    if (h->gpus.n >= API_MAX_GPUS || index >= API_MAX_GPUS) {
        f->gpus_left_out++;
        return -1;
    }
    if (h->gpus.n == h->cap) {
        int cap = h->cap ? h->cap * 2 : 8;
        api_gpu *g = realloc(h->gpus.gpus, (size_t)cap * sizeof *g);
        if (g)
            h->gpus.gpus = g;
        fleet_who *w = g ? realloc(h->who, (size_t)cap * sizeof *w) : NULL;
        if (!w) {
            *oom = 1;
            return -1;
        }
        h->who = w;
        h->cap = cap;
    }
    int g = h->gpus.n++;
    memset(&h->gpus.gpus[g], 0, sizeof h->gpus.gpus[g]);
    memset(&h->who[g], 0, sizeof h->who[g]);
    h->gpus.gpus[g].info.index = index;
    if (uuid) {
        gw_strlcpy(h->gpus.gpus[g].info.str[M_UUID], uuid, GW_STR_LEN);
        mset_add(&h->gpus.gpus[g].info.str_present, M_UUID);
    }
    h->gpus.backend_up = 1;
    return g;
}

/* Who a series' labels say its GPU works for: a Slurm job (slurm_job_id or dcgm-exporter's hpc_job),
 * a pod, a container, a unit; the user. 1 when they say anything. */
static int who_of(const prom_series *s, fleet_who *w)
{
    workload wl;
    memset(&wl, 0, sizeof wl);
    const char *slurm = label(s, "slurm_job_id") ? label(s, "slurm_job_id") : label(s, "hpc_job");
    const char *pod = label(s, "pod"), *ns = label(s, "namespace"), *cid = label(s, "container_id");
    const char *unit = label(s, "unit"), *user = label(s, "user"), *cont = label(s, "container");
    char text[FLEET_JOB_LEN] = "";
    if (slurm) {
        wl.kind = WL_SLURM;
        gw_strlcpy(wl.slurm_job, slurm, sizeof wl.slurm_job);
        gw_strlcpy(wl.job_name, label(s, "job_name") ? label(s, "job_name") : "", sizeof wl.job_name);
    } else if (pod) {
        wl.kind = WL_POD;
        gw_strlcpy(wl.pod, pod, sizeof wl.pod);
        gw_strlcpy(wl.namespace_, ns ? ns : "", sizeof wl.namespace_);
        gw_strlcpy(text, pod, sizeof text);
    } else if (cid || cont || unit) {
        gw_strlcpy(text, cid ? cid : cont ? cont : unit, sizeof text);
    }
    if (wl.kind == WL_NONE && !text[0] && !user)
        return 0;
    fleet_workload_job(&wl, text, w->job, sizeof w->job);
    gw_strlcpy(w->user, user ? user : "", sizeof w->user);
    return 1;
}

int prom_fleet_add(prom_fleet *f, metric_id id, double scale, const prom_result *r)
{
    int oom = 0;
    for (int i = 0; i < r->n && !oom; i++) {
        const prom_series *s = &r->s[i];
        if (s->n < 1)
            continue;
        double v = s->v[s->n - 1] * scale;
        if (v < 0 || v > API_MAX_NUMBER) {
            f->bad_value++;
            continue;
        }
        prom_host *h = host_of(f, s);
        int g = h ? gpu_of(f, h, s, &oom) : -1;
        if (g < 0)
            continue;
        gpu_sample *gs = &h->gpus.gpus[g].s;
        if (sample_has(gs, id)) {
            f->duplicate++;
            continue;
        }
        sample_set(gs, id, v);
        if (s->t_us[s->n - 1] > gs->t_us)
            gs->t_us = s->t_us[s->n - 1];
        if (!h->who[g].job[0] && !h->who[g].user[0])
            who_of(s, &h->who[g]);
    }
    return oom ? -1 : 0;
}

int prom_fleet_add_jobs(prom_fleet *f, const prom_result *r)
{
    int oom = 0;
    for (int i = 0; i < r->n && !oom; i++) {
        const prom_series *s = &r->s[i];
        prom_host *h = host_of(f, s);
        int g = h ? gpu_of(f, h, s, &oom) : -1;
        fleet_who w;
        if (g >= 0 && !h->who[g].job[0] && who_of(s, &w))
            h->who[g] = w;
    }
    return oom ? -1 : 0;
}

static int by_addr(const void *a, const void *b)
{
    return strcmp(((const prom_host *)a)->addr, ((const prom_host *)b)->addr);
}

void prom_fleet_sort(prom_fleet *f)
{
    int kept = 0;
    for (int i = 0; i < f->n; i++) {
        if (f->h[i].gpus.n == 0) { /* every series of it left out: nothing to show */
            api_gpus_free(&f->h[i].gpus);
            free(f->h[i].who);
            continue;
        }
        f->h[kept++] = f->h[i];
    }
    f->n = kept;
    qsort(f->h, (size_t)f->n, sizeof *f->h, by_addr);
    for (int i = 0; i < f->n; i++) {
        prom_host *h = &f->h[i];
        /* by index: an insertion sort of both arrays (a host has at most API_MAX_GPUS) */
        for (int a = 1; a < h->gpus.n; a++)
            for (int b = a; b > 0 && h->gpus.gpus[b - 1].info.index > h->gpus.gpus[b].info.index; b--) {
                api_gpu tg = h->gpus.gpus[b];
                h->gpus.gpus[b] = h->gpus.gpus[b - 1];
                h->gpus.gpus[b - 1] = tg;
                fleet_who tw = h->who[b];
                h->who[b] = h->who[b - 1];
                h->who[b - 1] = tw;
            }
    }
}
