/* plugins.h - the plugins of this layer, for the hosts that assemble a pipeline (pipeline.h): the
 * agent (src/modules/agent_module.c) and top's local mode (src/top/local_plugins.c). */
#ifndef GPUWATCH_PLUGINS_H
#define GPUWATCH_PLUGINS_H

#include "plugin.h"

extern const pipeline_plugin history_plugin;   /* the history file: samples, processes, events, alert states */
extern const pipeline_plugin alerts_plugin;    /* the alert rules, their receivers and state */
extern const pipeline_plugin diagnosis_plugin; /* the detectors over a sliding window */

#endif
