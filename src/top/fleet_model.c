/* fleet_model.c - the fleet as `top --hosts` holds it: each agent's latest GPUs, processes and
 * findings, or why it cannot be read; the lines of the screen, grouped by host or by job and
 * sorted by a column; the fleet's findings ranked worst first. */
#include "top_fleet.h"
#include "util.h"
#include "workload.h"
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const fleet_col_names[FC_COUNT] = {"HOST", "GPU",    "UTIL",     "MEM-USED",  "POWER",
                                               "TEMP", "SM-CLK", "THROTTLE", "JOB / USER"};

int fleet_model_init(fleet_model *m, const fleet_hosts *h)
{
    memset(m, 0, sizeof *m);
    m->hosts = calloc((size_t)(h->n ? h->n : 1), sizeof *m->hosts);
    if (!m->hosts)
        return -1;
    pthread_mutex_init(&m->lock, NULL);
    m->nhosts = h->n;
    for (int i = 0; i < h->n; i++) {
        fleet_host *fh = &m->hosts[i];
        gw_strlcpy(fh->addr, h->addr[i], sizeof fh->addr);
        fh->fstate = FIND_WAITING;
        diag_report_init(&fh->find);
    }
    return 0;
}

int fleet_model_init_engine(fleet_model *m, const char *url)
{
    memset(m, 0, sizeof *m);
    m->hosts = calloc(FLEET_MAX_HOSTS, sizeof *m->hosts);
    if (!m->hosts)
        return -1;
    pthread_mutex_init(&m->lock, NULL);
    gw_strlcpy(m->engine, url, sizeof m->engine);
    return 0;
}

int fleet_model_host(fleet_model *m, const char *addr)
{
    for (int i = 0; i < m->nhosts; i++)
        if (strcmp(m->hosts[i].addr, addr) == 0)
            return i;
    if (m->nhosts >= FLEET_MAX_HOSTS)
        return -1;
    fleet_host *h = &m->hosts[m->nhosts];
    gw_strlcpy(h->addr, addr, sizeof h->addr);
    h->fstate = FIND_NOT_SERVED; /* an engine holds samples, not findings */
    diag_report_init(&h->find);
    m->seq++;
    return m->nhosts++;
}

void fleet_host_read_engine(fleet_model *m, int i, api_gpus *g, fleet_who **who, uint64_t wall_us)
{
    fleet_host *h = &m->hosts[i];
    api_gpus_free(&h->gpus);
    free(h->who);
    h->gpus = *g;
    h->who = *who;
    memset(g, 0, sizeof *g);
    *who = NULL;
    if (h->gpus.hostname[0])
        gw_strlcpy(h->name, h->gpus.hostname, sizeof h->name);
    h->reach = HOST_UP;
    h->why[0] = 0;
    h->read_us = wall_us;
    m->seq++;
}

void fleet_host_silent(fleet_model *m, int i, const char *why, uint64_t since_us)
{
    fleet_host *h = &m->hosts[i];
    h->reach = HOST_SILENT;
    h->since_us = since_us ? since_us : h->read_us;
    gw_strlcpy(h->why, why, sizeof h->why);
    m->seq++;
}

void fleet_engine_state(fleet_model *m, const char *why, const char *note, uint64_t wall_us)
{
    if (why && !m->engine_why[0])
        m->engine_since_us = wall_us;
    gw_strlcpy(m->engine_why, why ? why : "", sizeof m->engine_why);
    if (!why) {
        m->engine_read_us = wall_us;
        gw_strlcpy(m->engine_note, note ? note : "", sizeof m->engine_note);
    }
    m->seq++;
}

void fleet_model_free(fleet_model *m)
{
    if (!m->hosts)
        return;
    for (int i = 0; i < m->nhosts; i++) {
        free(m->hosts[i].who);
        api_gpus_free(&m->hosts[i].gpus);
        api_procs_free(&m->hosts[i].procs);
        diag_report_free(&m->hosts[i].find);
    }
    free(m->hosts);
    m->hosts = NULL;
    pthread_mutex_destroy(&m->lock);
}

void fleet_host_read(fleet_model *m, int i, api_gpus *g, api_procs *p, uint64_t wall_us)
{
    api_gpus old_g;
    api_procs old_p;
    pthread_mutex_lock(&m->lock);
    fleet_host *h = &m->hosts[i];
    old_g = h->gpus;
    old_p = h->procs;
    h->gpus = *g;
    h->procs = *p;
    if (g->hostname[0])
        gw_strlcpy(h->name, g->hostname, sizeof h->name);
    h->reach = HOST_UP;
    h->why[0] = 0;
    h->read_us = wall_us;
    m->seq++;
    pthread_mutex_unlock(&m->lock);
    memset(g, 0, sizeof *g);
    memset(p, 0, sizeof *p);
    api_gpus_free(&old_g);
    api_procs_free(&old_p);
}

void fleet_host_down(fleet_model *m, int i, const char *why, uint64_t wall_us)
{
    pthread_mutex_lock(&m->lock);
    fleet_host *h = &m->hosts[i];
    if (h->reach != HOST_DOWN)
        h->since_us = wall_us;
    h->reach = HOST_DOWN;
    gw_strlcpy(h->why, why, sizeof h->why);
    m->seq++;
    pthread_mutex_unlock(&m->lock);
}

void fleet_host_findings(fleet_model *m, int i, diag_report *r, find_state st)
{
    pthread_mutex_lock(&m->lock);
    fleet_host *h = &m->hosts[i];
    diag_report old = h->find;
    h->find = *r;
    h->fstate = st;
    m->seq++;
    pthread_mutex_unlock(&m->lock);
    *r = old;
    diag_report_clear(r);
}

void fleet_reason(const char *err, char *out, size_t n)
{
    const char *rest = err;
    if ((strncmp(err, "agent ", 6) == 0 || strncmp(err, "engine ", 7) == 0) && strstr(err, ": "))
        rest = strstr(err, ": ") + 2;
    const char *wait = strstr(rest, "(no answer in ");
    const char *open = strrchr(rest, '(');
    size_t len = strlen(rest);
    if (wait) {
        snprintf(out, n, "%.*s", (int)strcspn(wait + 1, ")"), wait + 1);
    } else if (open && len > 0 && rest[len - 1] == ')' && strncmp(rest, "Couldn't", 8) == 0) {
        /* the system's reason: "Couldn't connect to server (Connection refused)" */
        snprintf(out, n, "%.*s", (int)(rest + len - 1 - open - 1), open + 1);
        if (out[0])
            out[0] = (char)tolower((unsigned char)out[0]);
    } else {
        snprintf(out, n, "%s", rest);
    }
}

/* ---- jobs ---- */

/* A pod's name without its replica's ordinal ("bert-train-1" -> "bert-train"): the pods of one
 * job on several hosts (a StatefulSet's or a training operator's replicas) share the rest. */
static void pod_job(const char *pod, char *out, size_t n)
{
    size_t len = strlen(pod), k = len;
    while (k > 0 && isdigit((unsigned char)pod[k - 1]))
        k--;
    if (k > 1 && k < len && pod[k - 1] == '-')
        len = k - 1;
    snprintf(out, n, "%.*s", (int)len, pod);
}

void fleet_workload_job(const workload *w, const char *text, char *out, size_t n)
{
    char pod[256];
    switch (w->kind) {
    case WL_SLURM: snprintf(out, n, "slurm job %s%s%s", w->slurm_job, w->job_name[0] ? " " : "", w->job_name); break;
    case WL_POD:
        pod_job(w->pod, pod, sizeof pod);
        if (w->namespace_[0])
            snprintf(out, n, "k8s %s/%s", w->namespace_, pod);
        else
            snprintf(out, n, "%s", text); /* an unresolved pod: its uid */
        break;
    default: snprintf(out, n, "%s", text); break;
    }
}

/* The job of a process's container text, as the fleet groups it. */
static void job_of(const char *container, char *out, size_t n)
{
    workload w;
    workload_parse(container, &w);
    fleet_workload_job(&w, container, out, n);
}

void fleet_gpu_job(const fleet_host *h, int gpu, char *job, size_t jn, char *user, size_t un)
{
    if (h->who) {
        snprintf(job, jn, "%s", h->who[gpu].job);
        snprintf(user, un, "%s", h->who[gpu].user);
        return;
    }
    const gpu_proc *best = NULL;
    int index = h->gpus.gpus[gpu].info.index;
    for (int i = 0; i < h->procs.n; i++) {
        const gpu_proc *p = &h->procs.p[i];
        if (p->gpu == index && (!best || (p->has_mem ? p->mem_mib : 0) > (best->has_mem ? best->mem_mib : 0)))
            best = p;
    }
    job[0] = user[0] = 0;
    if (!best)
        return;
    job_of(best->container, job, jn);
    snprintf(user, un, "%s", best->user);
}

/* ---- rows ---- */

typedef struct sort_item {
    fleet_row r;
    const char *text; /* a text column's value */
    double v;
    int has; /* a value to sort by (missing ones go last) */
    int desc;
    int host_pos; /* ties: the host's place, then the GPU's index */
    int index;
} sort_item;

static int cmp_item(const void *pa, const void *pb)
{
    const sort_item *a = pa, *b = pb;
    if (a->has != b->has)
        return b->has - a->has;
    int c = 0;
    if (a->has && a->text)
        c = strcmp(a->text, b->text);
    else if (a->has)
        c = (a->v > b->v) - (a->v < b->v);
    if (c)
        return a->desc ? -c : c;
    if (a->host_pos != b->host_pos)
        return a->host_pos - b->host_pos;
    return a->index - b->index;
}

static int throttle_count(const gpu_sample *s, double *v)
{
    double mask;
    if (!sample_get(s, M_CER_ACTIVE, &mask) || mask < 0)
        return 0;
    char words[200];
    *v = fmt_throttle_words((uint64_t)llround(mask), 0, words, sizeof words);
    return 1;
}

/* The sort key of GPU g of host h for col (job: its job's text in job_text, kept by the caller). */
static void item_key(const fleet_model *m, int h, int g, fleet_col col, const char *job_text, sort_item *it)
{
    const fleet_host *fh = &m->hosts[h];
    const gpu_sample *s = &fh->gpus.gpus[g].s;
    it->r.host = h;
    it->r.gpu = g;
    it->host_pos = h;
    it->index = fh->gpus.gpus[g].info.index;
    it->text = NULL;
    it->has = 1;
    switch (col) {
    case FC_HOST: it->text = fh->name[0] ? fh->name : fh->addr; break;
    case FC_GPU: it->v = it->index; break;
    case FC_UTIL: it->has = sample_get(s, M_UTIL_GPU, &it->v); break;
    case FC_MEM: it->has = sample_get(s, M_MEM_USED, &it->v); break;
    case FC_POWER: it->has = sample_get(s, M_POWER_DRAW, &it->v); break;
    case FC_TEMP: it->has = sample_get(s, M_TEMP_GPU, &it->v); break;
    case FC_SMCLK: it->has = sample_get(s, M_CLOCK_SM, &it->v); break;
    case FC_THROTTLE: it->has = throttle_count(s, &it->v); break;
    case FC_JOB:
    case FC_COUNT:
        it->text = job_text;
        it->has = job_text && job_text[0];
        break;
    }
}

int fleet_rows_max(const fleet_model *m)
{
    int n = m->nhosts + 1; /* a header per host, or per job and one for the GPUs without a job */
    for (int h = 0; h < m->nhosts; h++)
        n += 2 * m->hosts[h].gpus.n; /* a line per GPU, and a job of its own at most */
    return n;
}

static int by_text(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

/* The job of every GPU (host h's GPU g at first[h] + g of the block returned, FLEET_JOB_LEN each), and
 * in jobs (when not NULL; max_jobs >= 1) the distinct jobs by name, then "" for the GPUs without one. */
static char *gpu_jobs(const fleet_model *m, int *first, char (*jobs)[FLEET_JOB_LEN], int max_jobs, int *njobs)
{
    int total = 0;
    for (int h = 0; h < m->nhosts; h++) {
        first[h] = total;
        total += m->hosts[h].gpus.n;
    }
    char *text = calloc((size_t)(total ? total : 1), FLEET_JOB_LEN);
    if (!text)
        return NULL;
    *njobs = 0;
    for (int h = 0; h < m->nhosts; h++)
        for (int g = 0; g < m->hosts[h].gpus.n; g++) {
            char *job = text + (size_t)(first[h] + g) * FLEET_JOB_LEN, user[32];
            fleet_gpu_job(&m->hosts[h], g, job, FLEET_JOB_LEN, user, sizeof user);
            if (!jobs)
                continue; /* sorting by job: the list of jobs is not needed */
            int known = 0;
            for (int j = 0; j < *njobs && !known; j++)
                known = strcmp(jobs[j], job) == 0;
            if (!known && job[0] && *njobs < max_jobs - 1)
                gw_strlcpy(jobs[(*njobs)++], job, FLEET_JOB_LEN);
        }
    if (jobs) {
        qsort(jobs, (size_t)*njobs, FLEET_JOB_LEN, by_text);
        jobs[(*njobs)++][0] = 0; /* the GPUs without a job, last */
    }
    return text;
}

int fleet_rows(const fleet_model *m, fleet_group by, fleet_col col, int desc, fleet_row *out, int max,
               char (*jobs)[FLEET_JOB_LEN], int max_jobs, int *njobs)
{
    int total = 0, n = 0, nj = 0;
    int *first = calloc((size_t)(m->nhosts ? m->nhosts : 1), sizeof *first);
    for (int h = 0; h < m->nhosts; h++)
        total += m->hosts[h].gpus.n;
    sort_item *items = calloc((size_t)(total ? total : 1), sizeof *items);
    char *job_text = NULL;
    if (!first || !items || (by == GROUP_JOB && (!jobs || max_jobs < 1)))
        goto fail;
    if (by == GROUP_JOB || col == FC_JOB) {
        job_text = gpu_jobs(m, first, by == GROUP_JOB ? jobs : NULL, max_jobs, &nj);
        if (!job_text)
            goto fail;
    }
    if (njobs)
        *njobs = nj;
    for (int h = 0, k = 0; h < m->nhosts; h++)
        for (int g = 0; g < m->hosts[h].gpus.n; g++, k++) {
            item_key(m, h, g, col, job_text ? job_text + (size_t)k * FLEET_JOB_LEN : NULL, &items[k]);
            items[k].desc = desc;
        }
    qsort(items, (size_t)total, sizeof *items, cmp_item);
    if (by == GROUP_HOST) {
        for (int h = 0; h < m->nhosts && n < max; h++) {
            out[n++] = (fleet_row){h, -1, -1};
            for (int k = 0; k < total && n < max; k++)
                if (items[k].r.host == h)
                    out[n++] = (fleet_row){h, items[k].r.gpu, -1};
        }
    } else {
        for (int j = 0; j < nj && n < max; j++) {
            int header = n;
            out[n++] = (fleet_row){-1, -1, j};
            for (int k = 0; k < total && n < max; k++) {
                const char *job = job_text + (size_t)(first[items[k].r.host] + items[k].r.gpu) * FLEET_JOB_LEN;
                if (strcmp(job, jobs[j]) == 0)
                    out[n++] = (fleet_row){items[k].r.host, items[k].r.gpu, j};
            }
            if (n == header + 1)
                n--; /* a job without GPUs (the GPUs without a job, when every GPU has one) */
        }
    }
    free(job_text);
    free(items);
    free(first);
    return n;
fail:
    free(job_text);
    free(items);
    free(first);
    return -1;
}

/* ---- findings ---- */

typedef struct ranked {
    fleet_finding f;
    diag_severity sev;
    double score;
} ranked;

static int cmp_ranked(const void *pa, const void *pb)
{
    const ranked *a = pa, *b = pb;
    if (a->sev != b->sev)
        return (int)b->sev - (int)a->sev;
    if (a->score != b->score)
        return a->score < b->score ? 1 : -1;
    if (a->f.host != b->f.host)
        return a->f.host - b->f.host;
    return a->f.i - b->f.i;
}

int fleet_findings(const fleet_model *m, fleet_finding *out, int max)
{
    int total = 0, n = 0;
    for (int h = 0; h < m->nhosts; h++)
        total += m->hosts[h].fstate == FIND_OK ? m->hosts[h].find.n : 0;
    ranked *r = calloc((size_t)(total ? total : 1), sizeof *r);
    if (!r)
        return 0;
    for (int h = 0; h < m->nhosts; h++)
        for (int i = 0; m->hosts[h].fstate == FIND_OK && i < m->hosts[h].find.n; i++)
            r[n++] = (ranked){{h, i}, m->hosts[h].find.f[i].severity, m->hosts[h].find.f[i].score};
    qsort(r, (size_t)n, sizeof *r, cmp_ranked);
    int k = n < max ? n : max;
    for (int i = 0; i < k; i++)
        out[i] = r[i].f;
    free(r);
    return k;
}
