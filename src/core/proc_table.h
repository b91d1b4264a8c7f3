/* proc_table.h - the one table of the host's processes as /proc tells them: a process's parent,
 * name, start, CPU time, resident memory and its CPU use between two readings, with state the
 * caller owns (the sampler's for the GPU processes it reads, top's, gpuwatch run's for a job's
 * tree, a family tree's for one look). A process is known by its pid and start time: a pid reused
 * by another process starts over. One way to compute CPU use: the ticks between two readings of
 * one process over the time between them; at its first reading, since it started (as ps). Every
 * path is under the table's root ("/proc", or a fake one in tests). Thread safe. */
#ifndef GPUWATCH_PROC_TABLE_H
#define GPUWATCH_PROC_TABLE_H

#include <stddef.h>
#include <stdint.h>

#define PROC_TABLE_MAX_FDS 256            /* stat files kept open at most (keep_open) */
#define PROC_TABLE_FORGET_US 600000000ull /* a process not read for this long (10 min) is forgotten */

typedef struct proc_entry {
    unsigned pid, ppid;
    char comm[64];
    unsigned long long start_ticks; /* clock ticks since boot: with the pid, which process it is */
    unsigned long long cpu_ticks;   /* utime + stime */
    uint64_t start_time_s;          /* unix seconds (0: unknown) */
    double rss_mib;
    double cpu_percent; /* 100: one CPU; since its previous reading, or since it started */
    uint64_t read_us;   /* when it was read (CLOCK_MONOTONIC) */
} proc_entry;

typedef struct proc_table proc_table;

/* A table of the processes under root (NULL: "/proc"). keep_open: the stat file of a process read
 * on its own (proc_table_read) stays open, up to PROC_TABLE_MAX_FDS, so that the next reading is
 * one pread, and a reading of a process that has exited fails even if its pid was reused (top). NULL
 * when out of memory. */
proc_table *proc_table_new(const char *root, int keep_open);
void proc_table_free(proc_table *t); /* closes its files */
const char *proc_table_root(const proc_table *t);

/* Reads one process now (its stat line) into *out. Returns 0, or -1 when it is not visible here
 * (another pid namespace) or gone: then the table forgets it. */
int proc_table_read(proc_table *t, unsigned pid, proc_entry *out);
/* The table no longer follows pid (its stat file is closed): the next reading starts over. */
void proc_table_forget(proc_table *t, unsigned pid);

/* Reads every process under the root, forgetting those gone. Returns how many, -1 when the root
 * cannot be listed. */
int proc_table_scan(proc_table *t);
/* After a scan: pid and its descendants (breadth first, pid first) into out, at most max, and the
 * sum of their CPU use and resident memory into *cpu_percent and *rss_mib (may be NULL). Returns how
 * many (0: pid is not there). */
int proc_table_subtree(proc_table *t, unsigned pid, unsigned *out, int max, double *cpu_percent, double *rss_mib);
/* After a scan: the processes, sorted by pid (at most max copied into out). Returns how many the
 * table holds. */
int proc_table_list(proc_table *t, proc_entry *out, int max);

/* The command line of a process under root with spaces between its arguments ("" for a kernel
 * thread). 0, or -1 when it cannot be read. */
int proc_read_cmdline(const char *root, unsigned pid, char *out, size_t n);

#endif
