/* workload.c - who a process works for (see workload.h): cgroup paths, Slurm environments, the
 * kubelet's log folders, and the text form the rest of gpuwatch reads back. */
#include "workload.h"
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "files.h"
#include "text.h"
#include "util.h"

/* ---- small text helpers over [s, s+len) ---- */

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

static size_t run_of(const char *s, size_t max, int (*ok)(int))
{
    size_t n = 0;
    while (n < max && ok((unsigned char)s[n]))
        n++;
    return n;
}

static int is_hex(int c)
{
    return isxdigit(c) != 0;
}

static int is_digit(int c)
{
    return c >= '0' && c <= '9';
}

static int is_step(int c)
{
    return (c >= 'a' && c <= 'z') || is_digit(c);
}

/* Copies [s, s+len) into out when it fits (n bytes with its NUL); else leaves out empty. */
static void copy_n(char *out, size_t n, const char *s, size_t len)
{
    if (len + 1 > n)
        len = 0;
    memcpy(out, s, len);
    out[len] = 0;
}

/* ---- cgroup path -> owner ---- */

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

/* A container id in a segment: "<prefix><hex>[.scope]" or a bare hex segment, 12 to 64 digits. */
static int container_id(const char *seg, size_t len, const char *prefix, char id[65])
{
    size_t skip = prefix ? strlen(prefix) : 0;
    if (prefix && !starts(seg, len, prefix))
        return 0;
    size_t n = run_of(seg + skip, len - skip, is_hex);
    if (n < 12 || n > 64 || !(skip + n == len || (skip + n + 6 == len && ends(seg, len, ".scope"))))
        return 0;
    copy_n(id, 65, seg + skip, n);
    return 1;
}

/* "8-4-4-4-12" hex digits. */
static int uid_shaped(const char *s, size_t len)
{
    if (len != 36)
        return 0;
    for (size_t i = 0; i < len; i++)
        if ((i == 8 || i == 13 || i == 18 || i == 23) ? s[i] != '-' : !is_hex((unsigned char)s[i]))
            return 0;
    return 1;
}

/* Kubernetes pod uid (a UUID) from "pod<uid>" (cgroupfs) or "kubepods-<qos>-pod<uid_with_underscores>.slice". */
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
    char tmp[37];
    if (n != 36 || n + 1 > uidlen)
        return 0;
    for (size_t i = 0; i < n; i++)
        tmp[i] = p[i] == '_' ? '-' : p[i];
    tmp[n] = 0;
    if (!uid_shaped(tmp, n))
        return 0;
    memcpy(uid, tmp, n + 1);
    return 1;
}

/* "<prefix><run>" where the run is all ok characters: the run into out. */
static int prefixed(const char *seg, size_t len, const char *prefix, int (*ok)(int), char *out, size_t n)
{
    size_t skip = strlen(prefix);
    if (!starts(seg, len, prefix) || len == skip || run_of(seg + skip, len - skip, ok) != len - skip ||
        len - skip + 1 > n)
        return 0;
    copy_n(out, n, seg + skip, len - skip);
    return 1;
}

/* What one cgroup path says, before ranking. */
typedef struct path_facts {
    char pod[40], ctr[65], ctr_runtime[16], slurm_job[24], slurm_step[24], unit[80];
    int kube, in_system, in_user, slurm, prev_docker;
} path_facts;

static void read_segment(path_facts *f, const char *seg, size_t len)
{
    static const struct {
        const char *prefix, *runtime;
    } runtimes[] = {{"docker-", "docker"}, {"cri-containerd-", "containerd"}, {"crio-", "crio"}, {"libpod-", "podman"}};
    if (starts(seg, len, "kubepods"))
        f->kube = 1;
    if (f->kube && !f->pod[0])
        pod_uid(seg, len, f->pod, sizeof f->pod);
    for (size_t i = 0; i < sizeof runtimes / sizeof runtimes[0] && !f->ctr[0]; i++)
        if (container_id(seg, len, runtimes[i].prefix, f->ctr))
            gw_strlcpy(f->ctr_runtime, runtimes[i].runtime, sizeof f->ctr_runtime);
    if (!f->ctr[0] && (f->prev_docker || f->kube) && container_id(seg, len, NULL, f->ctr)) /* /docker/<id>, pods */
        gw_strlcpy(f->ctr_runtime, f->prev_docker ? "docker" : "container", sizeof f->ctr_runtime);
    f->prev_docker = len == 6 && memcmp(seg, "docker", 6) == 0;
    /* v1: /slurm[_node]/uid_N/job_M/step_S; v2: /system.slice/[node_]slurmstepd.scope/job_M/step_S */
    if (starts(seg, len, "slurm") || ends(seg, len, "slurmstepd.scope"))
        f->slurm = 1;
    if (f->slurm && !f->slurm_job[0])
        prefixed(seg, len, "job_", is_digit, f->slurm_job, sizeof f->slurm_job);
    else if (f->slurm_job[0] && !f->slurm_step[0])
        prefixed(seg, len, "step_", is_step, f->slurm_step, sizeof f->slurm_step);
    if (len == 12 && memcmp(seg, "system.slice", 12) == 0)
        f->in_system = 1;
    if (starts(seg, len, "user@") && ends(seg, len, ".service"))
        f->in_user = 1;
    else if (starts(seg, len, "user-") && ends(seg, len, ".slice"))
        f->in_user = f->in_user ? f->in_user : 2; /* a login session: its scope is the unit */
    if ((ends(seg, len, ".service") || ends(seg, len, ".scope")) && len < sizeof f->unit &&
        !starts(seg, len, "user@")) {
        copy_n(f->unit, sizeof f->unit, seg, len);
        gw_clean_text(f->unit); /* a unit's name is its creator's: printed by pmon and top */
    }
}

/* Judges one cgroup path ("/system.slice/docker-<id>.scope", ...) and keeps it in best when it
 * names a more specific owner. */
static void judge_path(const char *path, const char *end, workload *best)
{
    path_facts f;
    memset(&f, 0, sizeof f);
    const char *seg, *p = path;
    size_t len;
    while (next_segment(&p, end, &seg, &len))
        read_segment(&f, seg, len);
    workload w;
    memset(&w, 0, sizeof w);
    if (f.pod[0]) {
        w.kind = WL_POD;
        gw_strlcpy(w.pod_uid, f.pod, sizeof w.pod_uid);
        gw_strlcpy(w.container_id, f.ctr, sizeof w.container_id);
    } else if (f.ctr[0]) {
        w.kind = WL_CONTAINER;
        gw_strlcpy(w.container_id, f.ctr, sizeof w.container_id);
        gw_strlcpy(w.runtime, f.ctr_runtime, sizeof w.runtime);
    } else if (f.slurm_job[0]) {
        w.kind = WL_SLURM;
        gw_strlcpy(w.slurm_job, f.slurm_job, sizeof w.slurm_job);
        gw_strlcpy(w.slurm_step, f.slurm_step, sizeof w.slurm_step);
    } else if (f.unit[0] && (f.in_user || f.in_system)) {
        w.kind = f.in_user ? WL_USER_UNIT : WL_SYSTEM_UNIT;
        gw_strlcpy(w.unit, f.unit, sizeof w.unit);
    }
    if (w.kind > best->kind)
        *best = w;
}

workload_kind workload_from_cgroup(const char *cgroup_text, workload *w)
{
    memset(w, 0, sizeof *w);
    for (const char *line = cgroup_text; line && *line;) {
        const char *eol = strchr(line, '\n');
        const char *end = eol ? eol : line + strlen(line);
        /* "hierarchy-id:controllers:path": the path follows the second colon */
        const char *c1 = memchr(line, ':', (size_t)(end - line));
        const char *c2 = c1 ? memchr(c1 + 1, ':', (size_t)(end - c1 - 1)) : NULL;
        if (c2)
            judge_path(c2 + 1, end, w);
        line = eol ? eol + 1 : NULL;
    }
    return w->kind;
}

/* ---- Slurm's environment ---- */

/* The value of NAME in a NUL-separated environment, or NULL; *vlen its length. */
static const char *env_value(const char *env, size_t len, const char *name, size_t *vlen)
{
    size_t nl = strlen(name);
    for (size_t i = 0; i < len;) {
        const char *e = env + i;
        const char *z = memchr(e, 0, len - i);
        size_t elen = z ? (size_t)(z - e) : len - i;
        if (elen > nl && memcmp(e, name, nl) == 0 && e[nl] == '=') {
            *vlen = elen - nl - 1;
            return e + nl + 1;
        }
        i += elen + 1;
    }
    return NULL;
}

/* NAME's value into out when it is 1..n-1 characters all ok. */
static int env_field(const char *env, size_t len, const char *name, int (*ok)(int), char *out, size_t n)
{
    size_t vlen;
    const char *v = env_value(env, len, name, &vlen);
    if (!v || vlen == 0 || vlen + 1 > n || run_of(v, vlen, ok) != vlen)
        return 0;
    copy_n(out, n, v, vlen);
    return 1;
}

int workload_slurm_env(workload *w, const char *environ, size_t len)
{
    char job[24];
    if (w->kind != WL_SLURM || !env_field(environ, len, "SLURM_JOB_ID", is_digit, job, sizeof job) ||
        strcmp(job, w->slurm_job) != 0)
        return 0;
    char aj[24], at[24];
    if (env_field(environ, len, "SLURM_ARRAY_JOB_ID", is_digit, aj, sizeof aj) &&
        env_field(environ, len, "SLURM_ARRAY_TASK_ID", is_digit, at, sizeof at)) {
        gw_strlcpy(w->slurm_array_job, aj, sizeof w->slurm_array_job);
        gw_strlcpy(w->slurm_array_task, at, sizeof w->slurm_array_task);
    }
    if (!w->slurm_step[0])
        env_field(environ, len, "SLURM_STEP_ID", is_digit, w->slurm_step, sizeof w->slurm_step);
    size_t vlen;
    const char *name = env_value(environ, len, "SLURM_JOB_NAME", &vlen);
    if (name && vlen) {
        /* whole characters only: a name cut inside one would not be UTF-8 */
        size_t take = 0;
        while (take < vlen) {
            uint32_t cp;
            size_t step = gw_utf8_next(name + take, &cp);
            if (take + step > vlen || take + step + 1 > sizeof w->job_name)
                break;
            take += step;
        }
        copy_n(w->job_name, sizeof w->job_name, name, take);
        gw_clean_text(w->job_name);
    }
    return 1;
}

/* ---- the kubelet's folders ---- */

static int is_dns(int c)
{
    return (c >= 'a' && c <= 'z') || is_digit(c) || c == '-';
}

static int is_dns_dot(int c)
{
    return is_dns(c) || c == '.';
}

static int is_uid(int c)
{
    return is_hex(c) || c == '-';
}

/* [s, s+len) is 1..max characters all ok. */
static int valid(const char *s, size_t len, size_t max, int (*ok)(int))
{
    return len > 0 && len <= max && run_of(s, len, ok) == len;
}

typedef struct pod_entry {
    char uid[40], ns[64], pod[254];
    char only_container[64]; /* the pod folder's one container folder, "" when more or none */
} pod_entry;

typedef struct ctr_entry {
    char id[65], name[64];
} ctr_entry;

#define WL_MAX_PODS 8192
#define WL_MAX_CONTAINERS 32768
#define WL_MAX_ENTRIES 100000 /* directory entries read per listing */
#define WL_RELIST_US 10000000 /* a folder is listed at most every 10 s */

static struct {
    pthread_mutex_t mu;
    char pods_dir[256], containers_dir[256];
    uint64_t listed_us; /* monotonic, 0 never */
    pod_entry *pods;
    int npods;
    ctr_entry *ctrs;
    int nctrs;
} cache = {.mu = PTHREAD_MUTEX_INITIALIZER};

/* A folder opened as asked for, or NULL. */
static DIR *open_dir(int at, const char *path, int nofollow)
{
    int fd = openat(at, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0));
    if (fd < 0)
        return NULL;
    DIR *d = fdopendir(fd);
    if (!d)
        close(fd);
    return d;
}

/* The name of the one folder in a pod's folder (its container), or "" (none, several, unreadable). */
static void only_container(int pods_fd, const char *pod_folder, char *out, size_t n)
{
    out[0] = 0;
    DIR *d = open_dir(pods_fd, pod_folder, 1);
    if (!d)
        return;
    int found = 0;
    struct dirent *e;
    for (int i = 0; (e = readdir(d)) && i < 64 && found < 2; i++) {
        size_t len = strlen(e->d_name);
        if (e->d_name[0] == '.' || !valid(e->d_name, len, 63, is_dns))
            continue;
        struct stat st;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode))
            continue;
        if (found++ == 0)
            copy_n(out, n, e->d_name, len);
    }
    if (found != 1)
        out[0] = 0;
    closedir(d);
}

/* "<namespace>_<pod>_<uid>" into a pod entry. */
static int parse_pod_folder(const char *name, pod_entry *p)
{
    const char *u1 = strchr(name, '_');
    const char *u2 = u1 ? strchr(u1 + 1, '_') : NULL;
    if (!u2 || strchr(u2 + 1, '_'))
        return 0;
    size_t nl = (size_t)(u1 - name), pl = (size_t)(u2 - u1 - 1), ul = strlen(u2 + 1);
    if (!valid(name, nl, 63, is_dns) || !valid(u1 + 1, pl, 253, is_dns_dot) || !valid(u2 + 1, ul, 39, is_uid))
        return 0;
    memset(p, 0, sizeof *p);
    copy_n(p->ns, sizeof p->ns, name, nl);
    copy_n(p->pod, sizeof p->pod, u1 + 1, pl);
    copy_n(p->uid, sizeof p->uid, u2 + 1, ul);
    return 1;
}

/* "<pod>_<namespace>_<container>-<64 hex>.log" into a container entry. */
static int parse_container_file(const char *name, ctr_entry *c)
{
    size_t len = strlen(name);
    if (!ends(name, len, ".log") || len < 4 + 65)
        return 0;
    len -= 4;
    const char *id = name + len - 64;
    if (id[-1] != '-' || run_of(id, 64, is_hex) != 64)
        return 0;
    const char *u1 = memchr(name, '_', len);
    const char *u2 = u1 ? memchr(u1 + 1, '_', (size_t)(name + len - u1 - 1)) : NULL;
    if (!u2)
        return 0;
    size_t cl = (size_t)(id - 1 - (u2 + 1));
    if (!valid(u2 + 1, cl, 63, is_dns))
        return 0;
    copy_n(c->id, sizeof c->id, id, 64);
    copy_n(c->name, sizeof c->name, u2 + 1, cl);
    return 1;
}

/* Appends *item to a growable array (capped); 0, or -1 when full or out of memory. */
static int push(void **arr, int *n, int *cap, size_t size, int max, const void *item)
{
    if (*n >= max)
        return -1;
    if (*n == *cap) {
        int nc = *cap ? *cap * 2 : 16;
        void *grown = realloc(*arr, (size_t)nc * size);
        if (!grown)
            return -1;
        *arr = grown;
        *cap = nc;
    }
    memcpy((char *)*arr + (size_t)*n * size, item, size);
    (*n)++;
    return 0;
}

/* Lists both folders into the cache (cache.mu held). What cannot be read leaves its list empty. */
static void relist(void)
{
    pod_entry *pods = NULL;
    ctr_entry *ctrs = NULL;
    int npods = 0, cpods = 0, nctrs = 0, cctrs = 0;
    DIR *d = open_dir(AT_FDCWD, cache.pods_dir, 0);
    struct dirent *e;
    for (int i = 0; d && (e = readdir(d)) && i < WL_MAX_ENTRIES; i++) {
        pod_entry p;
        if (!parse_pod_folder(e->d_name, &p))
            continue;
        only_container(dirfd(d), e->d_name, p.only_container, sizeof p.only_container);
        if (push((void **)&pods, &npods, &cpods, sizeof p, WL_MAX_PODS, &p) != 0)
            break;
    }
    if (d)
        closedir(d);
    d = cache.containers_dir[0] ? open_dir(AT_FDCWD, cache.containers_dir, 0) : NULL;
    for (int i = 0; d && (e = readdir(d)) && i < WL_MAX_ENTRIES; i++) {
        ctr_entry c;
        if (parse_container_file(e->d_name, &c) &&
            push((void **)&ctrs, &nctrs, &cctrs, sizeof c, WL_MAX_CONTAINERS, &c) != 0)
            break;
    }
    if (d)
        closedir(d);
    free(cache.pods);
    free(cache.ctrs);
    cache.pods = pods;
    cache.npods = npods;
    cache.ctrs = ctrs;
    cache.nctrs = nctrs;
    cache.listed_us = gw_mono_us();
}

static const pod_entry *find_pod(const char *uid)
{
    for (int i = 0; i < cache.npods; i++)
        if (strcmp(cache.pods[i].uid, uid) == 0)
            return &cache.pods[i];
    return NULL;
}

/* The container whose id starts with id (12 to 64 digits), or NULL. */
static const ctr_entry *find_container(const char *id)
{
    size_t n = strlen(id);
    for (int i = 0; n >= 12 && i < cache.nctrs; i++)
        if (strncmp(cache.ctrs[i].id, id, n) == 0)
            return &cache.ctrs[i];
    return NULL;
}

int workload_resolve_pod(workload *w, const char *pods_dir, const char *containers_dir)
{
    if (w->kind != WL_POD || !w->pod_uid[0])
        return 0;
    if (!containers_dir)
        containers_dir = "";
    pthread_mutex_lock(&cache.mu);
    int same = strcmp(cache.pods_dir, pods_dir) == 0 && strcmp(cache.containers_dir, containers_dir) == 0;
    if (!same) {
        gw_strlcpy(cache.pods_dir, pods_dir, sizeof cache.pods_dir);
        gw_strlcpy(cache.containers_dir, containers_dir, sizeof cache.containers_dir);
        cache.listed_us = 0;
    }
    const pod_entry *p = cache.listed_us ? find_pod(w->pod_uid) : NULL;
    const ctr_entry *c = p && w->container_id[0] ? find_container(w->container_id) : NULL;
    if ((!p || (w->container_id[0] && !c && !p->only_container[0])) &&
        (!cache.listed_us || gw_mono_us() - cache.listed_us >= WL_RELIST_US)) {
        relist();
        p = find_pod(w->pod_uid);
        c = p && w->container_id[0] ? find_container(w->container_id) : NULL;
    }
    if (p) {
        gw_strlcpy(w->namespace_, p->ns, sizeof w->namespace_);
        gw_strlcpy(w->pod, p->pod, sizeof w->pod);
        gw_strlcpy(w->container, c ? c->name : p->only_container, sizeof w->container);
    }
    pthread_mutex_unlock(&cache.mu);
    return p != NULL;
}

void workload_forget_pods(void)
{
    pthread_mutex_lock(&cache.mu);
    free(cache.pods);
    free(cache.ctrs);
    cache.pods = NULL;
    cache.ctrs = NULL;
    cache.npods = cache.nctrs = 0;
    cache.listed_us = 0;
    cache.pods_dir[0] = cache.containers_dir[0] = 0;
    pthread_mutex_unlock(&cache.mu);
}

/* ---- one process ---- */

#define WL_ENV_MAX (64u << 10)

workload_kind workload_read(const workload_roots *roots, unsigned pid, workload *w)
{
    const char *proc = roots && roots->proc ? roots->proc : "/proc";
    char path[512], text[4096];
    memset(w, 0, sizeof *w);
    snprintf(path, sizeof path, "%s/%u/cgroup", proc, pid);
    if (gw_read_small(path, text, sizeof text) <= 0)
        return WL_NONE;
    workload_from_cgroup(text, w);
    if (w->kind == WL_POD)
        workload_resolve_pod(w, roots && roots->pods ? roots->pods : "/var/log/pods",
                             roots && roots->containers ? roots->containers : "/var/log/containers");
    if (w->kind == WL_SLURM) {
        char *env = malloc(WL_ENV_MAX);
        snprintf(path, sizeof path, "%s/%u/environ", proc, pid);
        long n = env ? gw_read_small(path, env, WL_ENV_MAX) : -1;
        if (n > 0)
            workload_slurm_env(w, env, (size_t)n);
        free(env);
    }
    return w->kind;
}

/* ---- text form ---- */

void workload_format(const workload *w, char *out, size_t n)
{
    if (!n)
        return;
    out[0] = 0;
    char id[13];
    gw_strlcpy(id, w->container_id, sizeof id);
    switch (w->kind) {
    case WL_POD:
        if (w->namespace_[0] && w->pod[0])
            snprintf(out, n, "k8s:%s/%s%s%s", w->namespace_, w->pod, w->container[0] ? "/" : "", w->container);
        else
            snprintf(out, n, "k8s:pod%s%s%s", w->pod_uid, id[0] ? "/" : "", id);
        break;
    case WL_CONTAINER: snprintf(out, n, "%s:%s", w->runtime, id); break;
    case WL_SLURM: {
        int k = snprintf(out, n, "slurm:job %s", w->slurm_job);
        if (w->slurm_step[0] && k >= 0 && (size_t)k < n)
            k += snprintf(out + k, n - (size_t)k, " step %s", w->slurm_step);
        if (w->slurm_array_job[0] && k >= 0 && (size_t)k < n)
            k += snprintf(out + k, n - (size_t)k, " array %s_%s", w->slurm_array_job, w->slurm_array_task);
        if (w->job_name[0] && k >= 0 && (size_t)k < n)
            snprintf(out + k, n - (size_t)k, " name %s", w->job_name);
        break;
    }
    case WL_USER_UNIT: snprintf(out, n, "user:%s", w->unit); break;
    case WL_SYSTEM_UNIT: snprintf(out, n, "systemd:%s", w->unit); break;
    case WL_NONE: break;
    }
}

static workload_kind parse_k8s(const char *s, workload *w)
{
    const char *slash = strchr(s, '/');
    size_t first = slash ? (size_t)(slash - s) : strlen(s);
    if (starts(s, first, "pod") && uid_shaped(s + 3, first - 3)) {
        copy_n(w->pod_uid, sizeof w->pod_uid, s + 3, first - 3);
        if (slash && valid(slash + 1, strlen(slash + 1), 64, is_hex))
            copy_n(w->container_id, sizeof w->container_id, slash + 1, strlen(slash + 1));
        return w->kind = WL_POD;
    }
    if (!slash || !valid(s, first, 63, is_dns))
        return WL_NONE;
    const char *pod = slash + 1, *slash2 = strchr(pod, '/');
    size_t pl = slash2 ? (size_t)(slash2 - pod) : strlen(pod);
    if (!valid(pod, pl, 253, is_dns_dot) || (slash2 && !valid(slash2 + 1, strlen(slash2 + 1), 63, is_dns)))
        return WL_NONE;
    copy_n(w->namespace_, sizeof w->namespace_, s, first);
    copy_n(w->pod, sizeof w->pod, pod, pl);
    if (slash2)
        copy_n(w->container, sizeof w->container, slash2 + 1, strlen(slash2 + 1));
    return w->kind = WL_POD;
}

/* "job <id>[ step <s>][ array <job>_<task>][ name <rest>]" */
static workload_kind parse_slurm(const char *s, workload *w)
{
    size_t n = run_of(s, strlen(s), is_digit);
    if (n == 0 || n + 1 > sizeof w->slurm_job || (s[n] && s[n] != ' '))
        return WL_NONE;
    copy_n(w->slurm_job, sizeof w->slurm_job, s, n);
    s += n;
    if (starts(s, strlen(s), " step ")) {
        s += 6;
        n = run_of(s, strlen(s), is_step);
        copy_n(w->slurm_step, sizeof w->slurm_step, s, n);
        s += n;
    }
    if (starts(s, strlen(s), " array ")) {
        s += 7;
        size_t a = run_of(s, strlen(s), is_digit);
        size_t t = s[a] == '_' ? run_of(s + a + 1, strlen(s + a + 1), is_digit) : 0;
        if (a && t) {
            copy_n(w->slurm_array_job, sizeof w->slurm_array_job, s, a);
            copy_n(w->slurm_array_task, sizeof w->slurm_array_task, s + a + 1, t);
        }
        s += a + (t ? t + 1 : 0);
    }
    if (starts(s, strlen(s), " name ")) {
        gw_strlcpy(w->job_name, s + 6, sizeof w->job_name);
        gw_clean_text(w->job_name);
    }
    return w->kind = WL_SLURM;
}

workload_kind workload_parse(const char *text, workload *w)
{
    static const char *const runtimes[] = {"docker", "containerd", "crio", "podman", "container"};
    memset(w, 0, sizeof *w);
    if (!text)
        return WL_NONE;
    size_t len = strlen(text);
    if (starts(text, len, "k8s:"))
        return parse_k8s(text + 4, w);
    if (starts(text, len, "slurm:job "))
        return parse_slurm(text + 10, w);
    if (starts(text, len, "user:") || starts(text, len, "systemd:")) {
        const char *u = strchr(text, ':') + 1;
        gw_strlcpy(w->unit, u, sizeof w->unit);
        gw_clean_text(w->unit);
        return w->kind = text[0] == 'u' ? WL_USER_UNIT : WL_SYSTEM_UNIT;
    }
    const char *colon = strchr(text, ':');
    for (size_t i = 0; colon && i < sizeof runtimes / sizeof runtimes[0]; i++)
        if ((size_t)(colon - text) == strlen(runtimes[i]) && memcmp(text, runtimes[i], strlen(runtimes[i])) == 0 &&
            valid(colon + 1, strlen(colon + 1), 64, is_hex)) {
            gw_strlcpy(w->runtime, runtimes[i], sizeof w->runtime);
            gw_strlcpy(w->container_id, colon + 1, sizeof w->container_id);
            return w->kind = WL_CONTAINER;
        }
    return WL_NONE;
}
