/* smi_report.h - `gpuwatch -q`: nvidia-smi -q's text report for the fields gpuwatch reads. */
#ifndef GPUWATCH_SMI_REPORT_H
#define GPUWATCH_SMI_REPORT_H

#include <stddef.h>
#include <stdio.h>
#include "options.h"

/* The report's options (-d, -x, -i, -l / -lms, -f) and its --help, for the nvidia-smi form (cmd_smi.c),
 * which parses them. */
extern const cli_spec smi_report_spec;
/* Prints the report (every o->loop_s with -l) of the GPUs o->ids selects. Returns the exit status. */
int smi_report_print(const cli_opts *o);

/* A process's name as nvidia-smi prints it: argv[0] of its command line, else its short name.
 * Returns 0 (and N/A in out) when there is neither. */
struct gpu_proc;
int smi_process_name(const struct gpu_proc *p, char *out, size_t n);

/* The sections -d takes, one a line (shell completion). */
void smi_report_sections(FILE *f);

#endif
