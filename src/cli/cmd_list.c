/* cmd_list.c - placeholder until the list command is written. */
#include <stdio.h>
#include "cli/commands.h"

int cmd_list(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "gpuwatch: 'list' is not built yet\n");
    return 2;
}
