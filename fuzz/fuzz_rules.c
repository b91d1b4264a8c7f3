/* fuzz_rules.c - alert rule files: rules_load_string (groups, rules, conditions, templates). */
#include "common.h"
#include "errlist.h"
#include "rules.h"
#include <stdlib.h>

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    fuzz_quiet();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    if (!text)
        return 0;
    ruleset rs = {0};
    errlist errs = {0};
    rules_load_string(&rs, "fuzz.yaml", text, &errs);
    ruleset_free(&rs);
    errlist_free(&errs);
    free(text);
    return 0;
}
