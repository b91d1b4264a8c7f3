/* procinfo.c - what /proc says about a GPU process: name, command line, user, RSS, start time, CPU use
 * (from the caller's process table, proc_table.h) and its container / Kubernetes pod / Slurm job /
 * systemd unit (from /proc/<pid>/cgroup). */
#include "procinfo.h"
#include "files.h"
#include <ctype.h>
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
    snprintf(path, sizeof path, "%s/%u/cgroup", root, p->pid);
    if (gw_read_small(path, buf, sizeof buf) > 0) {
        char c[sizeof p->container];
        procinfo_container_from_cgroup(buf, c, sizeof c);
        if (c[0])
            gw_strlcpy(p->container, c, sizeof p->container);
    }
    return 0;
}
