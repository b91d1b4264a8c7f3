/* fuzz_rules_test.c - `gpuwatch rules test`: a promtool-style test file (input series in the a+bxn
 * notation, eval times, expected alerts) run against a rule file. The input is the test file, then
 * optionally a line "#==" and the rule file it names as rules.yaml (else a fixed one). */
#include "common.h"
#include "rules_test.h"
#include <stdio.h>
#include <string.h>

static const char default_rules[] =
    "groups:\n"
    "- name: g\n"
    "  rules:\n"
    "  - alert: Hot\n"
    "    condition: {metric: temperature.gpu, op: \">\", threshold: 80}\n"
    "    for: 1m\n"
    "    annotations: {summary: 'GPU {{ $labels.gpu }} at {{ printf \"%.1f\" $value }}'}\n"
    "  - alert: Busy\n"
    "    condition: {metric: utilization.gpu, op: \">=\", threshold: 90}\n";

static FILE *devnull;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    fuzz_quiet();
    devnull = fopen("/dev/null", "w");
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t test_len = size;
    const uint8_t *rules = (const uint8_t *)default_rules;
    size_t rules_len = sizeof default_rules - 1;
    const uint8_t *sep = memmem(data, size, "\n#==\n", 5);
    if (sep) {
        test_len = (size_t)(sep - data) + 1;
        rules = sep + 5;
        rules_len = size - test_len - 4;
    }
    if (!fuzz_file("rules.yaml", rules, rules_len))
        return 0;
    const char *path = fuzz_file("test.yaml", data, test_len);
    if (path)
        rules_test_file(path, devnull, devnull);
    return 0;
}
