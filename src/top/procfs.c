/* procfs.c - what top reads from /proc beside its process table (core/proc_table.h): the host's CPU
 * and memory use, and a process's family tree (from a process table of its own). Every reader
 * takes the /proc root as a parameter so that tests can give a fake one. */
#include "files.h"
#include "top_model.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int procfs_parse_cpu(const char *text, host_ticks *out)
{
    unsigned long long v[10] = {0};
    int n = sscanf(text, "cpu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4],
                   &v[5], &v[6], &v[7], &v[8], &v[9]);
    if (n < 4)
        return -1;
    /* user nice system idle iowait irq softirq steal guest guest_nice; guest time is already in user. */
    unsigned long long idle = v[3] + v[4], total = 0;
    for (int i = 0; i < n && i < 8; i++)
        total += v[i];
    out->total = total;
    out->busy = total - idle;
    return 0;
}

double procfs_cpu_pct(const host_ticks *prev, const host_ticks *cur)
{
    if (cur->total <= prev->total || cur->busy < prev->busy)
        return -1;
    double pct = 100.0 * (double)(cur->busy - prev->busy) / (double)(cur->total - prev->total);
    return pct > 100 ? 100 : pct;
}

int procfs_parse_meminfo(const char *text, double *total_mib, double *avail_mib)
{
    const char *t = strstr(text, "MemTotal:"), *a = strstr(text, "MemAvailable:");
    unsigned long long tk, ak;
    if (!t || !a || sscanf(t + 9, "%llu", &tk) != 1 || sscanf(a + 13, "%llu", &ak) != 1 || tk == 0)
        return -1;
    *total_mib = tk / 1024.0;
    *avail_mib = ak / 1024.0;
    return 0;
}

int procfs_read_host(const char *root, host_ticks *cpu, double *total_mib, double *avail_mib)
{
    char path[96], buf[512];
    int bad = 0;
    /* The first line is the sum of all CPUs; the rest of the file is not needed. */
    snprintf(path, sizeof path, "%s/stat", root);
    if (gw_read_small(path, buf, 256) <= 0 || procfs_parse_cpu(buf, cpu) != 0)
        bad |= 1;
    snprintf(path, sizeof path, "%s/meminfo", root);
    if (gw_read_small(path, buf, sizeof buf) <= 0 || procfs_parse_meminfo(buf, total_mib, avail_mib) != 0)
        bad |= 2;
    return bad;
}

/* ---- family tree ---- */

static void node_fill(const char *root, proc_node *nd, const proc_entry *e, int depth)
{
    memset(nd, 0, sizeof *nd);
    nd->pid = e->pid;
    nd->ppid = e->ppid;
    nd->depth = depth;
    if (proc_read_cmdline(root, e->pid, nd->cmd, sizeof nd->cmd) != 0 || !nd->cmd[0])
        snprintf(nd->cmd, sizeof nd->cmd, "[%s]", e->comm); /* a kernel thread or a zombie, as ps shows it */
}

static int by_pid(const void *a, const void *b)
{
    unsigned x = ((const proc_entry *)a)->pid, y = ((const proc_entry *)b)->pid;
    return (x > y) - (x < y);
}

/* The entry of pid in all (sorted by pid), or NULL. */
static const proc_entry *entry_of(const proc_entry *all, int n, unsigned pid)
{
    proc_entry key = {.pid = pid};
    return n > 0 ? bsearch(&key, all, (size_t)n, sizeof *all, by_pid) : NULL;
}

/* Appends pid's descendants depth first (children by pid). */
static void add_children(const char *root, const proc_entry *all, int nall, unsigned pid, int depth, proc_node *out,
                         int *n, int max)
{
    for (int i = 0; i < nall && *n < max; i++) {
        if (all[i].ppid != pid || all[i].pid == pid)
            continue;
        node_fill(root, &out[(*n)++], &all[i], depth);
        if (depth < 12)
            add_children(root, all, nall, all[i].pid, depth + 1, out, n, max);
    }
}

/* The family of pid among the processes all (sorted by pid). */
static int family(const char *root, const proc_entry *all, int nall, unsigned pid, proc_node *out, int max)
{
    const proc_entry *self = entry_of(all, nall, pid);
    if (max < 1 || !self)
        return 0;
    const proc_entry *chain[16];
    int nchain = 0;
    for (const proc_entry *p = entry_of(all, nall, self->ppid); p && nchain < (int)(sizeof chain / sizeof chain[0]);
         p = entry_of(all, nall, p->ppid))
        chain[nchain++] = p;
    int n = 0, start = nchain - 1 < max - 2 ? nchain - 1 : max - 2; /* the nearest ancestors when max is small */
    for (int i = start; i >= 0; i--)
        node_fill(root, &out[n++], chain[i], start - i);
    int depth = n;
    node_fill(root, &out[n], self, depth);
    out[n++].selected = 1;
    add_children(root, all, nall, pid, depth + 1, out, &n, max);
    return n;
}

int procfs_tree(const char *root, unsigned pid, proc_node *out, int max)
{
    proc_table *t = proc_table_new(root, 0);
    int nall = t ? proc_table_scan(t) : -1;
    proc_entry *all = nall > 0 ? malloc((size_t)nall * sizeof *all) : NULL;
    int n = 0;
    if (all) {
        proc_table_list(t, all, nall); /* the table is this function's: it holds nall */
        n = family(root, all, nall, pid, out, max);
    }
    free(all);
    proc_table_free(t);
    return n;
}
