/* cmd_top.c - placeholder until the top command is written. */
#include <stdio.h>
#include "cli/commands.h"

int cmd_top(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "gpuwatch: 'top' is not built yet\n");
    return 2;
}
