/* cmd_history.c - placeholder until the history command is written. */
#include <stdio.h>
#include <string.h>
#include "cli/commands.h"
#include "history/bench.h"

int cmd_history(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "bench") == 0) return history_bench(argc - 1, argv + 1);
    fprintf(stderr, "gpuwatch: 'history' is not built yet\n");
    return 2;
}
