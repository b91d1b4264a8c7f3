/* fakeproc.c - a fake /proc for tests (fakeproc.h). */
#include "fakeproc.h"
#include <stdio.h>
#include <sys/stat.h>

int fakeproc_write(const char *root, unsigned pid, unsigned ppid, const char *comm, unsigned long long utime,
                   unsigned long long start_ticks, const char *cmdline, size_t len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%u", root, pid);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/%u/stat", root, pid);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    int bad = fprintf(f, "%u (%s) S %u 1 1 0 -1 4194304 100 0 0 0 %llu 50 0 0 20 0 1 0 %llu 1000000 2560 0\n", pid,
                      comm, ppid, utime, start_ticks) < 0;
    bad |= fclose(f) != 0;
    snprintf(path, sizeof path, "%s/%u/cmdline", root, pid);
    f = fopen(path, "w");
    if (!f)
        return -1;
    bad |= fwrite(cmdline, 1, len, f) != len;
    bad |= fclose(f) != 0;
    return bad ? -1 : 0;
}
