/* procinfo.h - what /proc says about a process: user, command line, container/job, CPU, RSS. */
#ifndef GPUWATCH_PROCINFO_H
#define GPUWATCH_PROCINFO_H

#include "sample.h"

/* Fills name (when empty), cmdline, user, container, rss, start time from /proc/<pid>.
 * Returns 0 when the pid is visible here, -1 when not (fields left as they were). */
int procinfo_fill(gpu_proc *p);

/* Container / Kubernetes pod / Slurm job / systemd unit from one /proc/<pid>/cgroup text. */
void procinfo_container_from_cgroup(const char *cgroup_text, char *out, size_t outlen);

#endif
