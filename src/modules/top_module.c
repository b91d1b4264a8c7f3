/* top_module.c - the live terminal UI module: `top` (ncurses). */
#include "module_api.h"
#include "top_ui.h"

const gw_module_command gw_module_commands[] = {
    {"top", cmd_top, top_options},
    {0},
};
