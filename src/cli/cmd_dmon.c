/* cmd_dmon.c - placeholder until the dmon command is written. */
#include <stdio.h>
#include "cli/commands.h"

int cmd_dmon(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "gpuwatch: 'dmon' is not built yet\n");
    return 2;
}
