/* fuzz_diag_settings.c - the `diagnosis:` settings (enabled, window, interval, every threshold by
 * name, nested or flat) read from a YAML document by diag_settings_read, as the agent's config and
 * `gpuwatch diagnose --config FILE` read them. The input is the section's document. */
#include "common.h"
#include "diag_settings.h"
#include "doc.h"
#include "errlist.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    fuzz_quiet();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gw_doc d;
    errlist errs = {0};
    if (doc_load_text(&d, "fuzz.yaml", (const char *)data, size, &errs) == 0) {
        diag_settings s;
        diag_settings_read(&d, doc_root(&d), &s);
        diag_settings_read(&d, doc_get(&d, doc_root(&d), "diagnosis"), &s);
        doc_free(&d);
    }
    errlist_free(&errs);
    return 0;
}
