/* files.c - reading whole files (see files.h). */
#include "files.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *gw_read_file(const char *path, size_t max, size_t *len, char *why, size_t whylen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(why, whylen, "%s", strerror(errno));
        return NULL;
    }
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
