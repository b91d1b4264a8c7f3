/* cmd_version.c - placeholder until the version command is written. */
#include <stdio.h>
#include "cli/commands.h"

int cmd_version(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "gpuwatch: 'version' is not built yet\n");
    return 2;
}
