/* source_local.c - a top_source reading this machine's GPUs through the sampler: only the metrics
 * top shows or its alert rules and diagnosis read, the processes on the GPUs with what /proc says about them, and
 * the host's CPU and memory. /proc is read sparingly: a process's user, command line and container
 * once (procinfo), then only its stat line for CPU and RSS, every 2 s (or every refresh when that is
 * longer), from a file kept open (one pread); a pid not visible here (another pid namespace) is
 * looked for again every 10 s, not at every refresh. NVML's process lists are read at the same pace
 * as the stat lines (every 2 s, or every refresh when that is longer). */
#include "top_model.h"
#include "diag_window.h"
#include "procinfo.h"
#include "sampler.h"
#include "util.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RETRY_HIDDEN_US 10000000u /* a pid not visible here: look again after this long */
#define MAX_STAT_FDS 256          /* stat files kept open at most; beyond, each read opens its own */
#define STAT_EVERY_US 2000000u    /* CPU and RSS of a process: read again after this long (at most) */
#define PROCS_EVERY_US 2000000u   /* NVML's process lists: read again after this long (at most) */

/* What /proc said about one pid, kept between refreshes. */
typedef struct pinfo {
    unsigned pid;
    int visible;                    /* /proc/PID exists here */
    int fd;                         /* its stat file, kept open (-1: none) */
    unsigned long long start_ticks; /* tells a reused pid apart */
    unsigned long long cpu_ticks;   /* utime + stime at read_us */
    uint64_t read_us;               /* last read (monotonic) */
    gpu_proc p;                     /* the /proc fields of the process */
} pinfo;

typedef struct local_ctx {
    sampler s;
    metric_set want;
    gpu_sample *tmp; /* one per GPU, filled without the model lock */
    gpu_mig *mig;    /* GW_MIG_MAX per GPU, nmig[gpu] of them, filled without the model lock */
    int *nmig;
    gpu_proc *procs;
    pinfo *cache, *next; /* sorted by pid: last round's, this round's */
    int ncache, nnext, nfds;
    int nprocs;        /* in procs, from the last read of the lists */
    uint64_t procs_us; /* when the lists were read (monotonic; 0 never) */
    long hz, page;
    host_ticks cpu_prev;
    int have_cpu_prev;
} local_ctx;

/* The metrics the UI shows, those the default alert rules read (xid.count), and those the diagnosis
 * reads (diag_window_metrics); static ones (memory.total, the limits, ...) are merged in by the
 * sampler anyway. GPM ones exist on Hopper and later. */
static void wanted(metric_set *w)
{
    static const metric_id ids[] = {
        M_PSTATE,        M_FAN_SPEED,     M_TEMP_GPU,
        M_TEMP_MEMORY,   M_UTIL_GPU,      M_MEM_USED,
        M_POWER_DRAW,    M_POWER_LIMIT,   M_POWER_ENFORCED_LIMIT,
        M_CLOCK_SM,      M_CLOCK_MEM,     M_CER_ACTIVE,
        M_PCIE_RX,       M_PCIE_TX,       M_ECC_SBE_VOL,
        M_ECC_DBE_VOL,   M_REMAP_PENDING, M_REMAP_FAILURE,
        M_XID_LAST,      M_XID_COUNT,     M_GPM_TENSOR_ACTIVE,
        M_GPM_NVLINK_TX, M_GPM_NVLINK_RX, M_UTIL_MEMORY,
    };
    memset(w, 0, sizeof *w);
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
        mset_add(w, ids[i]);
    diag_window_metrics(w);
}

static pinfo *find(pinfo *a, int n, unsigned pid)
{
    int lo = 0, hi = n - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (a[mid].pid == pid)
            return &a[mid];
        if (a[mid].pid < pid)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return NULL;
}

static int by_pid(const void *a, const void *b)
{
    unsigned x = ((const pinfo *)a)->pid, y = ((const pinfo *)b)->pid;
    return (x > y) - (x < y);
}

static void close_stat(local_ctx *c, pinfo *e)
{
    if (e->fd >= 0) {
        close(e->fd);
        c->nfds--;
    }
    e->fd = -1;
}

/* Everything /proc says (procinfo), and the stat line for the next CPU reading. */
static void read_all(local_ctx *c, pinfo *e, const gpu_proc *nv, uint64_t now)
{
    close_stat(c, e);
    e->p = *nv;
    e->visible = procinfo_fill(&e->p) == 0;
    e->read_us = now;
    if (!e->visible)
        return;
    proc_stat st;
    int fd = c->nfds < MAX_STAT_FDS ? procfs_open_stat("/proc", e->pid) : -1;
    if (fd >= 0) {
        e->fd = fd;
        c->nfds++;
    }
    if ((fd >= 0 ? procfs_pread_stat(fd, &st) : proc_stat_read(NULL, e->pid, &st)) == 0) {
        e->start_ticks = st.start_ticks;
        e->cpu_ticks = st.utime + st.stime;
    }
}

/* CPU since the last reading and RSS from the stat line; all of it again when the pid was reused. */
static void read_again(local_ctx *c, pinfo *e, const gpu_proc *nv, uint64_t now)
{
    proc_stat st;
    if (!e->visible) {
        if (now - e->read_us >= RETRY_HIDDEN_US)
            read_all(c, e, nv, now);
        return;
    }
    if (now - e->read_us < STAT_EVERY_US - 100000u)
        return; /* CPU over two seconds at least: half the processes are read at each 1 s refresh */
    int bad = e->fd >= 0 ? procfs_pread_stat(e->fd, &st) : proc_stat_read(NULL, e->pid, &st);
    if (bad || st.start_ticks != e->start_ticks) {
        read_all(c, e, nv, now); /* gone (NVML will stop listing it), or its pid was reused */
        return;
    }
    unsigned long long ticks = st.utime + st.stime;
    if (now > e->read_us && ticks >= e->cpu_ticks) {
        e->p.cpu_percent = (double)(ticks - e->cpu_ticks) / (double)c->hz / ((double)(now - e->read_us) / 1e6) * 100.0;
        e->p.has_cpu = 1;
    }
    e->p.rss_mib = (double)st.rss_pages * (double)c->page / 1048576.0;
    e->p.has_rss = st.rss_pages >= 0;
    e->cpu_ticks = ticks;
    e->read_us = now;
}

/* Copies the /proc fields into a process NVML listed. */
static void merge(gpu_proc *p, const pinfo *e)
{
    if (!e->visible)
        return;
    const gpu_proc *q = &e->p;
    memcpy(p->name, q->name, sizeof p->name);
    memcpy(p->cmdline, q->cmdline, sizeof p->cmdline);
    memcpy(p->user, q->user, sizeof p->user);
    memcpy(p->container, q->container, sizeof p->container);
    p->cpu_percent = q->cpu_percent;
    p->has_cpu = q->has_cpu;
    p->rss_mib = q->rss_mib;
    p->has_rss = q->has_rss;
    p->start_time_s = q->start_time_s;
}

/* The processes of every GPU, with /proc's view from the cache. */
static int read_procs(local_ctx *c, uint64_t now)
{
    int np = 0;
    c->nnext = 0;
    for (int i = 0; i < c->s.count && np < TOP_MAX_PROCS; i++) {
        int k = sampler_read_backend_processes(&c->s, i, c->procs + np, TOP_MAX_PROCS - np);
        for (int j = 0; j < k; j++) {
            gpu_proc *p = &c->procs[np + j];
            p->gpu = i;
            pinfo *e = NULL;
            for (int x = 0; x < c->nnext && !e; x++) /* the same pid on another GPU this round */
                if (c->next[x].pid == p->pid)
                    e = &c->next[x];
            if (!e && c->nnext < TOP_MAX_PROCS) {
                e = &c->next[c->nnext++];
                pinfo *old = find(c->cache, c->ncache, p->pid);
                if (old) {
                    *e = *old;
                    old->fd = -1; /* moved to this round */
                    read_again(c, e, p, now);
                } else {
                    memset(e, 0, sizeof *e);
                    e->pid = p->pid;
                    e->fd = -1;
                    read_all(c, e, p, now);
                }
            }
            if (e)
                merge(p, e);
        }
        if (k > 0)
            np += k;
    }
    for (int i = 0; i < c->ncache; i++)
        close_stat(c, &c->cache[i]); /* the processes that left the GPUs */
    qsort(c->next, (size_t)c->nnext, sizeof *c->next, by_pid);
    pinfo *t = c->cache;
    c->cache = c->next;
    c->ncache = c->nnext;
    c->next = t;
    return np;
}

static void read_host(local_ctx *c, top_host *h)
{
    host_ticks cpu;
    double total, avail;
    memset(h, 0, sizeof *h);
    int bad = procfs_read_host("/proc", &cpu, &total, &avail);
    if (!(bad & 1)) {
        double pct = c->have_cpu_prev ? procfs_cpu_pct(&c->cpu_prev, &cpu) : -1;
        h->has_cpu = pct >= 0;
        h->cpu_pct = pct;
        c->cpu_prev = cpu;
        c->have_cpu_prev = 1;
    }
    if (!(bad & 2)) {
        h->has_mem = 1;
        h->mem_total_mib = total;
        h->mem_used_mib = total - avail;
    }
}

static int local_refresh(void *vctx, top_model *m)
{
    local_ctx *c = vctx;
    int n = c->s.count;
    for (int i = 0; i < n; i++) {
        sampler_read(&c->s, i, &c->want, &c->tmp[i]);
        c->nmig[i] = c->tmp[i].status == GPU_OK ? sampler_read_mig(&c->s, i, &c->mig[i * GW_MIG_MAX], GW_MIG_MAX) : 0;
    }
    uint64_t now = gw_mono_us();
    /* the process lists (three NVML calls a GPU) as often as /proc's figures, every 2 s at most */
    if (!c->procs_us || now - c->procs_us >= PROCS_EVERY_US - 100000u) {
        c->nprocs = read_procs(c, now);
        c->procs_us = now;
    }
    int np = c->nprocs;
    top_host host;
    read_host(c, &host);
    pthread_mutex_lock(&m->lock);
    for (int i = 0; i < n; i++) {
        top_gpu *g = &m->gpus[i];
        g->info = c->s.gpus[i].info;
        g->s = c->tmp[i];
        g->have_sample = 1;
        g->lost = c->tmp[i].status == GPU_LOST;
        g->nmig = c->nmig[i] > 0 ? c->nmig[i] : 0;
        memcpy(g->mig, &c->mig[i * GW_MIG_MAX], (size_t)g->nmig * sizeof *g->mig);
        if (c->tmp[i].status == GPU_OK) {
            g->fresh_us = now;
            history_push(m->hist, i, &c->tmp[i]);
        }
    }
    memcpy(m->procs, c->procs, (size_t)np * sizeof *m->procs);
    m->nprocs = np;
    m->hoststat = host;
    m->updated_us = now;
    m->seq++;
    m->error[0] = 0;
    pthread_mutex_unlock(&m->lock);
    return 0;
}

static void local_close(void *vctx)
{
    local_ctx *c = vctx;
    for (int i = 0; c->cache && i < c->ncache; i++)
        close_stat(c, &c->cache[i]);
    sampler_close(&c->s);
    free(c->tmp);
    free(c->mig);
    free(c->nmig);
    free(c->procs);
    free(c->cache);
    free(c->next);
    free(c);
}

int top_source_local(top_source *src, top_model *m, char *err, size_t errlen)
{
    local_ctx *c = calloc(1, sizeof *c);
    if (!c) {
        gw_strlcpy(err, "out of memory", errlen);
        return BK_ERR_OTHER;
    }
    backend_status st = sampler_open(&c->s, err, errlen);
    if (st != BK_OK) {
        free(c);
        return st;
    }
    int n = c->s.count > TOP_MAX_GPUS ? TOP_MAX_GPUS : c->s.count;
    c->s.count = n;
    c->hz = sysconf(_SC_CLK_TCK);
    c->page = sysconf(_SC_PAGESIZE);
    if (c->hz <= 0)
        c->hz = 100;
    if (c->page <= 0)
        c->page = 4096;
    c->tmp = calloc((size_t)(n ? n : 1), sizeof *c->tmp);
    c->mig = calloc((size_t)(n ? n : 1) * GW_MIG_MAX, sizeof *c->mig);
    c->nmig = calloc((size_t)(n ? n : 1), sizeof *c->nmig);
    c->procs = calloc(TOP_MAX_PROCS, sizeof *c->procs);
    c->cache = calloc(TOP_MAX_PROCS, sizeof *c->cache);
    c->next = calloc(TOP_MAX_PROCS, sizeof *c->next);
    m->hist = history_new(n, TOP_HISTORY);
    if (!c->tmp || !c->mig || !c->nmig || !c->procs || !c->cache || !c->next || !m->hist) {
        gw_strlcpy(err, "out of memory", errlen);
        local_close(c);
        return BK_ERR_OTHER;
    }
    wanted(&c->want);
    m->versions = c->s.versions;
    m->ngpus = n;
    for (int i = 0; i < n; i++)
        m->gpus[i].info = c->s.gpus[i].info;
    src->ctx = c;
    src->refresh = local_refresh;
    src->close = local_close;
    return BK_OK;
}
