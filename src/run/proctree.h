/* proctree.h - the job's process tree on the host (the child and every descendant, from the process
 * table, proc_table.h), with its CPU use since the previous read and its resident memory. */
#ifndef GPUWATCH_RUN_PROCTREE_H
#define GPUWATCH_RUN_PROCTREE_H

#include <sys/types.h>
#include "proc_table.h"
#include "run_data.h"

#define PROCTREE_MAX 4096

typedef struct proctree {
    proc_table *t;  /* every process of the host, read again at each read */
    unsigned *pids; /* PROCTREE_MAX: the tree, breadth first */
} proctree;

/* 0, or -1 when out of memory. */
int proctree_init(proctree *t);
void proctree_free(proctree *t);
/* Reads the tree under root: its pids (up to max) and, in *out, CPU and RSS. Returns the count. */
int proctree_read(proctree *t, pid_t root, pid_t *pids, int max, run_host_point *out);

#endif
