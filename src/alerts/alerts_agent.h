/* alerts_agent.h - how the agent plugs the alert engine in (src/agent/plugins.c lists these). */
#ifndef GPUWATCH_ALERTS_AGENT_H
#define GPUWATCH_ALERTS_AGENT_H

#include "agent/agent.h"

/* Checks the `alerts:` section and every rule file it names (errors via config_error). */
void alerts_config_check(gw_config *cfg);
/* Builds the engine and receivers from the config and registers the hooks. 0, or -1 (logged). */
int alerts_agent_attach(agent *a, gw_config *cfg);

/* Alert events: every alert that starts firing or resolves is passed to fn as
 * (arg, t_us, gpu or -1, "alert", "alertname=... state=firing severity=... value=... summary=\"...\"").
 * from the sampler thread (at the round after the evaluation). When the history plugin is attached
 * (before alerts), attach sends them to history_record_event; this replaces the destination.
 * Returns 0, or -1 when the alerts plugin is not attached to a. */
typedef void (*alerts_event_fn)(void *arg, uint64_t t_us, int gpu, const char *kind, const char *detail);
int alerts_agent_set_event_sink(agent *a, alerts_event_fn fn, void *arg);

#endif
