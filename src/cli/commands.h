/* commands.h - the nvidia-smi style commands built into the gpuwatch program (main.c dispatches to
 * them; the other commands live in modules). Each returns the exit status. */
#ifndef GPUWATCH_COMMANDS_H
#define GPUWATCH_COMMANDS_H

int cmd_list(int argc, char **argv);
int cmd_query(int argc, char **argv);
int cmd_dmon(int argc, char **argv);
int cmd_pmon(int argc, char **argv);
int cmd_version(int argc, char **argv);

#endif
