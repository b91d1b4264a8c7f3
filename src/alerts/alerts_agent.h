/* alerts_agent.h - how the agent plugs the alert engine in (src/agent/plugins.c lists these). */
#ifndef GPUWATCH_ALERTS_AGENT_H
#define GPUWATCH_ALERTS_AGENT_H

#include "agent/agent.h"

/* Checks the `alerts:` section and every rule file it names (errors via config_error). */
void alerts_config_check(gw_config *cfg);
/* Builds the engine and receivers from the config and registers the hooks. 0, or -1 (logged). */
int alerts_agent_attach(agent *a, gw_config *cfg);

#endif
