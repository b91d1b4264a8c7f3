/* plugins.c - the table of layers plugged into the agent. To plug in, add one line:
 *     {"history", history_config_check, history_agent_attach},
 * with the two functions declared in your layer's header (see plugins.h for their contract). */
#include "plugins.h"
#include "alerts/alerts_agent.h"
#include "history/history_agent.h"

const agent_plugin agent_plugins[] = {
    {"history", history_config_check, history_agent_attach},
    {"alerts", alerts_config_check, alerts_agent_attach},
    {NULL, NULL, NULL},
};

int plugins_check(gw_config *cfg)
{
    for (const agent_plugin *p = agent_plugins; p->section; p++)
        if (p->check)
            p->check(cfg);
    return cfg->nerrors;
}
