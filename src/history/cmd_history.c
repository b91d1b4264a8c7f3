/* cmd_history.c - placeholder until the history command is written. */
#include <stdio.h>
#include "cli/commands.h"

int cmd_history(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "gpuwatch: 'history' is not built yet\n");
    return 2;
}
