/* proc_sort.c - filtering and sorting of the process table (pure, unit tested). */
#include "top_ui.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const proc_col_names[PC_COUNT] = {
    "GPU", "PID", "USER", "CONTAINER", "GPU-MEM", "SM%", "CPU%", "HOST-MEM", "TIME", "COMMAND",
};

int proc_matches(const gpu_proc *p, const char *filter)
{
    if (!filter || !*filter)
        return 1;
    char num[32];
    snprintf(num, sizeof num, "%u", p->pid);
    if (strstr(num, filter))
        return 1;
    snprintf(num, sizeof num, "gpu%d", p->gpu);
    if (strcasecmp(num, filter) == 0)
        return 1;
    const char *texts[] = {p->user, p->container, p->name, p->cmdline};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
        if (strcasestr(texts[i], filter))
            return 1;
    return 0;
}

typedef struct sort_ctx {
    const gpu_proc *p;
    proc_col col;
    int desc;
    uint64_t now_s;
} sort_ctx;

/* A column's number for a process; returns 0 when the process has no value for it. */
static int num_key(const gpu_proc *p, proc_col col, uint64_t now_s, double *v)
{
    switch (col) {
    case PC_GPU: *v = p->gpu; return 1;
    case PC_PID: *v = p->pid; return 1;
    case PC_GPUMEM: *v = p->mem_mib; return p->has_mem;
    case PC_SM: *v = p->sm_util; return p->has_sm;
    case PC_CPU: *v = p->cpu_percent; return p->has_cpu;
    case PC_HOSTMEM: *v = p->rss_mib; return p->has_rss;
    case PC_TIME:
        *v = p->start_time_s && now_s >= p->start_time_s ? (double)(now_s - p->start_time_s) : 0;
        return p->start_time_s != 0;
    default: return 0;
    }
}

static const char *text_key(const gpu_proc *p, proc_col col)
{
    switch (col) {
    case PC_USER: return p->user;
    case PC_CONTAINER: return p->container;
    case PC_CMD: return p->cmdline[0] ? p->cmdline : p->name;
    default: return NULL;
    }
}

static int compare(const void *a, const void *b, void *vctx)
{
    const sort_ctx *c = vctx;
    const gpu_proc *x = &c->p[*(const int *)a], *y = &c->p[*(const int *)b];
    int r = 0;
    const char *tx = text_key(x, c->col);
    if (tx) {
        const char *ty = text_key(y, c->col);
        if (!*tx != !*ty)
            return *tx ? -1 : 1; /* empty last */
        r = strcasecmp(tx, ty);
    } else {
        double vx, vy;
        int hx = num_key(x, c->col, c->now_s, &vx), hy = num_key(y, c->col, c->now_s, &vy);
        if (hx != hy)
            return hx ? -1 : 1; /* missing last */
        if (hx)
            r = (vx > vy) - (vx < vy);
    }
    if (c->desc)
        r = -r;
    if (r)
        return r;
    if (x->gpu != y->gpu)
        return x->gpu - y->gpu;
    return (x->pid > y->pid) - (x->pid < y->pid);
}

int proc_order(const gpu_proc *procs, int n, const char *filter, int gpu, proc_col col, int desc, uint64_t now_s,
               int *order)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        if ((gpu < 0 || procs[i].gpu == gpu) && proc_matches(&procs[i], filter))
            order[k++] = i;
    sort_ctx c = {procs, col, desc, now_s};
    qsort_r(order, (size_t)k, sizeof *order, compare, &c);
    return k;
}
