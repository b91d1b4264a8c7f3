/* history_commands.h - `gpuwatch history` (with history export and history check) and `gpuwatch
 * events`: the history file read back for people and scripts (the history module). */
#ifndef GPUWATCH_HISTORY_COMMANDS_H
#define GPUWATCH_HISTORY_COMMANDS_H

#include "args.h"

int cmd_history(int argc, char **argv);
int cmd_events(int argc, char **argv);
/* Their options, for completion (gw_args_each_option). */
void history_options(const char *sub, gw_opt_visit *fn, void *ctx);
void events_options(const char *sub, gw_opt_visit *fn, void *ctx);

#endif
