/* history_module.c - the history module: `history` and `events` (SQLite). */
#include "module_api.h"
#include "history_commands.h"

const gw_module_command gw_module_commands[] = {
    {"history", cmd_history, history_options},
    {"events", cmd_events, events_options},
    {0},
};
