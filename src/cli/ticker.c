/* ticker.c - absolute-deadline sleeping and the SIGINT/SIGTERM stop flag for the streaming commands. */
#include "ticker.h"
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include "util.h"

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
    (void)sig;
    stop_flag = 1;
}

void ticker_install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    /* SA_RESTART: a write blocked on a full pipe goes on after Ctrl-C instead of failing half
     * written; the sleep returns at once all the same (clock_nanosleep is never restarted) */
    sa.sa_flags = SA_RESTART;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    stop_flag = 0;
}

int ticker_stopped(void)
{
    return stop_flag != 0;
}

void ticker_start(ticker *t, double period_s)
{
    t->period_us = (uint64_t)(period_s * 1e6 + 0.5);
    if (t->period_us == 0)
        t->period_us = 1;
    t->next_us = gw_mono_us() + t->period_us;
}

int ticker_wait(ticker *t)
{
    uint64_t now = gw_mono_us();
    if (now > t->next_us + t->period_us) /* fell behind by a whole period: resynchronise */
        t->next_us += (now - t->next_us) / t->period_us * t->period_us;
    struct timespec ts = {(time_t)(t->next_us / 1000000u), (long)(t->next_us % 1000000u) * 1000L};
    while (!stop_flag) {
        int rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
        if (rc == 0)
            break;
        if (rc != EINTR)
            break;
    }
    t->next_us += t->period_us;
    return stop_flag ? -1 : 0;
}
