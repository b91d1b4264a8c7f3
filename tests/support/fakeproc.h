/* fakeproc.h - a fake /proc for tests of what reads it (the process table, top's family tree). */
#ifndef GPUWATCH_FAKEPROC_H
#define GPUWATCH_FAKEPROC_H

#include <stddef.h>

/* Writes ROOT/PID/stat (the fields gpuwatch reads: name, parent, utime, stime 50, start and 2560
 * resident pages) and ROOT/PID/cmdline (len bytes of cmdline, NULs between the arguments). Returns
 * 0, or -1 when a file cannot be written. */
int fakeproc_write(const char *root, unsigned pid, unsigned ppid, const char *comm, unsigned long long utime,
                   unsigned long long start_ticks, const char *cmdline, size_t len);

#endif
