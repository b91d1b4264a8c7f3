/* smi_table.h - nvidia-smi's summary table (`gpuwatch` with no command). */
#ifndef GPUWATCH_SMI_TABLE_H
#define GPUWATCH_SMI_TABLE_H

#include "options.h"

/* The table's options (-i, -l / -lms, -f) and its --help, for the nvidia-smi form (cmd_smi.c). */
extern const cli_spec smi_table_spec;
/* Prints the table (every o->loop_s with -l) for the GPUs o->ids selects. Returns the exit status. */
int smi_table_print(const cli_opts *o);

#endif
