/* procinfo.c - what /proc says about a GPU process: name, command line, user, RSS, start time, CPU use
 * (from the caller's process table, proc_table.h) and who it works for (its container, Kubernetes
 * pod, Slurm job or systemd unit: workload.c). */
#include "procinfo.h"
#include "files.h"
#include "workload.h"
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "util.h"

void procinfo_container_from_cgroup(const char *cgroup_text, char *out, size_t outlen)
{
    workload w;
    workload_from_cgroup(cgroup_text, &w);
    workload_format(&w, out, outlen);
}

/* ---- /proc/<pid> files ---- */

static void user_name(uid_t uid, char *out, size_t outlen)
{
    struct passwd pw, *res = NULL;
    char buf[1024];
    if (getpwuid_r(uid, &pw, buf, sizeof buf, &res) == 0 && res && res->pw_name)
        gw_strlcpy(out, res->pw_name, outlen);
    else
        snprintf(out, outlen, "%u", (unsigned)uid);
}

static void read_status(const char *root, unsigned pid, gpu_proc *p)
{
    char path[320], buf[4096];
    snprintf(path, sizeof path, "%s/%u/status", root, pid);
    if (gw_read_small(path, buf, sizeof buf) <= 0)
        return;
    const char *u = strstr(buf, "\nUid:");
    unsigned uid;
    if (u && sscanf(u + 5, "%u", &uid) == 1) /* real uid first */
        user_name((uid_t)uid, p->user, sizeof p->user);
    const char *rss = strstr(buf, "\nVmRSS:");
    unsigned long long kb;
    if (rss && sscanf(rss + 7, "%llu", &kb) == 1) {
        p->rss_mib = kb / 1024.0;
        p->has_rss = 1;
    }
}

int procinfo_fill(proc_table *t, gpu_proc *p, proc_entry *reading)
{
    const char *root = proc_table_root(t);
    char path[320], buf[4096];
    snprintf(path, sizeof path, "%s/%u/comm", root, p->pid);
    ssize_t n = p->pid ? gw_read_small(path, buf, sizeof buf) : -1;
    if (n < 0)
        return -1; /* not visible here (another pid namespace) or gone: keep NVML's view */
    while (n > 0 && buf[n - 1] == '\n')
        buf[--n] = 0;
    if (n > 0)
        gw_strlcpy(p->name, buf, sizeof p->name);
    char cmd[sizeof p->cmdline];
    if (proc_read_cmdline(root, p->pid, cmd, sizeof cmd) == 0 && cmd[0])
        gw_strlcpy(p->cmdline, cmd, sizeof p->cmdline); /* a kernel thread or zombie: keep what there is */
    read_status(root, p->pid, p);
    proc_entry e;
    if (proc_table_read(t, p->pid, &e) == 0) {
        p->start_time_s = e.start_time_s;
        p->cpu_percent = e.cpu_percent;
        p->has_cpu = 1;
        if (reading)
            *reading = e;
    }
    workload_roots roots = {.proc = root};
    workload w;
    if (workload_read(&roots, p->pid, &w) != WL_NONE)
        workload_format(&w, p->container, sizeof p->container);
    return 0;
}
