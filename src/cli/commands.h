/* commands.h - the nvidia-smi style commands built into the gpuwatch program (main.c dispatches to
 * them; the other commands live in modules). Each returns the exit status. */
#ifndef GPUWATCH_COMMANDS_H
#define GPUWATCH_COMMANDS_H

#include "options.h"

int cmd_list(int argc, char **argv);
int cmd_query(int argc, char **argv);
int cmd_dmon(int argc, char **argv);
int cmd_pmon(int argc, char **argv);
int cmd_version(int argc, char **argv);
int cmd_topo(int argc, char **argv);
extern const gw_cmd topo_cmd; /* its options (completion) */

/* list and query after their options were parsed (by their command or the nvidia-smi form), with
 * their options' specs. Return the exit status. */
extern const cli_spec list_spec, query_spec;
/* The other commands' options (completion). */
extern const cli_spec dmon_spec, pmon_spec, version_spec;
int list_print(const cli_opts *o);
int query_print(cli_opts *o);

/* The nvidia-smi form (cmd_smi.c): argv[0] is a name for it, then its options. */
int cmd_smi(int argc, char **argv);
/* Whether an argument is one of the nvidia-smi form's options (main dispatches on it). */
int smi_is_option(const char *arg);
/* Visits the nvidia-smi form's options gpuwatch answers (completion, "did you mean"). */
void smi_each_option(gw_opt_visit *fn, void *ctx);

#endif
