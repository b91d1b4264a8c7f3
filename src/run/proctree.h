/* proctree.h - the job's process tree on the host (the child and every descendant, from /proc), with
 * its CPU use since the previous read and its resident memory. */
#ifndef GPUWATCH_RUN_PROCTREE_H
#define GPUWATCH_RUN_PROCTREE_H

#include <sys/types.h>
#include "run_data.h"

#define PROCTREE_MAX 4096

typedef struct proctree {
    int nprev;
    pid_t prev_pid[PROCTREE_MAX];
    unsigned long long prev_ticks[PROCTREE_MAX];
    int64_t prev_us;
} proctree;

void proctree_init(proctree *t);
/* Reads the tree under root: its pids (up to max) and, in *out, CPU and RSS. Returns the count. */
int proctree_read(proctree *t, pid_t root, pid_t *pids, int max, run_host_point *out);

#endif
