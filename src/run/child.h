/* child.h - the job's process: started with its CPUs bound, its output coming through gpuwatch run
 * (a pseudo-terminal when ours is a terminal, so the job behaves as on one: line-buffered output and
 * progress bars; pipes otherwise) and relayed unchanged and in order, signals passed through, and
 * its exit status. The job leads its own session; its whole process group is sent SIGTERM when
 * gpuwatch run dies, however it dies (a guard process), and its processes hold its GPUs' locks for
 * as long as any of them lives. */
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
    int out_fd;   /* pty master, or the job's stdout pipe */
    int err_fd;   /* the job's stderr pipe; -1 with a pty */
    pid_t guard;  /* ends the job's process group if we die (0: none) */
    int guard_fd; /* our end of its pipe */
} run_child;

/* Whether a job started now gets a pseudo-terminal (our stdout and stderr are terminals). */
int child_wants_pty(void);

/* Starts argv (its environment is ours: set CUDA_VISIBLE_DEVICES and friends first) in a session
 * of its own, whose process group (id c->pid) is what signals are passed to. mask: the signal mask
 * the job starts with. keep: descriptors the job inherits (the GPUs' lock files: a GPU stays
 * reserved until the last of the job's processes has ended). 0, or the exit status to give (126
 * cannot run, 127 not found, 1 other) with the reason in err. */
int child_start(run_child *c, char *const *argv, const run_binding *b, const sigset_t *mask, const int *keep, int nkeep,
                char *err, size_t n);

/* Relays the job's output to our stdout (stderr pipe to our stderr), feeds sp (may be NULL), and
 * passes signals read from sigfd (a signalfd of the passed signals and SIGCHLD) to the job's process
 * group (SIGTSTP stops the job and us), until the job has exited and its output is drained. Returns
 * the job's wait status. */
int child_relay(run_child *c, int sigfd, step_parser *sp);

#endif
