/* api_system.c - ref-counted init/shutdown (loading GPUSIM_SCENARIO), error strings, the
 * system getters (no S-class units, no excluded GPUs), and gpusim's own markers (gpusimVersion,
 * gpusimGetProcessOwner). */
#include "nvml_exports.h"
#include "util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "doc.h"

#define GPUSIM_VERSION "gpusim 1.0"

/* A non-negative number from the environment (durations allowed), or dflt. */
static double env_number(const char *name, double dflt)
{
    const char *s = getenv(name);
    double v;
    if (!s || !*s)
        return dflt;
    if (gw_parse_duration(s, &v) == 0)
        return v;
    fprintf(stderr, "gpusim: ignoring %s='%s' (expected a number of seconds >= 0)\n", name, s);
    return dflt;
}

static nvmlReturn_t do_init(const char *fn)
{
    pthread_mutex_lock(&gs.mu);
    gs_count_call(fn);
    if (gs.refcount > 0) {
        gs.refcount++;
        return gs_leave(NVML_SUCCESS);
    }
    const char *path = getenv("GPUSIM_SCENARIO");
    char err[1024];
    scenario *sc = path && *path ? scenario_load(path, err, sizeof err) : scenario_default();
    if (!sc) {
        fprintf(stderr, "gpusim: %s\n", err);
        return gs_leave(NVML_ERROR_UNKNOWN);
    }
    gs.sc = sc;
    gs.speed = env_number("GPUSIM_SPEED", 1.0);
    gs.t0 = env_number("GPUSIM_T0", 0.0);
    if (gs.t0 > SIM_MAX_T) {
        fprintf(stderr, "gpusim: GPUSIM_T0 above one week (%g s): using %g\n", gs.t0, SIM_MAX_T);
        gs.t0 = SIM_MAX_T;
    }
    gs_init_devices();
    nvmlReturn_t rc = gs_apply_faults(fn, -1, gs_now());
    if (rc != NVML_SUCCESS) {
        scenario_free(gs.sc);
        gs.sc = NULL;
        return gs_leave(rc);
    }
    gs.refcount = 1;
    return gs_leave(NVML_SUCCESS);
}

nvmlReturn_t nvmlInit(void)
{
    return do_init(__func__);
}
nvmlReturn_t nvmlInit_v2(void)
{
    return do_init(__func__);
}
nvmlReturn_t nvmlInitWithFlags(unsigned int flags)
{
    (void)flags;
    return do_init(__func__);
}

nvmlReturn_t nvmlShutdown(void)
{
    pthread_mutex_lock(&gs.mu);
    gs_count_call(__func__);
    if (gs.refcount == 0)
        return gs_leave(NVML_ERROR_UNINITIALIZED);
    if (--gs.refcount == 0) {
        scenario_free(gs.sc);
        gs.sc = NULL;
    }
    return gs_leave(NVML_SUCCESS);
}

const char *nvmlErrorString(nvmlReturn_t result)
{
    switch (result) {
    case NVML_SUCCESS: return "Success";
    case NVML_ERROR_UNINITIALIZED: return "Uninitialized";
    case NVML_ERROR_INVALID_ARGUMENT: return "Invalid Argument";
    case NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
    case NVML_ERROR_NO_PERMISSION: return "Insufficient Permissions";
    case NVML_ERROR_ALREADY_INITIALIZED: return "Already Initialized";
    case NVML_ERROR_NOT_FOUND: return "Not Found";
    case NVML_ERROR_INSUFFICIENT_SIZE: return "Insufficient Size";
    case NVML_ERROR_INSUFFICIENT_POWER: return "Insufficient External Power";
    case NVML_ERROR_DRIVER_NOT_LOADED: return "Driver Not Loaded";
    case NVML_ERROR_TIMEOUT: return "Timeout";
    case NVML_ERROR_IRQ_ISSUE: return "Interrupt Request Issue";
    case NVML_ERROR_LIBRARY_NOT_FOUND: return "NVML Shared Library Not Found";
    case NVML_ERROR_FUNCTION_NOT_FOUND: return "Function Not Found";
    case NVML_ERROR_CORRUPTED_INFOROM: return "Corrupted infoROM";
    case NVML_ERROR_GPU_IS_LOST: return "GPU is lost";
    case NVML_ERROR_RESET_REQUIRED: return "GPU requires restart";
    case NVML_ERROR_OPERATING_SYSTEM: return "The operating system has blocked the request.";
    case NVML_ERROR_LIB_RM_VERSION_MISMATCH: return "RM has detected an NVML/RM version mismatch.";
    case NVML_ERROR_IN_USE: return "In use by another client";
    case NVML_ERROR_MEMORY: return "Insufficient Memory";
    case NVML_ERROR_NO_DATA: return "No data";
    case NVML_ERROR_VGPU_ECC_NOT_SUPPORTED:
        return "The requested vgpu operation is not available on target device, because ECC is enabled";
    case NVML_ERROR_INSUFFICIENT_RESOURCES: return "Ran out of critical resources, other than memory";
    case NVML_ERROR_FREQ_NOT_SUPPORTED: return "The requested frequency is not supported";
    case NVML_ERROR_ARGUMENT_VERSION_MISMATCH: return "The provided version is invalid/unsupported";
    case NVML_ERROR_DEPRECATED: return "Requested functionality has been deprecated";
    case NVML_ERROR_NOT_READY: return "The system is not ready for the request";
    case NVML_ERROR_GPU_NOT_FOUND: return "No GPUs were found";
    case NVML_ERROR_INVALID_STATE: return "Resource is in invalid state";
    case NVML_ERROR_RESET_TYPE_NOT_SUPPORTED: return "The requested reset type is not supported";
    case NVML_ERROR_UNKNOWN: return "Unknown Error";
    }
    return "Unknown Error";
}

nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter(&c, __func__);
    if (rc == NVML_SUCCESS)
        rc = gs_copy_string(gs.sc->driver_version, version, length);
    return gs_leave(rc);
}

nvmlReturn_t nvmlSystemGetNVMLVersion(char *version, unsigned int length)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter(&c, __func__);
    if (rc == NVML_SUCCESS)
        rc = gs_copy_string(gs.sc->nvml_version, version, length);
    return gs_leave(rc);
}

static nvmlReturn_t cuda_version(const char *fn, int *v)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter(&c, fn);
    if (rc == NVML_SUCCESS && !v)
        rc = NVML_ERROR_INVALID_ARGUMENT;
    if (rc == NVML_SUCCESS)
        *v = gs.sc->cuda_version;
    return gs_leave(rc);
}

nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *v)
{
    return cuda_version(__func__, v);
}
nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *v)
{
    return cuda_version(__func__, v);
}

/* The scenario process with that pid (first found), or NULL. */
/* The scenario process with that pid, and which copy of its gpu entry it is (copy may be NULL). */
static const sim_proc *find_proc_copy(unsigned pid, int *copy)
{
    for (int g = 0; g < gs.sc->ngpus; g++) {
        const sim_gpu *gpu = &gs.sc->gpus[g];
        for (int i = 0; i < gpu->spec->nprocs; i++)
            if (sim_proc_pid(&gpu->spec->procs[i], gpu->copy) == pid) {
                if (copy)
                    *copy = gpu->copy;
                return &gpu->spec->procs[i];
            }
    }
    return NULL;
}

static const sim_proc *find_proc(unsigned pid)
{
    return find_proc_copy(pid, NULL);
}

nvmlReturn_t nvmlSystemGetProcessName(unsigned int pid, char *name, unsigned int length)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter(&c, __func__);
    if (rc != NVML_SUCCESS)
        return gs_leave(rc);
    if (!name || length == 0)
        return gs_leave(NVML_ERROR_INVALID_ARGUMENT);
    const sim_proc *p = find_proc(pid);
    if (!p)
        return gs_leave(NVML_ERROR_NOT_FOUND);
    /* NVML truncates a long name into the buffer rather than failing. */
    snprintf(name, length, "%s", p->name);
    return gs_leave(NVML_SUCCESS);
}

/* The count of a list that is empty on a server without S-class units or excluded GPUs. */
static nvmlReturn_t empty_count(const char *fn, unsigned int *n)
{
    gs_call c;
    nvmlReturn_t rc = gs_enter(&c, fn);
    if (rc == NVML_SUCCESS && !n)
        rc = NVML_ERROR_INVALID_ARGUMENT;
    if (rc == NVML_SUCCESS)
        *n = 0;
    return gs_leave(rc);
}

nvmlReturn_t nvmlUnitGetCount(unsigned int *n)
{
    return empty_count(__func__, n);
}
nvmlReturn_t nvmlGetExcludedDeviceCount(unsigned int *n)
{
    return empty_count(__func__, n);
}
nvmlReturn_t nvmlGetBlacklistDeviceCount(unsigned int *n)
{
    return empty_count(__func__, n);
}

const char *gpusimVersion(void)
{
    return GPUSIM_VERSION;
}

/* s with its first {copy} replaced by the copy's number (a count-N entry's k-th copy). */
static nvmlReturn_t copy_expanded(const char *s, int copy, char *buf, unsigned len)
{
    char line[512];
    const char *at = strstr(s, "{copy}");
    if (at)
        snprintf(line, sizeof line, "%.*s%d%s", (int)(at - s), s, copy, at + 6);
    else
        snprintf(line, sizeof line, "%s", s);
    return gs_copy_string(line, buf, len);
}

/* Enters fn and finds the scenario's process pid (and which copy of its GPU entry holds it). */
static nvmlReturn_t enter_proc(gs_call *c, const char *fn, unsigned pid, const sim_proc **p, int *copy)
{
    nvmlReturn_t rc = gs_enter(c, fn);
    if (rc != NVML_SUCCESS)
        return rc;
    *p = find_proc_copy(pid, copy);
    return *p ? NVML_SUCCESS : NVML_ERROR_NOT_FOUND;
}

nvmlReturn_t gpusimGetProcessOwner(unsigned int pid, char *user, unsigned int userLen, char *container,
                                   unsigned int containerLen)
{
    gs_call c;
    const sim_proc *p = NULL;
    int copy = 0;
    nvmlReturn_t rc = enter_proc(&c, __func__, pid, &p, &copy);
    if (rc == NVML_SUCCESS)
        rc = gs_copy_string(p->user, user, userLen);
    if (rc == NVML_SUCCESS)
        rc = copy_expanded(p->container, copy, container, containerLen);
    return gs_leave(rc);
}

nvmlReturn_t gpusimGetProcessCommand(unsigned int pid, char *command, unsigned int length)
{
    gs_call c;
    const sim_proc *p = NULL;
    int copy = 0;
    nvmlReturn_t rc = enter_proc(&c, __func__, pid, &p, &copy);
    if (rc == NVML_SUCCESS)
        rc = p->command[0] ? copy_expanded(p->command, copy, command, length) : NVML_ERROR_NOT_FOUND;
    return gs_leave(rc);
}
