/* rules_module.c - the rules module: `rules check` and `rules test` (the alert rule engine). */
#include "module_api.h"
#include "rules_command.h"

const gw_module_command gw_module_commands[] = {
    {"rules", cmd_rules, rules_options},
    {0},
};
