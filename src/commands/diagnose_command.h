/* diagnose_command.h - `gpuwatch diagnose`: the detectors over a source, findings printed (the
 * diagnose module). */
#ifndef GPUWATCH_DIAGNOSE_COMMAND_H
#define GPUWATCH_DIAGNOSE_COMMAND_H

int cmd_diagnose(int argc, char **argv);

#endif
