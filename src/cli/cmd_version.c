/* cmd_version.c - `gpuwatch version`: gpuwatch, NVML, driver and CUDA driver versions, and the backend. */
#include <stdio.h>
#include "commands.h"
#include "options.h"
#include "session.h"
#include "version.h"

static const char usage[] =
    "usage: gpuwatch version\n"
    "\n"
    "Prints the versions of gpuwatch, NVML, the driver and the CUDA driver, and which backend is in\n"
    "use (\"gpusim (simulated)\" under --sim). Exit status 3 when no GPU backend can be opened.\n";

const cli_spec version_spec = {.cmd = "version", .usage = usage};

static const char *or_na(const char *s)
{
    return s && *s ? s : "N/A";
}

int cmd_version(int argc, char **argv)
{
    cli_opts o;
    int rc = cli_parse(&version_spec, argc, argv, &o);
    if (rc != GW_ARGS_RUN)
        return gw_args_exit(rc);
    printf("gpuwatch version    : %s\n", GW_VERSION);
    fflush(stdout);
    sampler s;
    if ((rc = session_open(&s, version_spec.cmd, 0)) != 0)
        return rc;
    const backend_versions *v = &s.versions;
    printf("NVML version        : %s\n", or_na(v->library));
    printf("DRIVER version      : %s\n", or_na(v->driver));
    printf("CUDA Version        : %s\n", or_na(v->cuda));
    if (v->simulated)
        printf("backend             : gpusim (simulated)\n");
    else
        printf("backend             : %s\n", or_na(v->backend));
    sampler_close(&s);
    return 0;
}
