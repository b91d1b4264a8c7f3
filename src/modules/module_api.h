/* module_api.h - what a command module exports to the gpuwatch program.
 *
 * The gpuwatch program holds the core, the NVML backend and the nvidia-smi style commands, and
 * links nothing else, so that `query`, `dmon` and friends start fast. The commands that need big
 * libraries (the HTTP server and its TLS chain, SQLite, ncurses) live in modules: shared objects
 * loaded by src/module_loader.c when one of their commands runs. A module's undefined symbols (the
 * core, the backend, the CLI helpers) resolve against the program, which exports them. */
#ifndef GPUWATCH_MODULE_API_H
#define GPUWATCH_MODULE_API_H

#include "args.h"

typedef struct gw_module_command {
    const char *name;
    int (*run)(int argc, char **argv);
    /* Visits the command's options, or its subcommand sub's (gw_args_each_option): completion. */
    void (*options)(const char *sub, gw_opt_visit *fn, void *ctx);
} gw_module_command;

/* Each module defines this table, ended by a {NULL} row. */
extern const gw_module_command gw_module_commands[];

#endif
