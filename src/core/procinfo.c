/* procinfo.c - what /proc says about a GPU process: name, command line, user, RSS, start time, CPU use
 * and who it works for (its container, Kubernetes pod, Slurm job or systemd unit: workload.c).
 * CPU percent needs two readings: a small pid -> (CPU ticks, time) table, static here and guarded by a
 * mutex, remembers the previous one (the first reading gives the lifetime average, as ps does). */
#include "procinfo.h"
#include "files.h"
#include "proc_stat.h"
#include "workload.h"
#include <fcntl.h>
#include <pthread.h>
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

static void read_cmdline(unsigned pid, gpu_proc *p)
{
    char path[64], buf[sizeof p->cmdline];
    snprintf(path, sizeof path, "/proc/%u/cmdline", pid);
    ssize_t n = gw_read_small(path, buf, sizeof buf);
    if (n <= 0)
        return; /* kernel thread or zombie: keep what there is */
    for (ssize_t i = 0; i < n; i++)
        if (buf[i] == 0)
            buf[i] = ' ';
    while (n > 0 && buf[n - 1] == ' ')
        buf[--n] = 0;
    gw_strlcpy(p->cmdline, buf, sizeof p->cmdline);
}

static void user_name(uid_t uid, char *out, size_t outlen)
{
    struct passwd pw, *res = NULL;
    char buf[1024];
    if (getpwuid_r(uid, &pw, buf, sizeof buf, &res) == 0 && res && res->pw_name)
        gw_strlcpy(out, res->pw_name, outlen);
    else
        snprintf(out, outlen, "%u", (unsigned)uid);
}

static void read_status(unsigned pid, gpu_proc *p)
{
    char path[64], buf[4096];
    snprintf(path, sizeof path, "/proc/%u/status", pid);
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

static uint64_t boot_time_s(void)
{
    static uint64_t btime; /* constant while the machine is up */
    if (btime)
        return btime;
    char buf[8192];
    if (gw_read_small("/proc/stat", buf, sizeof buf) <= 0)
        return 0;
    const char *b = strstr(buf, "\nbtime ");
    unsigned long long v;
    if (b && sscanf(b + 7, "%llu", &v) == 1)
        btime = v;
    return btime;
}

/* ---- CPU percent between two readings ---- */

#define CPU_SLOTS 256

static struct cpu_slot {
    unsigned pid;
    unsigned long long start_ticks; /* tells a reused pid apart */
    unsigned long long ticks;       /* utime + stime */
    uint64_t t_us;                  /* monotonic */
} cpu_slots[CPU_SLOTS];
static pthread_mutex_t cpu_lock = PTHREAD_MUTEX_INITIALIZER;

/* CPU percent since this pid's previous reading; the first reading: since the process started. */
static double cpu_percent(unsigned pid, unsigned long long start, unsigned long long ticks, double hz, uint64_t btime)
{
    uint64_t now = gw_mono_us();
    double pct;
    pthread_mutex_lock(&cpu_lock);
    struct cpu_slot *s = &cpu_slots[pid % CPU_SLOTS];
    if (s->pid == pid && s->start_ticks == start && now > s->t_us && ticks >= s->ticks) {
        pct = (ticks - s->ticks) / hz / ((now - s->t_us) / 1e6) * 100.0;
    } else {
        double age = btime ? (double)gw_now_us() / 1e6 - (btime + start / hz) : 0;
        pct = age > 0 ? ticks / hz / age * 100.0 : 0;
    }
    *s = (struct cpu_slot){pid, start, ticks, now};
    pthread_mutex_unlock(&cpu_lock);
    return pct;
}

static void read_stat(unsigned pid, gpu_proc *p)
{
    proc_stat st;
    if (proc_stat_read(NULL, pid, &st) != 0)
        return;
    long hz = sysconf(_SC_CLK_TCK);
    if (hz <= 0)
        hz = 100;
    uint64_t btime = boot_time_s();
    if (btime)
        p->start_time_s = btime + st.start_ticks / (unsigned long long)hz;
    p->cpu_percent = cpu_percent(pid, st.start_ticks, st.utime + st.stime, (double)hz, btime);
    p->has_cpu = 1;
}

int procinfo_fill(gpu_proc *p)
{
    char path[64], buf[4096];
    snprintf(path, sizeof path, "/proc/%u/comm", p->pid);
    ssize_t n = p->pid ? gw_read_small(path, buf, sizeof buf) : -1;
    if (n < 0)
        return -1; /* not visible here (another pid namespace) or gone: keep NVML's view */
    while (n > 0 && buf[n - 1] == '\n')
        buf[--n] = 0;
    if (n > 0)
        gw_strlcpy(p->name, buf, sizeof p->name);
    read_cmdline(p->pid, p);
    read_status(p->pid, p);
    read_stat(p->pid, p);
    workload w;
    if (workload_read(NULL, p->pid, &w) != WL_NONE)
        workload_format(&w, p->container, sizeof p->container);
    return 0;
}
