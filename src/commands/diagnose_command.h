/* diagnose_command.h - `gpuwatch diagnose`: the detectors over a source, findings printed (the
 * diagnose module). */
#ifndef GPUWATCH_DIAGNOSE_COMMAND_H
#define GPUWATCH_DIAGNOSE_COMMAND_H

#include "args.h"

int cmd_diagnose(int argc, char **argv);
/* Its options, for completion (gw_args_each_option). */
void diagnose_options(const char *sub, gw_opt_visit *fn, void *ctx);

#endif
