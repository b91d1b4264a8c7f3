/* procfs.c - what top reads from /proc itself (see top_model.h) beside a stat line
 * (core/proc_stat.h): a stat file kept open, a process's command line, the host's CPU and memory
 * use, and a process's family tree. Every reader takes the /proc root as a parameter so that
 * tests can give a fake one. */
#include "files.h"
#include "top_model.h"
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int procfs_open_stat(const char *root, unsigned pid)
{
    char path[96];
    snprintf(path, sizeof path, "%s/%u/stat", root, pid);
    return pid ? open(path, O_RDONLY | O_CLOEXEC) : -1;
}

int procfs_pread_stat(int fd, proc_stat *out)
{
    char buf[1024];
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    if (n <= 0)
        return -1; /* the process is gone (ESRCH), even if its pid was reused since */
    buf[n] = 0;
    return proc_stat_parse(buf, out);
}

int procfs_read_cmdline(const char *root, unsigned pid, char *out, size_t n)
{
    char path[96];
    snprintf(path, sizeof path, "%s/%u/cmdline", root, pid);
    ssize_t len = n ? gw_read_small(path, out, n) : -1;
    if (len < 0)
        return -1;
    for (ssize_t i = 0; i < len; i++)
        if (out[i] == 0)
            out[i] = ' ';
    while (len > 0 && out[len - 1] == ' ')
        out[--len] = 0;
    return 0;
}

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

typedef struct pp {
    unsigned pid, ppid;
} pp;

static int by_pid(const void *a, const void *b)
{
    unsigned x = ((const pp *)a)->pid, y = ((const pp *)b)->pid;
    return (x > y) - (x < y);
}

/* Every visible process's pid and parent, sorted by pid. */
static int all_parents(const char *root, pp **out)
{
    DIR *d = opendir(root);
    int n = 0, cap = 0;
    *out = NULL;
    if (!d)
        return 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!isdigit((unsigned char)e->d_name[0]))
            continue;
        proc_stat st;
        unsigned pid = (unsigned)strtoul(e->d_name, NULL, 10);
        if (proc_stat_read(root, pid, &st) != 0)
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 256;
            pp *p = realloc(*out, (size_t)cap * sizeof *p);
            if (!p)
                break;
            *out = p;
        }
        (*out)[n++] = (pp){pid, st.ppid};
    }
    closedir(d);
    if (n)
        qsort(*out, (size_t)n, sizeof **out, by_pid);
    return n;
}

static void node_fill(const char *root, proc_node *nd, unsigned pid, unsigned ppid, int depth)
{
    memset(nd, 0, sizeof *nd);
    nd->pid = pid;
    nd->ppid = ppid;
    nd->depth = depth;
    if (procfs_read_cmdline(root, pid, nd->cmd, sizeof nd->cmd) != 0 || !nd->cmd[0]) {
        proc_stat st; /* a kernel thread or a zombie: its name in brackets, as ps shows it */
        if (proc_stat_read(root, pid, &st) == 0)
            snprintf(nd->cmd, sizeof nd->cmd, "[%s]", st.comm);
    }
}

/* Appends pid's descendants depth first (children by pid). */
static void add_children(const char *root, const pp *all, int nall, unsigned pid, int depth, proc_node *out, int *n,
                         int max)
{
    for (int i = 0; i < nall && *n < max; i++) {
        if (all[i].ppid != pid || all[i].pid == pid)
            continue;
        node_fill(root, &out[(*n)++], all[i].pid, pid, depth);
        if (depth < 12)
            add_children(root, all, nall, all[i].pid, depth + 1, out, n, max);
    }
}

int procfs_tree(const char *root, unsigned pid, proc_node *out, int max)
{
    proc_stat st;
    if (max < 1 || proc_stat_read(root, pid, &st) != 0)
        return 0;
    unsigned chain[16];
    int nchain = 0;
    for (unsigned p = st.ppid; p && nchain < (int)(sizeof chain / sizeof chain[0]);) {
        proc_stat ps;
        if (proc_stat_read(root, p, &ps) != 0)
            break;
        chain[nchain++] = p;
        p = ps.ppid;
    }
    int n = 0, start = nchain - 1 < max - 2 ? nchain - 1 : max - 2; /* the nearest ancestors when max is small */
    for (int i = start; i >= 0; i--)
        node_fill(root, &out[n++], chain[i], i + 1 < nchain ? chain[i + 1] : 0, start - i);
    int depth = n;
    node_fill(root, &out[n], pid, st.ppid, depth);
    out[n++].selected = 1;
    pp *all;
    int nall = all_parents(root, &all);
    add_children(root, all, nall, pid, depth + 1, out, &n, max);
    free(all);
    return n;
}
