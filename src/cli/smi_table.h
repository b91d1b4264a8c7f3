/* smi_table.h - nvidia-smi's summary table (`gpuwatch` with no command). */
#ifndef GPUWATCH_SMI_TABLE_H
#define GPUWATCH_SMI_TABLE_H

/* argv[0] is a command name; the options are -i, -l / -lms, -f. Returns the exit status. */
int smi_table_run(int argc, char **argv);

#endif
