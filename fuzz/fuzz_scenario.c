/* fuzz_scenario.c - gpusim's scenario parser (scenario_parse): GPUs, presets, generators, processes,
 * events, faults, topology. */
#include "common.h"
#include "scenario.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    fuzz_quiet();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512];
    scenario *sc = scenario_parse("fuzz.yaml", fuzz_dir(), (const char *)data, size, err, sizeof err);
    scenario_free(sc);
    return 0;
}
