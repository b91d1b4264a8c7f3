/* rules_command.h - `gpuwatch rules check FILE...` and `gpuwatch rules test FILE...` (the rules
 * module). */
#ifndef GPUWATCH_RULES_COMMAND_H
#define GPUWATCH_RULES_COMMAND_H

int cmd_rules(int argc, char **argv);

#endif
