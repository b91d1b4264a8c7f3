/* agent_module.c - the agent module: `agent` and `config` (HTTP server, TLS, history, alerts). */
#include "modules/module_api.h"
#include "cli/commands.h"

const gw_module_command gw_module_commands[] = {
    {"agent", cmd_agent},
    {"config", cmd_config},
    {0, 0},
};
