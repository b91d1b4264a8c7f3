/* nvml_load.c - dlopen of libnvidia-ml.so.1 and resolution of the symbol table (nvml_syms.h). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nvml_priv.h"
#include "util.h"

#define NV_DEFAULT_LIB "libnvidia-ml.so.1"
#define NV_MAX_NAMES 3

typedef struct nv_sym_def {
    size_t offset; /* of the pointer in nvml_fns */
    int required;
    const char *names[NV_MAX_NAMES + 1];
} nv_sym_def;

#define NV_SYM_DEF(f, ret, params, req, ...) {offsetof(nvml_fns, f), req, {__VA_ARGS__, NULL}},
static const nv_sym_def sym_defs[NV_SYM_COUNT] = {NVML_SYMBOLS(NV_SYM_DEF)};
#undef NV_SYM_DEF

/* Resolves every symbol; returns the index of a missing required one, or -1. */
static int resolve(backend *b)
{
    for (int i = 0; i < NV_SYM_COUNT; i++) {
        const nv_sym_def *d = &sym_defs[i];
        void *p = NULL;
        for (int k = 0; k < NV_MAX_NAMES && d->names[k] && !p; k++) {
            p = dlsym(b->lib, d->names[k]);
            if (p) {
                b->sym_name[i] = d->names[k];
                b->sym_variant[i] = (unsigned char)k;
            }
        }
        /* POSIX guarantees a data pointer from dlsym converts to a function pointer. */
        memcpy((char *)&b->fn + d->offset, &p, sizeof p);
        if (!p && d->required)
            return i;
    }
    return -1;
}

backend_status nv_load(backend *b, char *err, size_t errlen)
{
    const char *path = getenv("GPUWATCH_NVML_LIB");
    if (!path || !*path)
        path = NV_DEFAULT_LIB;
    dlerror();
    b->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!b->lib) {
        const char *why = dlerror();
        snprintf(err, errlen, "NVIDIA driver library %s not found (%s): is the NVIDIA driver installed?", path,
                 why ? why : "dlopen failed");
        return BK_ERR_NO_LIBRARY;
    }
    int missing = resolve(b);
    if (missing >= 0) {
        snprintf(err, errlen, "%s has no function %s: it is not a usable NVML library (driver too old?)", path,
                 sym_defs[missing].names[0]);
        nv_unload(b);
        return BK_ERR_NO_LIBRARY;
    }
    b->versions.simulated = dlsym(b->lib, "gpusimVersion") != NULL;
    return BK_OK;
}

void nv_unload(backend *b)
{
    if (b->lib)
        dlclose(b->lib);
    b->lib = NULL;
    memset(&b->fn, 0, sizeof b->fn);
}
