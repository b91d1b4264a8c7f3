/* api_stubs.c - every other function the real library exports (sim/core/nvml_stubs.def), so
 * that each of its 405 symbols resolves: they answer NVML_ERROR_NOT_SUPPORTED, as the real
 * library does on Linux for what a GPU or the OS lacks (UNINITIALIZED before nvmlInit; the
 * scenario's error, delay and missing-symbol faults apply to them too). */
#include "nvml_exports.h"

/* No argument is read, so one definition fits every signature: with the C calling convention
 * the caller owns its arguments, and every one of these returns an nvmlReturn_t. */
static nvmlReturn_t stub(const char *fn)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter(&c, fn);
    return gs_leave(rc == NVML_SUCCESS ? NVML_ERROR_NOT_SUPPORTED : rc);
}

#define NVML_STUB(name)                \
    GS_EXPORT nvmlReturn_t name(void); \
    nvmlReturn_t name(void)            \
    {                                  \
        return stub(#name);            \
    }
#ifdef GPUSIM_MINIMAL
#define NVML_STUB_OPTIONAL(name)
#else
#define NVML_STUB_OPTIONAL(name) NVML_STUB(name)
#endif

#include "nvml_stubs.def"
