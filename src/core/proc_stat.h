/* proc_stat.h - the one parser of /proc/PID/stat: the fields gpuwatch reads of a process (its
 * name, state, parent, CPU time, start and resident size), for the agent's process details, top
 * and gpuwatch run. */
#ifndef GPUWATCH_PROC_STAT_H
#define GPUWATCH_PROC_STAT_H

typedef struct proc_stat {
    char comm[64];
    char state;
    unsigned ppid;
    unsigned long long utime, stime, start_ticks; /* clock ticks; start: since boot */
    long long rss_pages;
} proc_stat;

/* Parses the text of a stat file (comm may hold spaces and parentheses). 0, or -1 when a field is
 * missing. */
int proc_stat_parse(const char *text, proc_stat *out);

/* Reads ROOT/PID/stat (root NULL: "/proc"; another root for tests). 0, or -1 when the process is
 * gone, not visible or its file unreadable. */
int proc_stat_read(const char *root, unsigned pid, proc_stat *out);

#endif
