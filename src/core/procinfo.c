/* procinfo.c - what /proc says about a GPU process: name, command line, user, RSS, start time, CPU use
 * and its container / Kubernetes pod / Slurm job / systemd unit (from /proc/<pid>/cgroup).
 * CPU percent needs two readings: a small pid -> (CPU ticks, time) table, static here and guarded by a
 * mutex, remembers the previous one (the first reading gives the lifetime average, as ps does). */
#include "procinfo.h"
#include "files.h"
#include "proc_stat.h"
#include <ctype.h>
#include <fcntl.h>
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "util.h"

/* ---- cgroup path -> container / job ---- */

/* Ranks, best last: a more specific owner wins over the unit that contains it. */
enum { CG_NONE, CG_SYSTEM_UNIT, CG_USER_UNIT, CG_SLURM, CG_CONTAINER, CG_POD };

static int is_hex(char c)
{
    return isxdigit((unsigned char)c) != 0;
}

/* Length of the hex run at s. */
static size_t hex_run(const char *s, size_t max)
{
    size_t n = 0;
    while (n < max && is_hex(s[n]))
        n++;
    return n;
}

/* The path segment [*seg, *seg+len) after *p; advances *p. Returns 0 at the end. */
static int next_segment(const char **p, const char *end, const char **seg, size_t *len)
{
    while (*p < end && **p == '/')
        (*p)++;
    if (*p >= end)
        return 0;
    *seg = *p;
    while (*p < end && **p != '/')
        (*p)++;
    *len = (size_t)(*p - *seg);
    return 1;
}

static int starts(const char *s, size_t len, const char *prefix)
{
    size_t n = strlen(prefix);
    return len >= n && memcmp(s, prefix, n) == 0;
}

static int ends(const char *s, size_t len, const char *suffix)
{
    size_t n = strlen(suffix);
    return len >= n && memcmp(s + len - n, suffix, n) == 0;
}

/* A container id in a segment: "<prefix><hex>[.scope]" or a bare 64-hex segment. Copies 12 hex digits. */
static int container_id(const char *seg, size_t len, const char *prefix, char id[13])
{
    size_t skip = prefix ? strlen(prefix) : 0;
    if (prefix && !starts(seg, len, prefix))
        return 0;
    size_t n = hex_run(seg + skip, len - skip);
    if (n < 12 || !(skip + n == len || (skip + n + 6 == len && ends(seg, len, ".scope"))))
        return 0;
    memcpy(id, seg + skip, 12);
    id[12] = 0;
    return 1;
}

/* Kubernetes pod uid from "pod<uid>" (cgroupfs) or "kubepods-<qos>-pod<uid_with_underscores>.slice". */
static int pod_uid(const char *seg, size_t len, char *uid, size_t uidlen)
{
    const char *p = NULL;
    for (size_t i = 0; i + 3 <= len; i++)
        if (memcmp(seg + i, "pod", 3) == 0 && (i == 0 || seg[i - 1] == '-'))
            p = seg + i + 3;
    if (!p)
        return 0;
    size_t n = (size_t)(seg + len - p);
    if (ends(seg, len, ".slice"))
        n -= 6;
    if (n < 8 || n + 1 > uidlen)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = p[i] == '_' ? '-' : p[i];
        if (!is_hex(c) && c != '-')
            return 0;
        uid[i] = c;
    }
    uid[n] = 0;
    return 1;
}

typedef struct cg_result {
    int rank;
    char text[96];
} cg_result;

static void offer(cg_result *best, int rank, const char *text)
{
    if (rank > best->rank) {
        best->rank = rank;
        gw_strlcpy(best->text, text, sizeof best->text);
    }
}

/* Judges one cgroup path ("/system.slice/docker-<id>.scope", ...). */
static void judge_path(const char *path, const char *end, cg_result *best)
{
    static const struct {
        const char *prefix, *label;
    } runtimes[] = {{"docker-", "docker"}, {"cri-containerd-", "containerd"}, {"crio-", "crio"}, {"libpod-", "podman"}};
    char pod[48] = "", ctr[13] = "", ctr_label[16] = "", slurm_job[24] = "", unit[80] = "";
    int kube = 0, in_system = 0, in_user = 0, slurm = 0, prev_docker = 0;
    const char *seg, *p = path;
    size_t len;
    while (next_segment(&p, end, &seg, &len)) {
        if (starts(seg, len, "kubepods"))
            kube = 1;
        if (kube && !pod[0])
            pod_uid(seg, len, pod, sizeof pod);
        for (size_t i = 0; i < sizeof runtimes / sizeof runtimes[0] && !ctr[0]; i++)
            if (container_id(seg, len, runtimes[i].prefix, ctr))
                gw_strlcpy(ctr_label, runtimes[i].label, sizeof ctr_label);
        if (!ctr[0] && (prev_docker || kube) && container_id(seg, len, NULL, ctr)) /* /docker/<id>, cgroupfs pods */
            gw_strlcpy(ctr_label, prev_docker ? "docker" : "container", sizeof ctr_label);
        prev_docker = len == 6 && memcmp(seg, "docker", 6) == 0;
        if (starts(seg, len, "slurm"))
            slurm = 1;
        if (slurm && !slurm_job[0] && starts(seg, len, "job_") && len - 4 < sizeof slurm_job)
            snprintf(slurm_job, sizeof slurm_job, "%.*s", (int)(len - 4), seg + 4);
        if (len == 12 && memcmp(seg, "system.slice", 12) == 0)
            in_system = 1;
        if (starts(seg, len, "user@") && ends(seg, len, ".service"))
            in_user = 1;
        else if (starts(seg, len, "user-") && ends(seg, len, ".slice"))
            in_user = in_user ? in_user : 2; /* a login session: its scope is the unit */
        if ((ends(seg, len, ".service") || ends(seg, len, ".scope")) && len < sizeof unit &&
            !(starts(seg, len, "user@")))
            snprintf(unit, sizeof unit, "%.*s", (int)len, seg);
    }
    char text[96];
    if (pod[0]) {
        if (ctr[0])
            snprintf(text, sizeof text, "k8s:pod%s/%s", pod, ctr);
        else
            snprintf(text, sizeof text, "k8s:pod%s", pod);
        offer(best, CG_POD, text);
    } else if (ctr[0]) {
        snprintf(text, sizeof text, "%s:%s", ctr_label, ctr);
        offer(best, CG_CONTAINER, text);
    } else if (slurm_job[0]) {
        snprintf(text, sizeof text, "slurm:job %s", slurm_job);
        offer(best, CG_SLURM, text);
    } else if (unit[0] && in_user) {
        snprintf(text, sizeof text, "user:%s", unit);
        offer(best, CG_USER_UNIT, text);
    } else if (unit[0] && in_system) {
        snprintf(text, sizeof text, "systemd:%s", unit);
        offer(best, CG_SYSTEM_UNIT, text);
    }
}

void procinfo_container_from_cgroup(const char *cgroup_text, char *out, size_t outlen)
{
    cg_result best = {CG_NONE, ""};
    for (const char *line = cgroup_text; line && *line;) {
        const char *eol = strchr(line, '\n');
        const char *end = eol ? eol : line + strlen(line);
        /* "hierarchy-id:controllers:path": the path follows the second colon */
        const char *c1 = memchr(line, ':', (size_t)(end - line));
        const char *c2 = c1 ? memchr(c1 + 1, ':', (size_t)(end - c1 - 1)) : NULL;
        if (c2)
            judge_path(c2 + 1, end, &best);
        line = eol ? eol + 1 : NULL;
    }
    if (outlen)
        gw_strlcpy(out, best.text, outlen);
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
    snprintf(path, sizeof path, "/proc/%u/cgroup", p->pid);
    if (gw_read_small(path, buf, sizeof buf) > 0) {
        char c[sizeof p->container];
        procinfo_container_from_cgroup(buf, c, sizeof c);
        if (c[0])
            gw_strlcpy(p->container, c, sizeof p->container);
    }
    return 0;
}
