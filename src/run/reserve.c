/* reserve.c - lock files of GPU reservations (reserve.h). */
#include "reserve.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include "files.h"
#include "text.h"
#include "util.h"

#define PREFIX "gpu-"
#define SUFFIX ".lock"
#define OWNER_TAG ".owner-"
#define SHARED_DIR "/run/gpuwatch"
#define RECORD_MAX 2048

/* The explicit folder of GPUWATCH_LOCK_DIR: made when missing (1777: it is meant to be shared). */
static int named_dir_ok(const char *path)
{
    struct stat sb;
    if (stat(path, &sb) != 0) {
        if (gw_make_dirs(path, 01777) != 0)
            return 0;
        chmod(path, 01777); /* umask may have narrowed it */
        if (stat(path, &sb) != 0)
            return 0;
    }
    return S_ISDIR(sb.st_mode) && access(path, W_OK | X_OK) == 0;
}

int reserve_dir(char *out, size_t n, char *err, size_t errlen)
{
    const char *env = getenv("GPUWATCH_LOCK_DIR");
    if (env && *env) {
        gw_strlcpy(out, env, n);
        if (named_dir_ok(out))
            return 0;
        snprintf(err, errlen, "GPUWATCH_LOCK_DIR=%s: cannot create or write the folder: %s", env, strerror(errno));
        return -1;
    }
    gw_strlcpy(out, SHARED_DIR, n);
    if (gw_shared_dir(out))
        return 0;
    char why[600];
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    if (xdg && *xdg == '/') {
        snprintf(out, n, "%s/gpuwatch", xdg);
        if (gw_private_dir(out, why, sizeof why) == 0)
            return 0;
    }
    snprintf(out, n, "/tmp/gpuwatch-%u", (unsigned)geteuid());
    if (gw_private_dir(out, why, sizeof why) == 0)
        return 0;
    snprintf(err, errlen,
             "no folder for GPU reservations: %s cannot be used, $XDG_RUNTIME_DIR/gpuwatch neither, and %s; "
             "set GPUWATCH_LOCK_DIR to a folder of yours",
             SHARED_DIR, why);
    return -1;
}

/* flock that retries when a signal interrupts it. */
static int lock_fd(int fd, int how)
{
    int rc;
    do
        rc = flock(fd, how);
    while (rc != 0 && errno == EINTR);
    return rc;
}

int reserve_placement_lock(const char *dir, double wait_s, char *err, size_t errlen)
{
    char path[4200], why[256];
    snprintf(path, sizeof path, "%s/placement.lock", dir);
    int fd = gw_open_file(path, O_RDONLY | O_CREAT, 0644, GW_OPEN_NOFOLLOW, why, sizeof why);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", path, why);
        return -1;
    }
    uint64_t t0 = gw_mono_us();
    int said = 0;
    while (lock_fd(fd, LOCK_EX | LOCK_NB) != 0) {
        double waited = (double)(gw_mono_us() - t0) / 1e6;
        if (errno != EWOULDBLOCK) {
            snprintf(err, errlen, "%s: %s", path, strerror(errno));
            close(fd);
            return -1;
        }
        if (wait_s >= 0 && waited >= wait_s) {
            snprintf(err, errlen, "%s: another process held it for the whole %.1f s waited", path, waited);
            close(fd);
            errno = EWOULDBLOCK;
            return -1;
        }
        if (!said && waited >= 1) {
            fprintf(stderr, "gpuwatch run: waiting for %s (another run is placing its job, or a process holds it)\n",
                    path);
            said = 1;
        }
        gw_sleep_us(20000);
    }
    return fd;
}

/* gpu-KEY.lock, with KEY made safe for a file name. */
static void key_part(const char *key, char *out, size_t n)
{
    size_t k = 0;
    for (const char *p = key; *p && k + 1 < n; p++) {
        unsigned char c = (unsigned char)*p;
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == ':';
        out[k++] = ok ? (char)c : '_';
    }
    out[k] = 0;
}

static void lock_path(const char *dir, const char *key, char *out, size_t n)
{
    char safe[128];
    key_part(key, safe, sizeof safe);
    snprintf(out, n, "%s/" PREFIX "%s" SUFFIX, dir, safe);
}

/* key=value lines; unknown keys ignored; values cleaned for printing. */
static void parse_owner(char *text, reserve_owner *o)
{
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = 0;
        char *v = strchr(line, '=');
        if (!v)
            continue;
        *v++ = 0;
        gw_clean_text(v);
        if (strcmp(line, "pid") == 0)
            o->pid = strtol(v, NULL, 10);
        else if (strcmp(line, "job") == 0)
            gw_strlcpy(o->job, v, sizeof o->job);
        else if (strcmp(line, "name") == 0)
            gw_strlcpy(o->name, v, sizeof o->name);
        else if (strcmp(line, "since") == 0)
            o->since_s = strtoll(v, NULL, 10);
        else if (strcmp(line, "gpu") == 0)
            o->gpu = (int)strtol(v, NULL, 10);
        else if (strcmp(line, "command") == 0)
            gw_strlcpy(o->command, v, sizeof o->command);
    }
    if (o->pid < 0)
        o->pid = 0;
    if (o->gpu < -1 || o->gpu > 4096)
        o->gpu = -1;
}

static void user_name(uid_t uid, char *out, size_t n)
{
    struct passwd pw, *res = NULL;
    char buf[1024];
    if (getpwuid_r(uid, &pw, buf, sizeof buf, &res) == 0 && res)
        gw_strlcpy(out, res->pw_name, n);
    else
        snprintf(out, n, "uid %u", (unsigned)uid);
    gw_clean_text(out);
}

/* The newest record of KEY (any user's): 1 with o filled when it names a holder, 0 when there is
 * none or the newest was emptied (released). A record counts only from a regular file owned by the
 * uid its name gives. */
static int read_owner(const char *dir, const char *key, reserve_owner *o)
{
    memset(o, 0, sizeof *o);
    o->gpu = -1;
    char safe[128], stem[200];
    key_part(key, safe, sizeof safe);
    snprintf(stem, sizeof stem, PREFIX "%s" OWNER_TAG, safe);
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    struct timespec best = {0, 0};
    int found = 0, named = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strncmp(e->d_name, stem, strlen(stem)) != 0)
            continue;
        char *end;
        unsigned long uid = strtoul(e->d_name + strlen(stem), &end, 10);
        if (*end || end == e->d_name + strlen(stem))
            continue;
        char path[4400], why[128];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        int fd = gw_open_file(path, O_RDONLY, 0, GW_OPEN_NOFOLLOW, why, sizeof why);
        struct stat sb;
        if (fd < 0)
            continue;
        if (fstat(fd, &sb) != 0 || sb.st_uid != (uid_t)uid ||
            (found && (sb.st_mtim.tv_sec < best.tv_sec ||
                       (sb.st_mtim.tv_sec == best.tv_sec && sb.st_mtim.tv_nsec <= best.tv_nsec)))) {
            close(fd);
            continue;
        }
        char text[RECORD_MAX];
        ssize_t r = pread(fd, text, sizeof text - 1, 0);
        close(fd);
        found = 1;
        best = sb.st_mtim;
        memset(o, 0, sizeof *o);
        o->gpu = -1;
        named = 0;
        if (r <= 0)
            continue;
        text[r] = 0;
        parse_owner(text, o);
        user_name((uid_t)uid, o->user, sizeof o->user);
        named = o->pid > 0;
    }
    closedir(d);
    return named;
}

/* Whether another descriptor holds the lock of fd's file (a shared lock taken and given back at once). */
static int held_elsewhere(int fd)
{
    if (lock_fd(fd, LOCK_SH | LOCK_NB) != 0)
        return errno == EWOULDBLOCK;
    flock(fd, LOCK_UN);
    return 0;
}

reserve_state reserve_check(const char *dir, const char *key, reserve_owner *owner)
{
    reserve_owner tmp;
    reserve_owner *o = owner ? owner : &tmp;
    char path[4300], why[256];
    lock_path(dir, key, path, sizeof path);
    int fd = gw_open_file(path, O_RDONLY, 0, GW_OPEN_NOFOLLOW, why, sizeof why);
    if (fd < 0) {
        memset(o, 0, sizeof *o);
        o->gpu = -1;
        if (errno == ENOENT)
            return RESERVE_FREE;
        snprintf(o->command, sizeof o->command, "%.120s: %.120s", path, why);
        return RESERVE_REFUSED;
    }
    int held = held_elsewhere(fd);
    close(fd);
    int named = read_owner(dir, key, o);
    if (held)
        return RESERVE_HELD;
    return named ? RESERVE_STALE : RESERVE_FREE;
}

/* One line per field; newlines in values become spaces. */
static void put_field(char *out, size_t n, size_t *len, const char *key, const char *v)
{
    if (*len >= n)
        return;
    int w = snprintf(out + *len, n - *len, "%s=", key);
    if (w < 0)
        return;
    *len += (size_t)w;
    for (; *v && *len + 2 < n; v++)
        out[(*len)++] = (*v == '\n' || *v == '\r') ? ' ' : *v;
    if (*len + 1 < n)
        out[(*len)++] = '\n';
    out[*len < n ? *len : n - 1] = 0;
}

/* A shared lock taken by `run --list` to look lasts microseconds: a few tries before "held". */
static int take_lock(int fd)
{
    for (int i = 0; i < 10; i++) {
        if (lock_fd(fd, LOCK_EX | LOCK_NB) == 0)
            return 0;
        if (errno != EWOULDBLOCK)
            return -1;
        gw_sleep_us(2000);
    }
    return -1;
}

int reserve_take(const char *dir, const char *key, const reserve_owner *me, reserve_hold *out, char *err, size_t errlen)
{
    out->lock_fd = out->record_fd = -1;
    char path[4300], why[256];
    lock_path(dir, key, path, sizeof path);
    int fd = gw_open_file(path, O_RDONLY | O_CREAT, 0644, GW_OPEN_NOFOLLOW, why, sizeof why);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", path, why);
        return -1;
    }
    if (take_lock(fd) != 0) {
        snprintf(err, errlen, "%s: held by another run", path);
        close(fd);
        return -1;
    }
    char rec[4400];
    snprintf(rec, sizeof rec, "%.*s" OWNER_TAG "%u", (int)(strlen(path) - strlen(SUFFIX)), path, (unsigned)geteuid());
    int rfd = gw_open_file(rec, O_WRONLY | O_CREAT | O_TRUNC, 0644, GW_OPEN_OWNED, why, sizeof why);
    if (rfd < 0) {
        snprintf(err, errlen, "%s: %s", rec, why);
        close(fd);
        return -1;
    }
    char text[1024], num[32];
    size_t len = 0;
    text[0] = 0;
    snprintf(num, sizeof num, "%ld", me->pid);
    put_field(text, sizeof text, &len, "pid", num);
    put_field(text, sizeof text, &len, "job", me->job);
    put_field(text, sizeof text, &len, "name", me->name);
    snprintf(num, sizeof num, "%lld", (long long)me->since_s);
    put_field(text, sizeof text, &len, "since", num);
    snprintf(num, sizeof num, "%d", me->gpu);
    put_field(text, sizeof text, &len, "gpu", num);
    put_field(text, sizeof text, &len, "command", me->command);
    if (pwrite(rfd, text, len, 0) != (ssize_t)len) {
        snprintf(err, errlen, "%s: %s", rec, strerror(errno));
        close(rfd);
        close(fd);
        return -1;
    }
    out->lock_fd = fd;
    out->record_fd = rfd;
    return 0;
}

void reserve_release(reserve_hold *h, int keep_record)
{
    if (h->record_fd >= 0 && !keep_record && ftruncate(h->record_fd, 0) != 0) {
        /* the lock goes with the descriptor anyway; the record only looks stale */
    }
    if (h->record_fd >= 0)
        close(h->record_fd);
    if (h->lock_fd >= 0)
        close(h->lock_fd);
    h->lock_fd = h->record_fd = -1;
}

int reserve_list(const char *dir, void (*cb)(void *ctx, const char *key, reserve_state st, const reserve_owner *o),
                 void *ctx)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (strncmp(e->d_name, PREFIX, strlen(PREFIX)) != 0 || len <= strlen(PREFIX) + strlen(SUFFIX) ||
            strcmp(e->d_name + len - strlen(SUFFIX), SUFFIX) != 0)
            continue;
        char key[128];
        size_t klen = len - strlen(PREFIX) - strlen(SUFFIX);
        if (klen >= sizeof key)
            continue;
        memcpy(key, e->d_name + strlen(PREFIX), klen);
        key[klen] = 0;
        gw_clean_text(key);
        reserve_owner o;
        reserve_state st = reserve_check(dir, key, &o);
        cb(ctx, key, st, &o);
        n++;
    }
    closedir(d);
    return n;
}

void reserve_owner_text(const reserve_owner *o, char *out, size_t n)
{
    char name[160] = "";
    if (o->name[0])
        snprintf(name, sizeof name, ", '%s'", o->name);
    snprintf(out, n, "pid %ld (%s, job %s%s)", o->pid, o->user[0] ? o->user : "?", o->job[0] ? o->job : "?", name);
}
