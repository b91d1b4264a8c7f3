/* agent_commands.h - `gpuwatch agent` and `gpuwatch config check`, run with the plugins the program
 * is assembled with (src/modules/agent_module.c); a NULL-terminated list. */
#ifndef GPUWATCH_AGENT_COMMANDS_H
#define GPUWATCH_AGENT_COMMANDS_H

#include "config.h"
#include "pipeline.h"

int agent_command(int argc, char **argv, const pipeline_plugin *const *plugins);
int config_command(int argc, char **argv, const pipeline_plugin *const *plugins);
/* Their options (the agent's with its plugins'), for completion (gw_args_each_option). */
void agent_options(const pipeline_plugin *const *plugins, const char *sub, gw_opt_visit *fn, void *ctx);
void config_options(const char *sub, gw_opt_visit *fn, void *ctx);

/* Runs every plugin's check on cfg; returns the config's error count. */
int plugins_check(const pipeline_plugin *const *plugins, gw_config *cfg);

#endif
