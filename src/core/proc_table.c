/* proc_table.c - the host's processes from /proc (see proc_table.h): a table sorted by pid, each
 * entry with its latest reading; CPU use computed here alone. */
#include "proc_table.h"
#include "files.h"
#include "proc_stat.h"
#include "util.h"
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PRUNE_EVERY_US 60000000u

typedef struct slot {
    proc_entry e;
    int fd;   /* its stat file kept open, or -1 */
    int seen; /* in the scan going on */
} slot;

struct proc_table {
    pthread_mutex_t mu;
    char root[256];
    int keep_open, nfds;
    slot *v; /* sorted by pid */
    int n, cap;
    double hz, page_mib;
    uint64_t btime_s; /* boot time, unix seconds (0: unknown) */
    uint64_t pruned_us;
};

static uint64_t boot_time(const char *root)
{
    char path[300], buf[8192];
    snprintf(path, sizeof path, "%s/stat", root);
    if (gw_read_small(path, buf, sizeof buf) <= 0)
        return 0;
    const char *b = strstr(buf, "\nbtime ");
    unsigned long long v;
    return b && sscanf(b + 7, "%llu", &v) == 1 ? v : 0;
}

proc_table *proc_table_new(const char *root, int keep_open)
{
    proc_table *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    gw_strlcpy(t->root, root ? root : "/proc", sizeof t->root);
    t->keep_open = keep_open;
    long hz = sysconf(_SC_CLK_TCK), page = sysconf(_SC_PAGESIZE);
    t->hz = hz > 0 ? (double)hz : 100;
    t->page_mib = (double)(page > 0 ? page : 4096) / 1048576.0;
    t->btime_s = boot_time(t->root);
    t->pruned_us = gw_mono_us();
    pthread_mutex_init(&t->mu, NULL);
    return t;
}

static void close_slot(proc_table *t, slot *s)
{
    if (s->fd >= 0) {
        close(s->fd);
        t->nfds--;
    }
    s->fd = -1;
}

void proc_table_free(proc_table *t)
{
    if (!t)
        return;
    for (int i = 0; i < t->n; i++)
        close_slot(t, &t->v[i]);
    free(t->v);
    pthread_mutex_destroy(&t->mu);
    free(t);
}

const char *proc_table_root(const proc_table *t)
{
    return t->root;
}

/* The slot of pid, or where it would go (*at). */
static slot *find(proc_table *t, unsigned pid, int *at)
{
    int lo = 0, hi = t->n - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (t->v[mid].e.pid == pid) {
            *at = mid;
            return &t->v[mid];
        }
        if (t->v[mid].e.pid < pid)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    *at = lo;
    return NULL;
}

/* A new slot for pid at index at; NULL when out of memory (the reading is then not kept). */
static slot *insert(proc_table *t, unsigned pid, int at)
{
    if (t->n == t->cap) {
        int cap = t->cap ? t->cap * 2 : 64;
        slot *v = realloc(t->v, (size_t)cap * sizeof *v);
        if (!v)
            return NULL;
        t->v = v;
        t->cap = cap;
    }
    memmove(&t->v[at + 1], &t->v[at], (size_t)(t->n - at) * sizeof *t->v);
    t->n++;
    slot *s = &t->v[at];
    memset(s, 0, sizeof *s);
    s->e.pid = pid;
    s->fd = -1;
    return s;
}

static void drop(proc_table *t, int at)
{
    close_slot(t, &t->v[at]);
    memmove(&t->v[at], &t->v[at + 1], (size_t)(t->n - at - 1) * sizeof *t->v);
    t->n--;
}

/* The one CPU computation: the ticks since its previous reading over the time between them; at its
 * first reading (or of another process that reused its pid), since it started. */
static void take(proc_table *t, proc_entry *e, const proc_stat *st, uint64_t now_us)
{
    unsigned long long ticks = st->utime + st->stime;
    int same = e->read_us && e->start_ticks == st->start_ticks && now_us > e->read_us && ticks >= e->cpu_ticks;
    if (same) {
        e->cpu_percent = (double)(ticks - e->cpu_ticks) / t->hz / ((double)(now_us - e->read_us) / 1e6) * 100.0;
    } else {
        double age =
            t->btime_s ? (double)gw_now_us() / 1e6 - ((double)t->btime_s + (double)st->start_ticks / t->hz) : 0;
        e->cpu_percent = age > 0 ? (double)ticks / t->hz / age * 100.0 : 0;
    }
    e->ppid = st->ppid;
    gw_strlcpy(e->comm, st->comm, sizeof e->comm);
    e->start_ticks = st->start_ticks;
    e->start_time_s = t->btime_s ? t->btime_s + (uint64_t)((double)st->start_ticks / t->hz) : 0;
    e->cpu_ticks = ticks;
    e->rss_mib = st->rss_pages >= 0 ? (double)st->rss_pages * t->page_mib : -1;
    e->read_us = now_us;
}

static int pread_stat(int fd, proc_stat *out)
{
    char buf[1024];
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    if (n <= 0)
        return -1; /* the process is gone (ESRCH), even if its pid was reused since */
    buf[n] = 0;
    return proc_stat_parse(buf, out);
}

/* Reads pid's stat: through its kept file, else by path (keeping the file open when asked to). */
static int read_stat(proc_table *t, slot *s, unsigned pid, int keep, proc_stat *st)
{
    if (s && s->fd >= 0) {
        if (pread_stat(s->fd, st) == 0)
            return 0;
        close_slot(t, s); /* that process is gone; its pid may belong to another now */
    }
    if (keep && t->nfds < PROC_TABLE_MAX_FDS && s) {
        char path[320];
        snprintf(path, sizeof path, "%s/%u/stat", t->root, pid);
        int fd = pid ? open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW) : -1;
        if (fd >= 0 && pread_stat(fd, st) == 0) {
            s->fd = fd;
            t->nfds++;
            return 0;
        }
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return proc_stat_read(t->root, pid, st);
}

/* Forgets the processes not read for PROC_TABLE_FORGET_US (checked once a minute). */
static void prune(proc_table *t, uint64_t now_us)
{
    if (now_us - t->pruned_us < PRUNE_EVERY_US)
        return;
    t->pruned_us = now_us;
    for (int i = t->n - 1; i >= 0; i--)
        if (now_us - t->v[i].e.read_us > PROC_TABLE_FORGET_US)
            drop(t, i);
}

int proc_table_read(proc_table *t, unsigned pid, proc_entry *out)
{
    pthread_mutex_lock(&t->mu);
    uint64_t now = gw_mono_us();
    prune(t, now);
    int at;
    slot *s = find(t, pid, &at);
    if (!s)
        s = insert(t, pid, at);
    proc_stat st;
    if (!pid || read_stat(t, s, pid, t->keep_open, &st) != 0) {
        if (s && find(t, pid, &at))
            drop(t, at);
        pthread_mutex_unlock(&t->mu);
        return -1;
    }
    proc_entry e = s ? s->e : (proc_entry){.pid = pid};
    take(t, &e, &st, now);
    if (s)
        s->e = e;
    *out = e;
    pthread_mutex_unlock(&t->mu);
    return 0;
}

void proc_table_forget(proc_table *t, unsigned pid)
{
    pthread_mutex_lock(&t->mu);
    int at;
    if (find(t, pid, &at))
        drop(t, at);
    pthread_mutex_unlock(&t->mu);
}

int proc_table_scan(proc_table *t)
{
    DIR *d = opendir(t->root);
    if (!d)
        return -1;
    pthread_mutex_lock(&t->mu);
    uint64_t now = gw_mono_us();
    for (int i = 0; i < t->n; i++)
        t->v[i].seen = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        char *end;
        unsigned long pid = strtoul(de->d_name, &end, 10);
        if (*end || pid == 0 || pid > 0xffffffffu || de->d_name[0] < '1' || de->d_name[0] > '9')
            continue;
        int at;
        slot *s = find(t, (unsigned)pid, &at);
        proc_stat st;
        if (read_stat(t, s, (unsigned)pid, 0, &st) != 0)
            continue;
        if (!s && !(s = insert(t, (unsigned)pid, at)))
            break; /* out of memory: the processes read so far */
        take(t, &s->e, &st, now);
        s->seen = 1;
    }
    closedir(d);
    for (int i = t->n - 1; i >= 0; i--)
        if (!t->v[i].seen)
            drop(t, i);
    int n = t->n;
    pthread_mutex_unlock(&t->mu);
    return n;
}

int proc_table_subtree(proc_table *t, unsigned pid, unsigned *out, int max, double *cpu_percent, double *rss_mib)
{
    double cpu = 0, rss = 0;
    int n = 0;
    pthread_mutex_lock(&t->mu);
    int at;
    if (max > 0 && find(t, pid, &at))
        out[n++] = pid;
    for (int k = 0; k < n; k++) /* breadth first: each one's children, by pid */
        for (int i = 0; i < t->n && n < max; i++)
            if (t->v[i].e.ppid == out[k] && t->v[i].e.pid != out[k])
                out[n++] = t->v[i].e.pid;
    for (int k = 0; k < n; k++) {
        const proc_entry *e = &find(t, out[k], &at)->e;
        cpu += e->cpu_percent;
        rss += e->rss_mib > 0 ? e->rss_mib : 0;
    }
    pthread_mutex_unlock(&t->mu);
    if (cpu_percent)
        *cpu_percent = cpu;
    if (rss_mib)
        *rss_mib = rss;
    return n;
}

int proc_table_list(proc_table *t, proc_entry *out, int max)
{
    pthread_mutex_lock(&t->mu);
    for (int i = 0; i < t->n && i < max; i++)
        out[i] = t->v[i].e;
    int n = t->n;
    pthread_mutex_unlock(&t->mu);
    return n;
}

int proc_read_cmdline(const char *root, unsigned pid, char *out, size_t n)
{
    char path[320];
    snprintf(path, sizeof path, "%s/%u/cmdline", root ? root : "/proc", pid);
    ssize_t len = n && pid ? gw_read_small(path, out, n) : -1;
    if (len < 0)
        return -1;
    for (ssize_t i = 0; i < len; i++)
        if (out[i] == 0)
            out[i] = ' ';
    while (len > 0 && out[len - 1] == ' ')
        out[--len] = 0;
    return 0;
}
