/* history_commands.h - `gpuwatch history` (with history export and history check) and `gpuwatch
 * events`: the history file read back for people and scripts (the history module). */
#ifndef GPUWATCH_HISTORY_COMMANDS_H
#define GPUWATCH_HISTORY_COMMANDS_H

int cmd_history(int argc, char **argv);
int cmd_events(int argc, char **argv);

#endif
