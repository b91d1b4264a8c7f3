/* files.c - reading whole files (see files.h). */
#include "files.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The null device, read: an empty file ("--config /dev/null"), as every tool takes it. */
static int is_null_read(const struct stat *sb, int flags, unsigned opts)
{
    struct stat null;
    return (flags & O_ACCMODE) == O_RDONLY && !(flags & O_CREAT) && !opts && S_ISCHR(sb->st_mode) &&
           stat("/dev/null", &null) == 0 && S_ISCHR(null.st_mode) && null.st_rdev == sb->st_rdev;
}

/* why for a file that is there but is not what was asked for; errno is set to match. */
static int refuse(const struct stat *sb, int flags, unsigned opts, char *why, size_t whylen)
{
    if (is_null_read(sb, flags, opts))
        return 0;
    if (!S_ISREG(sb->st_mode)) {
        snprintf(why, whylen, "%s", S_ISDIR(sb->st_mode) ? "a folder, not a file" : "not a regular file");
        errno = S_ISDIR(sb->st_mode) ? EISDIR : EINVAL;
        return -1;
    }
    if (!(opts & GW_OPEN_OWNED))
        return 0;
    if (sb->st_uid != geteuid() && sb->st_uid != 0) {
        snprintf(why, whylen, "owned by uid %u, not by you (uid %u) or root", (unsigned)sb->st_uid,
                 (unsigned)geteuid());
        errno = EPERM;
        return -1;
    }
    if (sb->st_nlink != 1) {
        snprintf(why, whylen, "has %lu names (a hard link)", (unsigned long)sb->st_nlink);
        errno = EPERM;
        return -1;
    }
    return 0;
}

int gw_open_file(const char *path, int flags, unsigned mode, unsigned opts, char *why, size_t whylen)
{
    int nofollow = (opts & (GW_OPEN_NOFOLLOW | GW_OPEN_OWNED)) != 0;
    int base = (flags & O_ACCMODE) | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | (nofollow ? O_NOFOLLOW : 0);
    struct stat sb;
    int fd = -1;
    /* A file that exists is looked at before it is opened (opening a device can act on it) and again
     * after (it may have been swapped in between); a missing one is made with O_EXCL, which never
     * follows a link. A race with another creator loops a few times. */
    for (int tries = 0; fd < 0 && tries < 8; tries++) {
        int found = (nofollow ? lstat(path, &sb) : stat(path, &sb)) == 0;
        if (found && S_ISLNK(sb.st_mode)) {
            snprintf(why, whylen, "a link (refused here: another user could have put it there)");
            errno = ELOOP;
            return -1;
        }
        if (found && refuse(&sb, flags, opts, why, whylen) != 0)
            return -1;
        if (found) {
            fd = open(path, base);
            if (fd < 0 && errno == ENOENT)
                continue;
        } else if (errno == ENOENT && (flags & O_CREAT)) {
            fd = open(path, base | O_CREAT | O_EXCL | O_NOFOLLOW, (mode_t)mode);
            if (fd < 0 && errno == EEXIST && lstat(path, &sb) == 0 && S_ISLNK(sb.st_mode)) {
                snprintf(why, whylen, "a link to a missing file (nothing is created through a link)");
                errno = ELOOP;
                return -1;
            }
            if (fd < 0 && errno == EEXIST)
                continue;
        }
        if (fd < 0) {
            snprintf(why, whylen, "%s", errno == ELOOP ? "a link (refused here)" : strerror(errno));
            return -1;
        }
    }
    if (fd < 0) {
        snprintf(why, whylen, "%s", "keeps changing while being opened");
        errno = EAGAIN;
        return -1;
    }
    if (fstat(fd, &sb) != 0 || refuse(&sb, flags, opts, why, whylen) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    if ((flags & O_TRUNC) && (flags & O_ACCMODE) != O_RDONLY && ftruncate(fd, 0) != 0) {
        int saved = errno;
        snprintf(why, whylen, "%s", strerror(errno));
        close(fd);
        errno = saved;
        return -1;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, (fl & ~O_NONBLOCK) | (flags & O_APPEND));
    return fd;
}

int gw_private_dir(const char *dir, char *why, size_t whylen)
{
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
        snprintf(why, whylen, "%s: %s", dir, strerror(errno));
        return -1;
    }
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) != 0) {
        snprintf(why, whylen, "%s: %s", dir,
                 errno == ELOOP || errno == ENOTDIR ? "not a real folder (a link or a file)" : strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    int rc = -1;
    if (sb.st_uid != geteuid())
        snprintf(why, whylen, "%s: owned by uid %u, not by you (uid %u)", dir, (unsigned)sb.st_uid,
                 (unsigned)geteuid());
    else if ((sb.st_mode & 077) && fchmod(fd, 0700) != 0) /* ours: an older gpuwatch made it 0755 */
        snprintf(why, whylen, "%s: mode %04o lets others in and cannot be changed: %s", dir,
                 (unsigned)(sb.st_mode & 07777), strerror(errno));
    else
        rc = 0;
    close(fd);
    return rc;
}

int gw_shared_dir(const char *dir)
{
    struct stat sb;
    if (lstat(dir, &sb) != 0 && errno == ENOENT && geteuid() == 0 && mkdir(dir, 01777) == 0)
        chmod(dir, 01777); /* umask narrowed it */
    if (lstat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode) || sb.st_uid != 0)
        return 0;
    if ((sb.st_mode & 0022) && !(sb.st_mode & S_ISVTX))
        return 0;
    return access(dir, W_OK | X_OK) == 0;
}

char *gw_read_file(const char *path, size_t max, size_t *len, char *why, size_t whylen)
{
    int fd = gw_open_file(path, O_RDONLY, 0, 0, why, whylen);
    if (fd < 0)
        return NULL;
    return gw_read_fd(fd, max, len, why, whylen);
}

char *gw_read_fd(int fd, size_t max, size_t *len, char *why, size_t whylen)
{
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (!buf) {
            snprintf(why, whylen, "out of memory");
            break;
        }
        if (n == cap - 1) {
            if (cap - 1 > max) {
                snprintf(why, whylen, "larger than %zu bytes", max);
                errno = 0;
                break;
            }
            char *grown = realloc(buf, cap * 2);
            if (!grown) {
                snprintf(why, whylen, "out of memory");
                break;
            }
            buf = grown;
            cap *= 2;
        }
        ssize_t got = read(fd, buf + n, cap - 1 - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            snprintf(why, whylen, "%s", strerror(errno));
            break;
        }
        if (got == 0) {
            if (n > max) {
                snprintf(why, whylen, "larger than %zu bytes", max);
                errno = 0;
                break;
            }
            close(fd);
            buf[n] = 0;
            if (len)
                *len = n;
            return buf;
        }
        n += (size_t)got;
    }
    int saved = errno;
    free(buf);
    close(fd);
    errno = saved;
    return NULL;
}

int gw_make_dirs(const char *dir, unsigned mode)
{
    char tmp[4096];
    size_t n = strlen(dir);
    if (n == 0 || n >= sizeof tmp) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(tmp, dir, n + 1);
    for (char *p = tmp + 1;; p++) {
        if (*p != '/' && *p != 0)
            continue;
        char c = *p;
        *p = 0;
        if (mkdir(tmp, (mode_t)mode) != 0 && errno != EEXIST)
            return -1;
        if (c == 0)
            return 0;
        *p = c;
    }
}

long gw_read_small(const char *path, char *buf, size_t n)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t got = 0;
    while (got + 1 < n) {
        ssize_t r = read(fd, buf + got, n - 1 - got);
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    buf[got] = 0;
    return (long)got;
}

int gw_make_parent_dirs(const char *path)
{
    char dir[4096];
    size_t n = strlen(path);
    if (n >= sizeof dir) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(dir, path, n + 1);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return 0;
    *slash = 0;
    return gw_make_dirs(dir, 0755);
}

int gw_write_file(const char *path, const void *data, size_t len, char *why, size_t whylen)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) {
        snprintf(why, whylen, "%s", strerror(errno));
        return -1;
    }
    const char *p = data;
    int e = 0;
    while (len > 0 && !e) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            e = w < 0 ? errno : EIO;
            break;
        }
        p += w;
        len -= (size_t)w;
    }
    /* closed once, whatever happened; a failing close (NFS, a full disk) is a failed write too */
    if (close(fd) != 0 && !e && errno != EINTR)
        e = errno;
    if (e) {
        snprintf(why, whylen, "%s", strerror(e));
        errno = e;
        return -1;
    }
    return 0;
}

int gw_check_writable_path(const char *path, char *why, size_t whylen)
{
    struct stat sb;
    if (stat(path, &sb) == 0) {
        if (S_ISDIR(sb.st_mode)) {
            snprintf(why, whylen, "is a folder");
            return -1;
        }
        if (access(path, W_OK) != 0) {
            snprintf(why, whylen, "%s", strerror(errno));
            return -1;
        }
        return 0;
    }
    char dir[4096];
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    if (stat(dir, &sb) != 0) {
        snprintf(why, whylen, "no folder %s (%s)", dir, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(sb.st_mode)) {
        snprintf(why, whylen, "%s is not a folder", dir);
        return -1;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        snprintf(why, whylen, "cannot write in %s (%s)", dir, strerror(errno));
        return -1;
    }
    return 0;
}

int gw_regular_or_missing(const char *path, char *why, size_t whylen)
{
    struct stat sb;
    if (stat(path, &sb) != 0 || S_ISREG(sb.st_mode))
        return 0;
    const char *what = S_ISFIFO(sb.st_mode)                         ? "a FIFO"
                       : S_ISDIR(sb.st_mode)                        ? "a folder"
                       : S_ISCHR(sb.st_mode) || S_ISBLK(sb.st_mode) ? "a device"
                       : S_ISSOCK(sb.st_mode)                       ? "a socket"
                                                                    : "not a regular file";
    snprintf(why, whylen, "%s, not a regular file", what);
    return -1;
}
