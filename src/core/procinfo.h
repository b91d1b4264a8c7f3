/* procinfo.h - what /proc says about a process: user, command line, container/job, CPU, RSS. */
#ifndef GPUWATCH_PROCINFO_H
#define GPUWATCH_PROCINFO_H

#include "sample.h"

/* Fills name (comm, replacing NVML's), cmdline, user, container, rss, start time and CPU percent from
 * /proc/<pid>. CPU percent is over the time since the previous call for that pid (the first call: since
 * the process started, as ps). Returns 0 when the pid is visible here, -1 when not (fields left as they
 * were: the process keeps what the backend knows). Thread-safe. */
int procinfo_fill(gpu_proc *p);

/* Container / Kubernetes pod / Slurm job / systemd unit from one /proc/<pid>/cgroup text, in
 * workload_format's text form (workload.h). */
void procinfo_container_from_cgroup(const char *cgroup_text, char *out, size_t outlen);

#endif
