/* backend.c - the registry of GPU backends (see backend.h). */
#include "backend.h"

static const backend_ops *registry[BACKEND_MAX];
static int nregistered;

int backend_register(const backend_ops *ops)
{
    for (int i = 0; i < nregistered; i++)
        if (registry[i] == ops)
            return 0;
    if (nregistered == BACKEND_MAX)
        return -1;
    registry[nregistered++] = ops;
    return 0;
}

int backend_registered(const backend_ops *const **out)
{
    *out = registry;
    return nregistered;
}
