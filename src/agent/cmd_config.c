/* cmd_config.c - placeholder until the config command is written. */
#include <stdio.h>
#include "cli/commands.h"

int cmd_config(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "gpuwatch: 'config' is not built yet\n");
    return 2;
}
