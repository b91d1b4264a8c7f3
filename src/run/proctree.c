/* proctree.c - the job's process tree from the process table (proctree.h). */
#include "proctree.h"
#include <stdlib.h>
#include <string.h>
#include "util.h"

int proctree_init(proctree *t)
{
    t->t = proc_table_new(NULL, 0);
    t->pids = malloc(PROCTREE_MAX * sizeof *t->pids);
    if (t->t && t->pids)
        return 0;
    proctree_free(t);
    return -1;
}

void proctree_free(proctree *t)
{
    proc_table_free(t->t);
    free(t->pids);
    t->t = NULL;
    t->pids = NULL;
}

int proctree_read(proctree *t, pid_t root, pid_t *pids, int max, run_host_point *out)
{
    memset(out, 0, sizeof *out);
    out->t_us = (int64_t)gw_now_us();
    if (!t->t || proc_table_scan(t->t) < 0 || root <= 0)
        return 0;
    double cpu, rss;
    int n = proc_table_subtree(t->t, (unsigned)root, t->pids, PROCTREE_MAX, &cpu, &rss);
    for (int k = 0; k < n && k < max; k++)
        pids[k] = (pid_t)t->pids[k];
    out->cpu_percent = (float)cpu;
    out->rss_mib = (float)rss;
    out->nprocs = n;
    return n < max ? n : max;
}
