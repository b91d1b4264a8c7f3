/* reserve.c - lock files of GPU reservations (reserve.h). */
#include "reserve.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "files.h"
#include "util.h"

#define PREFIX "gpu-"
#define SUFFIX ".lock"

static int usable_dir(const char *path, mode_t mode)
{
    struct stat sb;
    if (stat(path, &sb) != 0) {
        if (gw_make_dirs(path, mode) != 0)
            return 0;
        chmod(path, mode); /* umask may have narrowed it */
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
        if (usable_dir(out, 01777))
            return 0;
        snprintf(err, errlen, "GPUWATCH_LOCK_DIR=%s: cannot create or write the folder: %s", env, strerror(errno));
        return -1;
    }
    gw_strlcpy(out, "/run/gpuwatch", n);
    if (usable_dir(out, 01777))
        return 0;
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    if (xdg && *xdg) {
        snprintf(out, n, "%s/gpuwatch", xdg);
        if (usable_dir(out, 0700))
            return 0;
    }
    snprintf(out, n, "/tmp/gpuwatch-%u", (unsigned)getuid());
    if (usable_dir(out, 0700))
        return 0;
    snprintf(err, errlen,
             "no folder for GPU reservations: /run/gpuwatch, $XDG_RUNTIME_DIR/gpuwatch and %s "
             "cannot be written (set GPUWATCH_LOCK_DIR)",
             out);
    return -1;
}

static int ofd_lock(int fd, int wait)
{
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
    int rc;
    do
        rc = fcntl(fd, wait ? F_OFD_SETLKW : F_OFD_SETLK, &fl);
    while (rc != 0 && errno == EINTR);
    return rc;
}

/* 1 when another open file description holds a lock on fd's file. */
static int ofd_locked(int fd)
{
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
    if (fcntl(fd, F_OFD_GETLK, &fl) != 0)
        return 0;
    return fl.l_type != F_UNLCK;
}

int reserve_placement_lock(const char *dir, char *err, size_t errlen)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/placement.lock", dir);
    mode_t old = umask(0);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    umask(old);
    if (fd < 0 || ofd_lock(fd, 1) != 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

static void lock_path(const char *dir, const char *uuid, char *out, size_t n)
{
    char safe[128];
    size_t k = 0;
    for (const char *p = uuid; *p && k + 1 < sizeof safe; p++)
        safe[k++] = (*p == '/' || *p == '.' || *p <= ' ') ? '_' : *p;
    safe[k] = 0;
    snprintf(out, n, "%s/" PREFIX "%s" SUFFIX, dir, safe);
}

/* key=value lines; unknown keys ignored. */
static void parse_owner(const char *text, reserve_owner *o)
{
    memset(o, 0, sizeof *o);
    o->gpu = -1;
    const char *line = text;
    while (line && *line) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        char buf[512];
        if (len >= sizeof buf)
            len = sizeof buf - 1;
        memcpy(buf, line, len);
        buf[len] = 0;
        char *eq = strchr(buf, '=');
        if (eq) {
            *eq = 0;
            const char *v = eq + 1;
            if (strcmp(buf, "pid") == 0)
                o->pid = strtol(v, NULL, 10);
            else if (strcmp(buf, "user") == 0)
                gw_strlcpy(o->user, v, sizeof o->user);
            else if (strcmp(buf, "job") == 0)
                gw_strlcpy(o->job, v, sizeof o->job);
            else if (strcmp(buf, "name") == 0)
                gw_strlcpy(o->name, v, sizeof o->name);
            else if (strcmp(buf, "since") == 0)
                o->since_s = strtoll(v, NULL, 10);
            else if (strcmp(buf, "gpu") == 0)
                o->gpu = (int)strtol(v, NULL, 10);
            else if (strcmp(buf, "command") == 0)
                gw_strlcpy(o->command, v, sizeof o->command);
        }
        line = nl ? nl + 1 : NULL;
    }
}

static int read_owner(int fd, reserve_owner *o)
{
    char text[2048];
    ssize_t r = pread(fd, text, sizeof text - 1, 0);
    if (r <= 0) {
        memset(o, 0, sizeof *o);
        return 0;
    }
    text[r] = 0;
    parse_owner(text, o);
    return o->pid > 0;
}

static reserve_state state_of(int fd, reserve_owner *owner)
{
    reserve_owner tmp;
    reserve_owner *o = owner ? owner : &tmp;
    int named = read_owner(fd, o);
    if (ofd_locked(fd))
        return RESERVE_HELD;
    return named ? RESERVE_STALE : RESERVE_FREE;
}

reserve_state reserve_check(const char *dir, const char *uuid, reserve_owner *owner)
{
    char path[4300];
    lock_path(dir, uuid, path, sizeof path);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (owner)
            memset(owner, 0, sizeof *owner);
        return RESERVE_FREE;
    }
    reserve_state st = state_of(fd, owner);
    close(fd);
    return st;
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

int reserve_take(const char *dir, const char *uuid, const reserve_owner *me, char *err, size_t errlen)
{
    char path[4300];
    lock_path(dir, uuid, path, sizeof path);
    mode_t old = umask(0);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    umask(old);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    if (ofd_lock(fd, 0) != 0) {
        snprintf(err, errlen, "%s: held by another run", path);
        close(fd);
        return -1;
    }
    char text[1024], num[32];
    size_t len = 0;
    text[0] = 0;
    snprintf(num, sizeof num, "%ld", me->pid);
    put_field(text, sizeof text, &len, "pid", num);
    put_field(text, sizeof text, &len, "user", me->user);
    put_field(text, sizeof text, &len, "job", me->job);
    put_field(text, sizeof text, &len, "name", me->name);
    snprintf(num, sizeof num, "%lld", (long long)me->since_s);
    put_field(text, sizeof text, &len, "since", num);
    snprintf(num, sizeof num, "%d", me->gpu);
    put_field(text, sizeof text, &len, "gpu", num);
    put_field(text, sizeof text, &len, "command", me->command);
    if (ftruncate(fd, 0) != 0 || pwrite(fd, text, len, 0) != (ssize_t)len) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

void reserve_release(int fd)
{
    if (fd < 0)
        return;
    if (ftruncate(fd, 0) != 0) {
        /* the lock goes with the descriptor anyway; the file only looks stale */
    }
    close(fd);
}

int reserve_list(const char *dir, void (*cb)(void *ctx, const char *uuid, reserve_state st, const reserve_owner *o),
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
        char uuid[128];
        size_t ulen = len - strlen(PREFIX) - strlen(SUFFIX);
        if (ulen >= sizeof uuid)
            continue;
        memcpy(uuid, e->d_name + strlen(PREFIX), ulen);
        uuid[ulen] = 0;
        reserve_owner o;
        reserve_state st = reserve_check(dir, uuid, &o);
        cb(ctx, uuid, st, &o);
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
