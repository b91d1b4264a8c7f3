/* history_agent.h - history plugged into the agent: the `history:` config section, the hooks that
 * record every sample/process list/event, /api/v1/query_range and gpuwatch_history_* series. */
#ifndef GPUWATCH_HISTORY_AGENT_H
#define GPUWATCH_HISTORY_AGENT_H

#include "agent/agent.h"
#include "history/history.h"

/* Reads the `history:` section (enabled, path, flush_interval, raw_retention, rollup_retention,
 * max_size) into cfg_out, the path into path; errors go to cfg with config_error. The environment
 * variable GPUWATCH_HISTORY_DB (set by `gpuwatch agent --db PATH`) overrides history.path.
 * Returns 0, or -1 when the section has errors. */
int history_settings_read(gw_config *cfg, history_config *out, char *path, size_t n, int *enabled);
void history_config_check(gw_config *cfg);
int history_agent_attach(agent *a, gw_config *cfg);
/* The history an attached history plugin records into, or NULL (history off or not attached).
 * Others (alerts) record events into it from the sampler thread (hooks run before on_stop). */
history *history_agent_store(agent *a);

#endif
