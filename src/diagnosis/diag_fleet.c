/* diag_fleet.c - a fleet's findings with their hosts and GPU-hours lost, its jobs' members, the
 * ranking (see diag_fleet.h). */
#include "diag_fleet.h"
#include "diag_internal.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_GAP_US 120000000ull /* a reading covers the time to the next one, up to this */
#define MEMBER_BUSY_UTIL 40     /* %: a member's clock and power are averaged over its readings this busy */

void diag_fleet_init(diag_fleet *fl, uint64_t from_us, uint64_t to_us)
{
    memset(fl, 0, sizeof *fl);
    fl->from_us = from_us;
    fl->to_us = to_us;
}

void diag_fleet_free(diag_fleet *fl)
{
    for (int i = 0; i < fl->nhosts; i++)
        free(fl->hosts[i]);
    free(fl->hosts);
    free(fl->f);
    for (int j = 0; j < fl->njobs; j++)
        free(fl->jobs[j].m);
    free(fl->jobs);
    memset(fl, 0, sizeof *fl);
}

/* Room for one more of an array of size bytes each: 0, or -1 when out of memory. */
static int grow(void **arr, int n, int *cap, size_t size)
{
    if (n < *cap)
        return 0;
    int ncap = *cap ? *cap * 2 : 16;
    void *p = realloc(*arr, (size_t)ncap * size);
    if (!p)
        return -1;
    *arr = p;
    *cap = ncap;
    return 0;
}

int diag_fleet_host(diag_fleet *fl, const char *name)
{
    for (int i = 0; i < fl->nhosts; i++)
        if (strcmp(fl->hosts[i], name) == 0)
            return i;
    if (fl->nhosts >= DIAG_FLEET_MAX_HOSTS || grow((void **)&fl->hosts, fl->nhosts, &fl->cap_hosts, sizeof(char *)))
        return -1;
    char *copy = strdup(name);
    if (!copy) {
        fl->oom = 1;
        return -1;
    }
    fl->hosts[fl->nhosts] = copy;
    return fl->nhosts++;
}

static int slowed(unsigned cer)
{
    return (cer & (CER_SW_POWER_CAP | CER_HW_SLOWDOWN | CER_SW_THERMAL | CER_HW_THERMAL | CER_HW_POWER_BRAKE)) != 0;
}

/* The GPU's top SM clock: its maximum, else the highest reading. NAN when none. */
static double top_clock(const diag_gpu *g)
{
    if (isfinite(g->clock_max_sm_mhz) && g->clock_max_sm_mhz > 0)
        return g->clock_max_sm_mhz;
    double top = NAN;
    const diag_series *c = &g->s[DS_CLOCK_SM];
    for (int i = 0; i < c->n; i++)
        if (!(c->v[i] <= top))
            top = c->v[i];
    return top > 0 ? top : NAN;
}

/* The share of a reading's time lost: idle (1 - utilization), or slowed while busy (1 - clock / top
 * clock: a slowdown reason, a power cap, clocks locked low), whichever is more. */
static double lost_share(double util, double clock, double top)
{
    double idle = isnan(util) ? 0 : 1 - util / 100;
    double slow = util > 0 && isfinite(clock) && isfinite(top) ? 1 - clock / top : 0;
    double lost = idle > slow ? idle : slow;
    return lost < 0 ? 0 : lost > 1 ? 1 : lost;
}

/* Seconds of GPU g's time lost over [from, to]. */
static double lost_seconds(const diag_gpu *g, uint64_t from, uint64_t to)
{
    const diag_series *u = &g->s[DS_UTIL];
    double top = top_clock(g), lost = 0;
    int hc = 0;
    for (int i = 0; i + 1 < u->n; i++) {
        uint64_t t = u->t[i], dt = u->t[i + 1] - t;
        if (t < from || t >= to || dt > MAX_GAP_US)
            continue;
        double clock = diag_at(&g->s[DS_CLOCK_SM], t, dt + 1, &hc);
        lost += (double)dt / 1e6 * lost_share(u->v[i], clock, top);
    }
    return lost;
}

int diag_fleet_add_report(diag_fleet *fl, int host, const diag_report *r, const diag_window *w)
{
    for (int i = 0; i < r->n; i++) {
        if (grow((void **)&fl->f, fl->n, &fl->cap, sizeof *fl->f)) {
            fl->oom = 1;
            return -1;
        }
        diag_fleet_finding *ff = &fl->f[fl->n++];
        ff->host = host;
        ff->f = r->f[i];
        double s = 0;
        for (int k = 0; k < r->f[i].n_gpus; k++) {
            int g = r->f[i].gpus[k];
            if (w && g >= 0 && g < w->n_gpus && w->gpus[g].known)
                s += lost_seconds(&w->gpus[g], r->f[i].from_us, r->f[i].to_us);
        }
        ff->gpu_hours = s / 3600;
    }
    return 0;
}

void diag_member_fill(diag_member *m, const diag_gpu *g, uint64_t from_us, uint64_t to_us)
{
    float *sig[] = {m->util, m->clock, m->power, m->mem};
    const diag_signal which[] = {DS_UTIL, DS_CLOCK_SM, DS_POWER, DS_MEM_USED};
    double width = (double)(to_us > from_us ? to_us - from_us : 1) / DIAG_FLEET_BUCKETS;
    for (int b = 0; b < DIAG_FLEET_BUCKETS; b++)
        m->util[b] = m->clock[b] = m->power[b] = m->throttle[b] = m->mem[b] = NAN;
    for (int k = 0; k < 4; k++) {
        double sum[DIAG_FLEET_BUCKETS] = {0};
        int cnt[DIAG_FLEET_BUCKETS] = {0}, hint = 0;
        const diag_series *s = &g->s[which[k]];
        int busy_only = which[k] == DS_CLOCK_SM || which[k] == DS_POWER;
        for (int i = 0; i < s->n; i++) {
            if (s->t[i] < from_us || s->t[i] >= to_us)
                continue;
            /* clocks and power while busy: an idle moment's clock says nothing of the GPU's pace */
            if (busy_only && !(diag_at(&g->s[DS_UTIL], s->t[i], MAX_GAP_US, &hint) >= MEMBER_BUSY_UTIL))
                continue;
            int b = (int)((double)(s->t[i] - from_us) / width);
            b = b < DIAG_FLEET_BUCKETS ? b : DIAG_FLEET_BUCKETS - 1;
            sum[b] += s->v[i];
            cnt[b]++;
        }
        for (int b = 0; b < DIAG_FLEET_BUCKETS; b++)
            if (cnt[b])
                sig[k][b] = (float)(sum[b] / cnt[b]);
    }
    if (g->s[DS_CER].n == 0)
        return;
    int slow[DIAG_FLEET_BUCKETS] = {0}, cnt[DIAG_FLEET_BUCKETS] = {0}, hint = 0;
    const diag_series *u = &g->s[DS_UTIL];
    for (int i = 0; i < u->n; i++) {
        if (u->t[i] < from_us || u->t[i] >= to_us)
            continue;
        int b = (int)((double)(u->t[i] - from_us) / width);
        b = b < DIAG_FLEET_BUCKETS ? b : DIAG_FLEET_BUCKETS - 1;
        slow[b] += slowed((unsigned)diag_step_at(&g->s[DS_CER], u->t[i], 0, &hint));
        cnt[b]++;
    }
    for (int b = 0; b < DIAG_FLEET_BUCKETS; b++)
        if (cnt[b])
            m->throttle[b] = (float)slow[b] / (float)cnt[b];
}

diag_member *diag_fleet_member(diag_fleet *fl, const char *job, int host, int gpu, const diag_window *w)
{
    int j = 0;
    while (j < fl->njobs && strcmp(fl->jobs[j].id, job) != 0)
        j++;
    if (j == fl->njobs) {
        if (grow((void **)&fl->jobs, fl->njobs, &fl->cap_jobs, sizeof *fl->jobs)) {
            fl->oom = 1;
            return NULL;
        }
        memset(&fl->jobs[j], 0, sizeof fl->jobs[j]);
        snprintf(fl->jobs[j].id, sizeof fl->jobs[j].id, "%s", job);
        fl->njobs++;
    }
    diag_job *jb = &fl->jobs[j];
    for (int i = 0; i < jb->n; i++)
        if (jb->m[i].host == host && jb->m[i].gpu == gpu)
            return &jb->m[i];
    if (jb->n >= DIAG_FLEET_MAX_MEMBERS || grow((void **)&jb->m, jb->n, &jb->cap, sizeof *jb->m)) {
        fl->oom |= jb->n < DIAG_FLEET_MAX_MEMBERS;
        return NULL;
    }
    diag_member *m = &jb->m[jb->n++];
    m->host = host;
    m->gpu = gpu;
    if (w && gpu >= 0 && gpu < w->n_gpus && w->gpus[gpu].known)
        diag_member_fill(m, &w->gpus[gpu], fl->from_us, fl->to_us);
    else
        diag_member_fill(m, &(diag_gpu){0}, fl->from_us, fl->to_us);
    return m;
}

static int by_rank(const void *pa, const void *pb)
{
    const diag_fleet_finding *a = pa, *b = pb;
    if (a->f.severity != b->f.severity)
        return a->f.severity > b->f.severity ? -1 : 1;
    if (a->gpu_hours != b->gpu_hours)
        return a->gpu_hours > b->gpu_hours ? -1 : 1;
    if (a->f.score != b->f.score)
        return a->f.score > b->f.score ? -1 : 1;
    if (a->host != b->host)
        return a->host < b->host ? -1 : 1;
    int ga = a->f.n_gpus ? a->f.gpus[0] : -1, gb = b->f.n_gpus ? b->f.gpus[0] : -1;
    return ga != gb ? (ga < gb ? -1 : 1) : strcmp(a->f.detector, b->f.detector);
}

void diag_fleet_sort(diag_fleet *fl)
{
    if (fl->n > 1)
        qsort(fl->f, (size_t)fl->n, sizeof *fl->f, by_rank);
}

double diag_fleet_gpu_hours(const diag_fleet *fl)
{
    double h = 0;
    for (int i = 0; i < fl->n; i++)
        h += fl->f[i].gpu_hours;
    return h;
}
