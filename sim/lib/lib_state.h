/* lib_state.h - the simulated library's global state (init count, scenario, clock, device
 * handles) and the entry/exit protocol every exported function follows: lock, check
 * initialization and arguments, apply the scenario's faults, then compute under the lock. */
#ifndef GPUSIM_LIB_STATE_H
#define GPUSIM_LIB_STATE_H

#include <pthread.h>
#include "nvml_abi.h"
#include "scenario.h"
#include "model.h"

#define GS_EXPORT __attribute__((visibility("default")))

struct nvmlDevice_st {
    unsigned magic;
    int index;
};

typedef struct gs_state {
    pthread_mutex_t mu;
    int refcount;
    scenario *sc;
    unsigned generation; /* bumped at each scenario load: objects from an earlier one are stale */
    double mono_at_init; /* CLOCK_MONOTONIC seconds at the first nvmlInit */
    double speed, t0;    /* GPUSIM_SPEED, GPUSIM_T0 */
    int manual;          /* 1 after gpusimSetTime: the clock stands at manual_t */
    double manual_t;
    double wall_base_us; /* CLOCK_REALTIME us of scenario time 0 (time stamps of samples) */
    struct nvmlDevice_st devs[SIM_MAX_GPUS];
    struct nvmlDevice_st migs[SIM_MAX_GPUS][SIM_MAX_MIG]; /* MIG device handles (api_mig.c) */
} gs_state;

extern gs_state gs;

/* One call in progress: the GPU it is about (-1 for none) and the scenario time. */
typedef struct gs_call {
    int gpu;
    double t;
} gs_call;

/* Enter for a system-level function: locks; UNINITIALIZED before init; injected faults. */
nvmlReturn_t gs_enter(gs_call *c, const char *fn);
/* Enter for a device function: as gs_enter, then INVALID_ARGUMENT on a bad handle and
 * GPU_IS_LOST inside a lost window. */
nvmlReturn_t gs_enter_dev(gs_call *c, const char *fn, nvmlDevice_t dev);
/* The rest of gs_enter_dev once the handle is known to be GPU idx's (lock held): GPU_IS_LOST inside
 * a lost window, the faults, the time after them. */
nvmlReturn_t gs_enter_gpu(gs_call *c, const char *fn, int idx);
/* Applies the scenario's error/delay/missing-symbol faults for fn (lock held; may sleep
 * without it). */
nvmlReturn_t gs_apply_faults(const char *fn, int gpu, double t);
/* A count fault (insufficient_size, success_count) for fn on the call's GPU: 1 when one applies,
 * with the count to report in *count (asked: what the caller passed in) and the result in *rc;
 * the caller then writes at most `asked` records. Lock held. */
int gs_count_fault(const gs_call *c, const char *fn, unsigned asked, unsigned *count, nvmlReturn_t *rc);
/* Sets up handles and the clock after a scenario is loaded. */
void gs_init_devices(void);
/* Counts one call of fn for GPUSIM_CALLS (call_count.c); lock held. */
void gs_count_call(const char *fn);
/* Unlocks (whatever gs_enter* returned) and passes rc through. */
nvmlReturn_t gs_leave(nvmlReturn_t rc);

/* Scenario time now, in seconds (clock since init x GPUSIM_SPEED + GPUSIM_T0). */
double gs_now(void);
/* Wall-clock time stamp (us) of a scenario time: scenario time mapped onto the wall clock at init. */
unsigned long long gs_stamp_us(double t);
/* Checks a handle; the GPU index or -1 (a MIG device's handle is no GPU's: -1). */
int gs_dev_index(nvmlDevice_t dev);
/* Whether dev points into the MIG device handles (no lock: the getters that also answer for a MIG
 * device ask this first, then enter through gs_enter_mig, which checks it). */
int gs_is_mig_handle(nvmlDevice_t dev);
/* A MIG device's handle: its GPU's index, and in *mig its MIG device index; -1 for any other
 * handle (api_mig.c). Lock held. */
int gs_mig_index(nvmlDevice_t dev, int *mig);
/* Enter for a function of a MIG device: as gs_enter_dev, about the MIG device's GPU (c->gpu), its
 * index in *mig (api_mig.c). */
nvmlReturn_t gs_enter_mig(gs_call *c, const char *fn, nvmlDevice_t dev, int *mig);
/* Name, UUID and memory of a MIG device, for the device getters given a MIG handle (api_mig.c):
 * they enter and leave themselves. */
nvmlReturn_t gs_mig_name(nvmlDevice_t dev, char *name, unsigned int length);
nvmlReturn_t gs_mig_uuid(nvmlDevice_t dev, char *uuid, unsigned int length);
nvmlReturn_t gs_mig_memory(nvmlDevice_t dev, unsigned long long *total, unsigned long long *used,
                           unsigned long long *freeb);

/* A metric of the call's GPU at the call's time; NOT_SUPPORTED when the scenario says so. */
nvmlReturn_t gs_metric(const gs_call *c, metric_id m, double *out);
/* Same, scaled and rounded into an unsigned int / unsigned long long (e.g. W -> mW). */
nvmlReturn_t gs_metric_u(const gs_call *c, metric_id m, double scale, unsigned int *out);
nvmlReturn_t gs_metric_ull(const gs_call *c, metric_id m, double scale, unsigned long long *out);
/* Copies s into a caller buffer of length len: INVALID_ARGUMENT on NULL, INSUFFICIENT_SIZE when short. */
nvmlReturn_t gs_copy_string(const char *s, char *buf, unsigned int len);
/* Fills a PCI info struct for a bus position; full = 0 writes only the first 36 bytes (the
 * older nvmlPciInfo layouts). */
void gs_fill_pci(nvmlPciInfo_t *pci, unsigned domain, unsigned bus, unsigned device, unsigned device_id,
                 unsigned subsys_id, int full);
/* A field value about NVLink (link state, data-link error counters; scopeId = the link), answered
 * into f: 1 when f->fieldId is one of those, 0 otherwise (api_nvlink.c). */
int gs_nvlink_field(const gs_call *c, nvmlFieldValue_t *f);
/* The PCI info of a GPU (api_device.c). */
void gs_gpu_pci(int gpu, nvmlPciInfo_t *pci, int full);

/* Defines an exported getter `fn(device, unsigned int *out)` returning metric m x scale. */
#define GS_METRIC_GETTER(fn, m, scale)                        \
    nvmlReturn_t fn(nvmlDevice_t device, unsigned int *out)   \
    {                                                         \
        gs_call c;                                            \
        nvmlReturn_t rc = gs_enter_dev(&c, __func__, device); \
        if (rc == NVML_SUCCESS)                               \
            rc = gs_metric_u(&c, (m), (scale), out);          \
        return gs_leave(rc);                                  \
    }

#endif
