/* child.h - the job's process: started with its CPUs bound, its output coming through gpuwatch run
 * (a pseudo-terminal when ours is a terminal, so the job behaves as on one: line-buffered output and
 * progress bars; pipes otherwise) and relayed unchanged and in order, signals passed through, and
 * its exit status. The job dies with gpuwatch run (PR_SET_PDEATHSIG), so a killed run frees its GPUs. */
#ifndef GPUWATCH_RUN_CHILD_H
#define GPUWATCH_RUN_CHILD_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>
#include "host_topo.h"
#include "steps.h"

typedef struct run_child {
    pid_t pid;
    int use_pty;
    int out_fd; /* pty master, or the job's stdout pipe */
    int err_fd; /* the job's stderr pipe; -1 with a pty */
} run_child;

/* Whether a job started now gets a pseudo-terminal (our stdout and stderr are terminals). */
int child_wants_pty(void);

/* Starts argv (its environment is ours: set CUDA_VISIBLE_DEVICES and friends first). mask: the
 * signal mask the job starts with. 0, or the exit status to give (126 cannot run, 127 not found,
 * 1 other) with the reason in err. */
int child_start(run_child *c, char *const *argv, const run_binding *b, const sigset_t *mask, char *err, size_t n);

/* Relays the job's output to our stdout (stderr pipe to our stderr), feeds sp (may be NULL), and
 * passes signals read from sigfd (a signalfd of the passed signals and SIGCHLD) to the job, until the
 * job has exited and its output is drained. Returns the job's wait status. */
int child_relay(run_child *c, int sigfd, step_parser *sp);

#endif
