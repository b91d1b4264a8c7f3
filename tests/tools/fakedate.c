/* fakedate.c - an LD_PRELOAD library for scripts/test_clock.sh --date: the wall clock moved by
 * GW_FAKEDATE_OFFSET seconds (clock_gettime of CLOCK_REALTIME and CLOCK_REALTIME_COARSE,
 * gettimeofday, time), so that the tests can be run at a date far from today. The monotonic and
 * boot-time clocks are not moved (scripts/test_clock.sh moves those with a time namespace). Programs
 * that read the clock without libc (Go: Prometheus, Alertmanager) are not moved either. */
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

static long long offset_s(void)
{
    static long long off;
    static int done;
    if (!done) {
        const char *s = getenv("GW_FAKEDATE_OFFSET");
        off = s ? atoll(s) : 0;
        done = 1;
    }
    return off;
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
    static int (*real)(clockid_t, struct timespec *);
    if (!real)
        real = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
    int rc = real(id, ts);
    if (rc == 0 && (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE))
        ts->tv_sec += (time_t)offset_s();
    return rc;
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz)
{
    static int (*real)(struct timeval *, void *);
    if (!real)
        real = (int (*)(struct timeval *, void *))dlsym(RTLD_NEXT, "gettimeofday");
    int rc = real(tv, tz);
    if (rc == 0)
        tv->tv_sec += (time_t)offset_s();
    return rc;
}

time_t time(time_t *out)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    if (out)
        *out = ts.tv_sec;
    return ts.tv_sec;
}
