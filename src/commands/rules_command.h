/* rules_command.h - `gpuwatch rules check FILE...` and `gpuwatch rules test FILE...` (the rules
 * module). */
#ifndef GPUWATCH_RULES_COMMAND_H
#define GPUWATCH_RULES_COMMAND_H

#include "args.h"

int cmd_rules(int argc, char **argv);
/* Its options and subcommands, for completion (gw_args_each_option). */
void rules_options(const char *sub, gw_opt_visit *fn, void *ctx);

#endif
