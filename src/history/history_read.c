/* history_read.c - a recorded range handed back as samples, process lists and events (see
 * history_read.h). The raw series of a GPU are read with the range query and merged back into
 * samples by time: every metric of one sampling round carries the round's time. */
#include "history_read.h"
#include "query.h"
#include "store.h"
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int readable(metric_id m)
{
    return !metric_is_string(m) && !(catalog_get(m)->flags & MF_BIT);
}

static void gpu_identity(store *st, int gpu, gpu_info *info)
{
    memset(info, 0, sizeof *info);
    info->index = gpu;
    sqlite3_stmt *q = NULL;
    if (sqlite3_prepare_v2(store_db(st), "SELECT name, uuid, pci_bus_id FROM gpus WHERE idx=?", -1, &q, NULL) !=
        SQLITE_OK)
        return;
    sqlite3_bind_int(q, 1, gpu);
    if (sqlite3_step(q) == SQLITE_ROW) {
        static const metric_id ids[] = {M_NAME, M_UUID, M_PCI_BUS_ID};
        for (int i = 0; i < 3; i++) {
            const char *v = (const char *)sqlite3_column_text(q, i);
            if (v && *v) {
                snprintf(info->str[ids[i]], GW_STR_LEN, "%s", v);
                mset_add(&info->str_present, ids[i]);
            }
        }
    }
    sqlite3_finalize(q);
}

/* One GPU's samples: its series merged by time. Returns how many samples, or -1. */
static long read_samples(store *st, int gpu, int64_t from, int64_t to, const history_reader *r, char *err, size_t n)
{
    metric_id ids[M_COUNT];
    int nids = 0;
    for (int m = M_STR_END; m < M_COUNT; m++)
        if (readable((metric_id)m))
            ids[nids++] = (metric_id)m;
    unsigned char sel[HQ_MAX_GPUS] = {0};
    sel[gpu] = 1;
    hq_request rq = {.metrics = ids, .nmetrics = nids, .gpus = sel, .from_us = from, .to_us = to, .source = HQ_RAW};
    hq_result res;
    if (hq_run(st, &rq, &res, err, n) != 0)
        return -1;
    size_t *pos = calloc(res.n + 1, sizeof *pos);
    gpu_sample *s = malloc(sizeof *s);
    long count = 0;
    if (!pos || !s) {
        snprintf(err, n, "out of memory");
        count = -1;
    }
    gpu_info info;
    gpu_identity(st, gpu, &info);
    while (count >= 0) {
        int64_t t = INT64_MAX;
        for (size_t i = 0; i < res.n; i++)
            if (pos[i] < res.s[i].n && res.s[i].t[pos[i]] < t)
                t = res.s[i].t[pos[i]];
        if (t == INT64_MAX)
            break;
        memset(s, 0, sizeof *s);
        s->t_us = (uint64_t)t;
        for (size_t i = 0; i < res.n; i++)
            if (pos[i] < res.s[i].n && res.s[i].t[pos[i]] == t)
                sample_set(s, res.s[i].metric, res.s[i].v[pos[i]++]);
        r->on_sample(r->ctx, gpu, &info, s);
        count++;
    }
    free(pos);
    free(s);
    hq_free(&res);
    return count;
}

typedef struct proc_point {
    int64_t t;
    int proc;
    double mem, sm;
    int has_mem, has_sm;
} proc_point;

static int by_time(const void *a, const void *b)
{
    const proc_point *x = a, *y = b;
    return (x->t > y->t) - (x->t < y->t);
}

/* One GPU's processes: each recorded pid's memory and SM series, regrouped into the lists of each
 * sampling round. Returns 0, or -1. */
static int read_processes(store *st, int gpu, int64_t from, int64_t to, const history_reader *r, char *err, size_t n)
{
    sqlite3_stmt *q = NULL;
    if (sqlite3_prepare_v2(store_db(st),
                           "SELECT pid, max(name), max(command), max(user), max(container) FROM procs"
                           " WHERE gpu=?1 AND last_seen>=?2 AND first_seen<=?3 GROUP BY pid ORDER BY pid",
                           -1, &q, NULL) != SQLITE_OK) {
        snprintf(err, n, "%s", sqlite3_errmsg(store_db(st)));
        return -1;
    }
    sqlite3_bind_int(q, 1, gpu);
    sqlite3_bind_int64(q, 2, from);
    sqlite3_bind_int64(q, 3, to);
    gpu_proc *procs = NULL;
    proc_point *pts = NULL;
    size_t npts = 0, cap = 0;
    int nprocs = 0, rc = 0;
    while (rc == 0 && sqlite3_step(q) == SQLITE_ROW) {
        gpu_proc *grown = realloc(procs, (size_t)(nprocs + 1) * sizeof *grown);
        if (!grown) {
            rc = -1;
            break;
        }
        procs = grown;
        gpu_proc *p = &procs[nprocs];
        memset(p, 0, sizeof *p);
        p->gpu = gpu;
        p->pid = (unsigned)sqlite3_column_int64(q, 0);
        p->type = PROC_COMPUTE;
        char *fields[] = {p->name, p->cmdline, p->user, p->container};
        size_t sizes[] = {sizeof p->name, sizeof p->cmdline, sizeof p->user, sizeof p->container};
        for (int i = 0; i < 4; i++) {
            const char *v = (const char *)sqlite3_column_text(q, 1 + i);
            snprintf(fields[i], sizes[i], "%s", v ? v : "");
        }
        metric_id ids[2] = {M_MEM_USED, M_UTIL_GPU};
        unsigned char sel[HQ_MAX_GPUS] = {0};
        sel[gpu] = 1;
        hq_request rq = {
            .metrics = ids, .nmetrics = 2, .gpus = sel, .pid = p->pid, .from_us = from, .to_us = to, .source = HQ_RAW};
        hq_result res;
        if (hq_run(st, &rq, &res, err, n) != 0) {
            rc = -1;
            break;
        }
        for (size_t i = 0; rc == 0 && i < res.n; i++)
            for (size_t k = 0; k < res.s[i].n; k++) {
                if (npts == cap) {
                    cap = cap ? cap * 2 : 1024;
                    proc_point *more = realloc(pts, cap * sizeof *more);
                    if (!more) {
                        rc = -1;
                        break;
                    }
                    pts = more;
                }
                int mem = res.s[i].metric == M_MEM_USED;
                pts[npts++] =
                    (proc_point){res.s[i].t[k], nprocs, mem ? res.s[i].v[k] : 0, mem ? 0 : res.s[i].v[k], mem, !mem};
            }
        hq_free(&res);
        nprocs++;
    }
    sqlite3_finalize(q);
    gpu_proc *list = rc == 0 ? malloc((size_t)(nprocs ? nprocs : 1) * sizeof *list) : NULL;
    if (rc == 0 && !list)
        rc = -1;
    if (npts > 0) /* pts is NULL when no process had a point in the range */
        qsort(pts, npts, sizeof *pts, by_time);
    for (size_t i = 0; rc == 0 && i < npts;) {
        int64_t t = pts[i].t;
        int k = 0;
        for (; i < npts && pts[i].t == t; i++) {
            int at = 0;
            while (at < k && list[at].pid != procs[pts[i].proc].pid)
                at++;
            if (at == k)
                list[k++] = procs[pts[i].proc];
            if (pts[i].has_mem) {
                list[at].mem_mib = pts[i].mem;
                list[at].has_mem = 1;
            }
            if (pts[i].has_sm) {
                list[at].sm_util = pts[i].sm;
                list[at].has_sm = 1;
            }
        }
        r->on_processes(r->ctx, gpu, (uint64_t)t, list, k);
    }
    if (rc != 0 && !err[0])
        snprintf(err, n, "out of memory");
    free(list);
    free(pts);
    free(procs);
    return rc;
}

static int read_events(store *st, int64_t from, int64_t to, const unsigned char *sel, const history_reader *r)
{
    sqlite3_stmt *q = NULL;
    if (sqlite3_prepare_v2(store_db(st), "SELECT t, gpu, kind, detail FROM events WHERE t>=?1 AND t<=?2 ORDER BY t", -1,
                           &q, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_int64(q, 1, from);
    sqlite3_bind_int64(q, 2, to);
    while (sqlite3_step(q) == SQLITE_ROW) {
        int gpu = sqlite3_column_int(q, 1);
        if (sel && gpu >= 0 && (gpu >= HQ_MAX_GPUS || !sel[gpu]))
            continue;
        const char *kind = (const char *)sqlite3_column_text(q, 2), *detail = (const char *)sqlite3_column_text(q, 3);
        gw_event ev;
        if (kind && history_event_parse((uint64_t)sqlite3_column_int64(q, 0), gpu, kind, detail, &ev) == 0)
            r->on_event(r->ctx, &ev);
    }
    sqlite3_finalize(q);
    return 0;
}

int history_newest_sample_us(const char *path, int64_t *t_us, char *err, size_t n)
{
    *t_us = 0;
    err[0] = 0;
    if (access(path, F_OK) != 0 && errno == ENOENT)
        return 0;
    store *st = store_open(path, 1, err, n);
    if (!st)
        return -1;
    *t_us = store_newest_sample_us(st);
    store_close(st);
    return 0;
}

long history_read_range(const char *path, int64_t from_us, int64_t to_us, const unsigned char *sel,
                        const history_reader *r, char *err, size_t n)
{
    err[0] = 0;
    store *st = store_open(path, 1, err, n);
    if (!st)
        return -1;
    unsigned char recorded[HQ_MAX_GPUS] = {0};
    if (hq_gpus(st, recorded) < 0) /* the list is damaged: every index, the absent ones give nothing */
        memset(recorded, 1, sizeof recorded);
    long total = 0;
    for (int g = 0; g < HQ_MAX_GPUS && total >= 0; g++) {
        if (!recorded[g] || (sel && !sel[g]))
            continue;
        long got = r->on_sample ? read_samples(st, g, from_us, to_us, r, err, n) : 0;
        if (got < 0 || (r->on_processes && read_processes(st, g, from_us, to_us, r, err, n) != 0))
            total = -1;
        else
            total += got;
    }
    if (total >= 0 && r->on_event && read_events(st, from_us, to_us, sel, r) != 0) {
        snprintf(err, n, "%s", sqlite3_errmsg(store_db(st)));
        total = -1;
    }
    store_close(st);
    return total;
}
