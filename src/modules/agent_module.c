/* agent_module.c - the agent module: `agent` and `config check`, assembled here with the plugins the
 * agent runs. The agent knows none of them. To add a plugin, write src/plugins/NAME_plugin.c
 * defining `const pipeline_plugin NAME_plugin` (src/pipeline/plugin.h) and add NAME to the list below;
 * plugins start in this order, and their config sections are checked in it. The history comes first:
 * the alerts plugin reads the file it advertises at its start (the alert states of the last run). */
#include "agent_commands.h"
#include "module_api.h"

#define AGENT_PLUGINS(X) X(history) X(alerts) X(diagnosis) X(remote_write)

#define DECLARE(name) extern const pipeline_plugin name##_plugin;
#define ENTRY(name) &name##_plugin,
AGENT_PLUGINS(DECLARE)
static const pipeline_plugin *const plugins[] = {AGENT_PLUGINS(ENTRY) NULL};

static int run_agent(int argc, char **argv)
{
    return agent_command(argc, argv, plugins);
}

static int run_config(int argc, char **argv)
{
    return config_command(argc, argv, plugins);
}

static void agent_opts(const char *sub, gw_opt_visit *fn, void *ctx)
{
    agent_options(plugins, sub, fn, ctx);
}

const gw_module_command gw_module_commands[] = {
    {"agent", run_agent, agent_opts},
    {"config", run_config, config_options},
    {0},
};
