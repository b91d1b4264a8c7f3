/* nvml_backend.c - placeholder until the NVML backend is written. */
#include "backend.h"
#include "util.h"

static backend_status open_stub(backend **out, char *err, size_t errlen)
{
    *out = NULL;
    gw_strlcpy(err, "NVML backend not built yet", errlen);
    return BK_ERR_NO_LIBRARY;
}

const backend_ops nvml_backend_ops = {.name = "nvml", .open = open_stub};
