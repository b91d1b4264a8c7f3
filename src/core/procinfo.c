/* procinfo.c - placeholder until /proc enrichment is written. */
#include "procinfo.h"

int procinfo_fill(gpu_proc *p)
{
    (void)p;
    return -1;
}

void procinfo_container_from_cgroup(const char *cgroup_text, char *out, size_t outlen)
{
    (void)cgroup_text;
    if (outlen) out[0] = 0;
}
