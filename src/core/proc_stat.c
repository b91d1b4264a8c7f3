/* proc_stat.c - the one parser of /proc/PID/stat (see proc_stat.h). */
#include "proc_stat.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "files.h"

int proc_stat_parse(const char *text, proc_stat *out)
{
    memset(out, 0, sizeof *out);
    const char *lp = strchr(text, '('), *rp = strrchr(text, ')'); /* comm may hold ( ) and spaces */
    if (!lp || !rp || rp < lp || !rp[1])
        return -1;
    size_t len = (size_t)(rp - lp - 1);
    if (len >= sizeof out->comm)
        len = sizeof out->comm - 1;
    memcpy(out->comm, lp + 1, len);
    out->comm[len] = 0;
    /* After comm: state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime
     * cutime cstime priority nice threads itrealvalue starttime vsize rss (fields 3 to 24). */
    const char *p = rp + 2;
    out->state = *p;
    int field = 3, got = 0;
    while (*p && field < 24) {
        while (*p && *p != ' ')
            p++;
        if (!*p)
            break;
        p++;
        field++;
        char *end;
        if (field == 4 || field == 14 || field == 15 || field == 22 || field == 24) {
            long long v = strtoll(p, &end, 10);
            if (end == p)
                return -1;
            got++;
            if (field == 4)
                out->ppid = (unsigned)v;
            else if (field == 14)
                out->utime = (unsigned long long)v;
            else if (field == 15)
                out->stime = (unsigned long long)v;
            else if (field == 22)
                out->start_ticks = (unsigned long long)v;
            else
                out->rss_pages = v;
        }
    }
    return got == 5 ? 0 : -1;
}

int proc_stat_read(const char *root, unsigned pid, proc_stat *out)
{
    char path[96], buf[1024];
    snprintf(path, sizeof path, "%s/%u/stat", root ? root : "/proc", pid);
    if (pid == 0 || gw_read_small(path, buf, sizeof buf) <= 0)
        return -1;
    return proc_stat_parse(buf, out);
}
