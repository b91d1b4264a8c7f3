/* api_clock.c - gpusim's clock control beside the gpusimVersion marker: a client sets scenario
 * time directly (gpusimSetTime) and samples a scenario over scenario time without waiting, e.g.
 * t = 0, 1, 2, ... s as fast as it can read. */
#include "nvml_exports.h"
#include <math.h>

nvmlReturn_t gpusimSetTime(double seconds)
{
    pthread_mutex_lock(&gs.mu);
    if (gs.refcount == 0 || !gs.sc)
        return gs_leave(NVML_ERROR_UNINITIALIZED);
    if (!(seconds >= 0) || seconds > SIM_MAX_T)
        return gs_leave(NVML_ERROR_INVALID_ARGUMENT);
    /* whole milliseconds, as the running clock: every answer is one `gpusim render` can print */
    gs.manual_t = round(seconds * 1000.0) / 1000.0;
    gs.manual = 1;
    return gs_leave(NVML_SUCCESS);
}

double gpusimGetTime(void)
{
    pthread_mutex_lock(&gs.mu);
    double t = gs.refcount > 0 && gs.sc ? gs_now() : -1.0;
    pthread_mutex_unlock(&gs.mu);
    return t;
}
