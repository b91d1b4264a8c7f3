/* nvml_names.c - the names of the processes on the GPUs (nvmlSystemGetProcessName) and, on gpusim,
 * their owners (gpusimGetProcessOwner): asked once per process, known by its pid and its start time
 * in /proc (a pid used again by a new process is asked again). A pid this machine's /proc does not
 * show (another pid namespace) is known by its pid alone. Entries unused for a while make room.
 * gpusim's command lines (gpusimGetProcessCommand) are asked at every read, not kept. */
#include <string.h>
#include "nvml_priv.h"
#include "proc_stat.h"
#include "util.h"

static unsigned long long start_ticks(unsigned pid)
{
    proc_stat st;
    return proc_stat_read(NULL, pid, &st) == 0 ? st.start_ticks : 0;
}

/* The entry of (pid, start), or a fresh one in the slot used least recently (pid 0 when full). */
static nv_name *slot_for(backend *b, unsigned pid, unsigned long long start, int *fresh)
{
    nv_name *oldest = NULL;
    for (int i = 0; i < b->nnames; i++) {
        nv_name *e = &b->names[i];
        if (e->pid == pid && e->start == start) {
            *fresh = 0;
            return e;
        }
        if (!oldest || e->seen < oldest->seen)
            oldest = e;
    }
    nv_name *e = b->nnames < NV_NAMES ? &b->names[b->nnames++] : oldest;
    memset(e, 0, sizeof *e);
    e->pid = pid;
    e->start = start;
    *fresh = 1;
    return e;
}

static void ask(backend *b, nv_name *e)
{
    nvmlReturn_t rc;
    if (b->fn.GpusimProcessOwner) {
        rc = b->fn.GpusimProcessOwner(e->pid, e->user, sizeof e->user, e->container, sizeof e->container);
        e->have_owner = rc == NVML_SUCCESS;
        e->user[sizeof e->user - 1] = e->container[sizeof e->container - 1] = 0;
    }
    if (b->fn.SystemGetProcessName) {
        rc = b->fn.SystemGetProcessName(e->pid, e->name, sizeof e->name);
        e->have_name = rc == NVML_SUCCESS;
        e->name[sizeof e->name - 1] = 0;
        if (rc != NVML_SUCCESS && rc != NVML_ERROR_NOT_FOUND && rc != NVML_ERROR_NOT_SUPPORTED)
            nv_count_error(b, NV_SystemGetProcessName, rc);
    }
}

void nv_names_fill(backend *b, gpu_proc *out, int n)
{
    pthread_mutex_lock(&b->names_lock);
    uint64_t round = ++b->names_round;
    for (int i = 0; i < n; i++) {
        int fresh = 0;
        nv_name *e = slot_for(b, out[i].pid, start_ticks(out[i].pid), &fresh);
        if (fresh)
            ask(b, e);
        e->seen = round;
        gw_strlcpy(out[i].name, e->have_name ? e->name : "", sizeof out[i].name);
        gw_strlcpy(out[i].user, e->have_owner ? e->user : "", sizeof out[i].user);
        gw_strlcpy(out[i].container, e->have_owner ? e->container : "", sizeof out[i].container);
        /* gpusim's command lines (a scenario's processes have no /proc entry): asked each time, not kept */
        if (b->fn.GpusimProcessCommand &&
            b->fn.GpusimProcessCommand(out[i].pid, out[i].cmdline, sizeof out[i].cmdline) != NVML_SUCCESS)
            out[i].cmdline[0] = 0;
        out[i].cmdline[sizeof out[i].cmdline - 1] = 0;
    }
    pthread_mutex_unlock(&b->names_lock);
}
