/* cmd_events.c - placeholder until the events command is written. */
#include <stdio.h>
#include "cli/commands.h"

int cmd_events(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "gpuwatch: 'events' is not built yet\n");
    return 2;
}
