/* diagnose_module.c - the diagnose module: `diagnose` (the detectors over history, an agent, live
 * samples or a gpusim replay). */
#include "diagnose_command.h"
#include "module_api.h"

const gw_module_command gw_module_commands[] = {
    {"diagnose", cmd_diagnose, diagnose_options},
    {0},
};
