/* plugins.h - the layers that plug into the agent (history, alerts): each may check its config
 * section (for `gpuwatch config check` and startup) and attach hooks (agent_add_hooks). */
#ifndef GPUWATCH_PLUGINS_H
#define GPUWATCH_PLUGINS_H

#include "agent.h"

typedef struct agent_plugin {
    const char *section; /* top-level config key it owns, e.g. "history" */
    /* Records errors with config_error(); NULL = no checks. */
    void (*check)(gw_config *cfg);
    /* Registers hooks with agent_add_hooks(); returns 0, or -1 to stop the agent (log why). */
    int (*attach)(agent *a, gw_config *cfg);
} agent_plugin;

extern const agent_plugin agent_plugins[]; /* ends with {NULL} */

/* Runs every plugin's check; returns the config's error count. */
int plugins_check(gw_config *cfg);

#endif
