/* query_procs.h - compute processes: `gpuwatch query --processes` (pid, process_name, gpu_uuid,
 * used_gpu_memory, user, container) and `--query-compute-apps=F,...` with nvidia-smi's fields
 * (timestamp, gpu_name, gpu_bus_id, gpu_serial, gpu_uuid, pid, process_name, used_gpu_memory) and
 * gpuwatch's user and container. */
#ifndef GPUWATCH_QUERY_PROCS_H
#define GPUWATCH_QUERY_PROCS_H

#include <stdio.h>
#include "sampler.h"
#include "options.h"

#define PROC_FIELDS_DEFAULT "pid,process_name,gpu_uuid,used_gpu_memory,user,container"
#define PROC_FIELDS_MAX 64

typedef struct proc_fields {
    int n;
    int col[PROC_FIELDS_MAX]; /* column ids (query_procs.c) */
} proc_fields;

/* "F,F,..." by nvidia-smi's names and aliases (name, used_memory) plus user and container. Returns
 * 0, or CLI_USAGE after printing the error (with the closest name for a typo). */
int proc_fields_parse(const char *cmd, const char *list, proc_fields *out);
/* The accepted names, one a line, with a description (for --help-query-compute-apps). */
void proc_fields_help(FILE *f);
/* The same in nvidia-smi --help-query-compute-apps's layout. */
void proc_fields_help_smi(FILE *f);
/* Every accepted name (and alias), one a line (shell completion). */
void proc_fields_names(FILE *f);
/* Offers every accepted name to a "did you mean". */
void proc_fields_offer_names(gw_suggest *s);

/* Prints the compute processes of the selected GPUs in o->format to out; the csv/table header only
 * when header is set (a loop prints it once). Returns the exit status. */
int query_processes(sampler *s, const unsigned char *sel, const cli_opts *o, const proc_fields *pf, FILE *out,
                    int header);

#endif
