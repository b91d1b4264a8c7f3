/* common.c - what the harnesses share (common.h). */
#include "common.h"
#include "util.h"
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *fuzz_text(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        return NULL;
    memcpy(s, data, size);
    s[size] = 0;
    return s;
}

const char *fuzz_dir(void)
{
    static char dir[PATH_MAX];
    if (!dir[0]) {
        const char *tmp = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/gw-fuzz-%d", tmp && *tmp ? tmp : "/tmp", (int)getpid());
        mkdir(dir, 0700);
    }
    return dir;
}

const char *fuzz_file(const char *name, const void *data, size_t size)
{
    static char path[PATH_MAX];
    int n = snprintf(path, sizeof path, "%s/%s", fuzz_dir(), name);
    if (n < 0 || (size_t)n >= sizeof path)
        return NULL;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0)
        return NULL;
    const char *p = data;
    while (size) {
        ssize_t w = write(fd, p, size);
        if (w <= 0) {
            close(fd);
            return NULL;
        }
        p += w;
        size -= (size_t)w;
    }
    close(fd);
    return path;
}

void fuzz_quiet(void)
{
    gw_log_set_level(GW_LOG_ERROR);
}

unsigned fuzz_take_byte(fuzz_fields *f)
{
    if (!f->left)
        return 0;
    f->left--;
    return *f->p++;
}

const char *fuzz_take_str(fuzz_fields *f)
{
    size_t n = 0;
    while (n < f->left && f->p[n])
        n++;
    if (f->nstrs == (int)(sizeof f->strs / sizeof f->strs[0]))
        return "";
    char *s = fuzz_text(f->p, n);
    if (!s)
        return "";
    f->strs[f->nstrs++] = s;
    f->p += n < f->left ? n + 1 : n;
    f->left -= n < f->left ? n + 1 : n;
    return s;
}

void fuzz_fields_free(fuzz_fields *f)
{
    for (int i = 0; i < f->nstrs; i++)
        free(f->strs[i]);
    f->nstrs = 0;
}
