/* cmd_rules.c - placeholder until the rules command is written. */
#include <stdio.h>
#include "cli/commands.h"

int cmd_rules(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "gpuwatch: 'rules' is not built yet\n");
    return 2;
}
