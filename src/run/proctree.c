/* proctree.c - the job's process tree from /proc (proctree.h). */
#include "proctree.h"
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "proc_stat.h"
#include "util.h"

typedef struct pstat {
    pid_t pid, ppid;
    unsigned long long ticks;
    long rss_pages;
} pstat;

static int read_stat(pid_t pid, pstat *out)
{
    proc_stat st;
    if (proc_stat_read(NULL, (unsigned)pid, &st) != 0)
        return -1;
    out->pid = pid;
    out->ppid = (pid_t)st.ppid;
    out->ticks = st.utime + st.stime;
    out->rss_pages = (long)st.rss_pages;
    return 0;
}

void proctree_init(proctree *t)
{
    memset(t, 0, sizeof *t);
}

int proctree_read(proctree *t, pid_t root, pid_t *pids, int max, run_host_point *out)
{
    static pstat all[32768];
    int nall = 0;
    DIR *d = opendir("/proc");
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) && nall < (int)(sizeof all / sizeof all[0])) {
            char *end;
            long pid = strtol(e->d_name, &end, 10);
            if (*end || pid <= 0)
                continue;
            if (read_stat((pid_t)pid, &all[nall]) == 0)
                nall++;
        }
        closedir(d);
    }
    /* breadth first from root */
    int n = 0;
    int in[PROCTREE_MAX];
    for (int i = 0; i < nall && n < PROCTREE_MAX; i++)
        if (all[i].pid == root)
            in[n++] = i;
    for (int k = 0; k < n; k++)
        for (int i = 0; i < nall && n < PROCTREE_MAX; i++)
            if (all[i].ppid == all[in[k]].pid)
                in[n++] = i;
    int64_t now = (int64_t)gw_mono_us();
    double hz = (double)sysconf(_SC_CLK_TCK), page_mib = (double)sysconf(_SC_PAGESIZE) / 1048576.0;
    double ticks = 0, rss = 0;
    pid_t new_pid[PROCTREE_MAX];
    unsigned long long new_ticks[PROCTREE_MAX];
    for (int k = 0; k < n; k++) {
        const pstat *p = &all[in[k]];
        unsigned long long before = 0;
        for (int j = 0; j < t->nprev; j++)
            if (t->prev_pid[j] == p->pid) {
                before = t->prev_ticks[j];
                break;
            }
        if (p->ticks > before)
            ticks += (double)(p->ticks - before);
        rss += (double)p->rss_pages * page_mib;
        new_pid[k] = p->pid;
        new_ticks[k] = p->ticks;
        if (k < max)
            pids[k] = p->pid;
    }
    memset(out, 0, sizeof *out);
    out->t_us = (int64_t)gw_now_us();
    double dt = t->prev_us ? (double)(now - t->prev_us) / 1e6 : 0;
    out->cpu_percent = dt > 0 ? (float)(100.0 * ticks / hz / dt) : 0;
    out->rss_mib = (float)rss;
    out->nprocs = n;
    memcpy(t->prev_pid, new_pid, (size_t)n * sizeof *new_pid);
    memcpy(t->prev_ticks, new_ticks, (size_t)n * sizeof *new_ticks);
    t->nprev = n;
    t->prev_us = now;
    return n < max ? n : max;
}
