/* cmd_agent.c - placeholder until the agent command is written. */
#include <stdio.h>
#include "cli/commands.h"

int cmd_agent(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "gpuwatch: 'agent' is not built yet\n");
    return 2;
}
