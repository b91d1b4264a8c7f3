/* fuzz_config.c - the agent's config file: config_load_string, the unknown-key check and every
 * plugin's check of its section (history, alerts, diagnosis), as `gpuwatch config check` runs them. */
#include "common.h"
#include "plugins.h"
#include "config.h"
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
    gw_config c;
    config_init(&c);
    config_load_string(&c, text, "fuzz.yaml");
    static const char *const sections[] = {"history", "alerts", "diagnosis", NULL};
    config_check_keys(&c, sections);
    history_plugin.check(&c.doc);
    alerts_plugin.check(&c.doc);
    diagnosis_plugin.check(&c.doc);
    config_free(&c);
    free(text);
    return 0;
}
