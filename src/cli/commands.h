/* commands.h - the nvidia-smi style commands built into the gpuwatch program (main.c dispatches to
 * them; the other commands live in modules). Each returns the exit status. */
#ifndef GPUWATCH_COMMANDS_H
#define GPUWATCH_COMMANDS_H

int cmd_list(int argc, char **argv);
int cmd_query(int argc, char **argv);
int cmd_dmon(int argc, char **argv);
int cmd_pmon(int argc, char **argv);
int cmd_version(int argc, char **argv);
int cmd_topo(int argc, char **argv);

/* The nvidia-smi form (cmd_smi.c): argv holds the options only (no program or command name). */
int cmd_smi(int argc, char **argv);
/* Whether an argument is one of the nvidia-smi form's options (main dispatches on it). */
int smi_is_option(const char *arg);
/* Offers the nvidia-smi form's options to a "did you mean" (suggest.h). */
struct gw_suggest;
void smi_offer_options(struct gw_suggest *s);

#endif
