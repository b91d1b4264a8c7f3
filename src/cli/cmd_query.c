/* cmd_query.c - placeholder until the query command is written. */
#include <stdio.h>
#include "cli/commands.h"

int cmd_query(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "gpuwatch: 'query' is not built yet\n");
    return 2;
}
