/* fuzz_query_range.c - /api/v1/query_range's parameters (metric, gpu, pid, start, end, step, agg)
 * through history_query_range_json on a real history file (tests/support/hfile.c). The input is the
 * seven values separated by NUL bytes; a missing one is absent. */
#include "common.h"
#include "hfile.h"
#include "history.h"
#include <stdio.h>
#include <stdlib.h>

static char path[4200];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    fuzz_quiet();
    snprintf(path, sizeof path, "%s/q.db", fuzz_dir());
    if (hfile_build(path, 2, 1764673200000000ll, 1500) != 0) {
        fprintf(stderr, "fuzz_query_range: cannot build the history file\n");
        exit(1);
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_fields f = {data, size, {0}, 0};
    const char *v[7];
    for (int i = 0; i < 7; i++)
        v[i] = f.left ? fuzz_take_str(&f) : NULL;
    int status;
    free(history_query_range_json(path, v[0], v[1], v[2], v[3], v[4], v[5], v[6], &status));
    fuzz_fields_free(&f);
    return 0;
}
