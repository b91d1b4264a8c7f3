/* cmd_pmon.c - placeholder until the pmon command is written. */
#include <stdio.h>
#include "cli/commands.h"

int cmd_pmon(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "gpuwatch: 'pmon' is not built yet\n");
    return 2;
}
