/* smi_report.h - `gpuwatch -q`: nvidia-smi -q's text report for the fields gpuwatch reads. */
#ifndef GPUWATCH_SMI_REPORT_H
#define GPUWATCH_SMI_REPORT_H

#include <stddef.h>
#include <stdio.h>

/* argv[0] is the command name ("-q"); the options are -d, -i, -l / -lms, -f. Returns the exit status. */
int smi_report_run(int argc, char **argv);

/* -d's list ("MEMORY,temperature", any case) into section bits. Returns 0, or -1 with a message in
 * err (naming the closest section for a typo). */
int smi_report_parse_display(const char *list, unsigned *out, char *err, size_t errlen);

/* A process's name as nvidia-smi prints it: argv[0] of its command line, else its short name.
 * Returns 0 (and N/A in out) when there is neither. */
struct gpu_proc;
int smi_process_name(const struct gpu_proc *p, char *out, size_t n);

/* The sections -d takes, one a line (shell completion). */
void smi_report_sections(FILE *f);

#endif
