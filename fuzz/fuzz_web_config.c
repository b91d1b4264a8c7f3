/* fuzz_web_config.c - the Prometheus web-config file (TLS files, basic-auth users) read into a config. */
#include "common.h"
#include "config.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    fuzz_quiet();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file("web.yaml", data, size);
    if (!path)
        return 0;
    gw_config c;
    config_init(&c);
    config_load_web_config(&c, path);
    config_free(&c);
    return 0;
}
