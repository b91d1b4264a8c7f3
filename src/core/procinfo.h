/* procinfo.h - what /proc says about a process: user, command line, container/job, CPU, RSS. */
#ifndef GPUWATCH_PROCINFO_H
#define GPUWATCH_PROCINFO_H

#include "proc_table.h"
#include "sample.h"

/* Fills name (comm, replacing NVML's), cmdline, user, container, rss, start time and CPU percent from
 * t's root (/proc/<pid>). CPU percent is over the time since t's previous reading of that process
 * (the first: since it started, as ps). Returns 0 when the pid is visible here, -1 when not (fields
 * left as they were: the process keeps what the backend knows). *reading (may be NULL): the table's
 * reading of its stat line (left as it was if there was none). Thread-safe. */
int procinfo_fill(proc_table *t, gpu_proc *p, proc_entry *reading);

/* Container / Kubernetes pod / Slurm job / systemd unit from one /proc/<pid>/cgroup text, in
 * workload_format's text form (workload.h). */
void procinfo_container_from_cgroup(const char *cgroup_text, char *out, size_t outlen);

#endif
