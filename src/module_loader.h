/* module_loader.h - finds and loads the command modules (see modules/module_api.h). */
#ifndef GPUWATCH_MODULE_LOADER_H
#define GPUWATCH_MODULE_LOADER_H

#include <stddef.h>
#include "args.h"

/* Runs the command `command` of module `module` (e.g. "agent"): loads the module and calls the
 * command with argc/argv. A module that cannot be loaded is one clear line and exit status 3. */
int module_run(const char *module, const char *command, int argc, char **argv);
/* Visits the options of that command, or of its subcommand sub (completion). 0, or -1 after a line
 * on stderr when the module cannot be loaded. */
int module_options(const char *module, const char *command, const char *sub, gw_opt_visit *fn, void *ctx);

/* The directory holding the gpuwatch program ("." when unknown). */
void program_dir(char *out, size_t n);

#endif
