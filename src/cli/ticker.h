/* ticker.h - the sampling clock of dmon/pmon: absolute deadlines on the monotonic clock (no drift),
 * and a clean stop on SIGINT/SIGTERM. */
#ifndef GPUWATCH_TICKER_H
#define GPUWATCH_TICKER_H

#include <stdint.h>

typedef struct ticker {
    uint64_t next_us; /* next deadline, CLOCK_MONOTONIC microseconds */
    uint64_t period_us;
} ticker;

/* Installs SIGINT/SIGTERM handlers that request a stop, and ignores SIGPIPE (a closed pipe ends the
 * command through a failed write instead). Interrupted writes are restarted, sleeps are not. */
void ticker_install_signals(void);
int ticker_stopped(void);

/* The first deadline is one period from now. */
void ticker_start(ticker *t, double period_s);
/* Sleeps to the next deadline. Deadlines missed entirely (a slow read) are skipped, not bunched.
 * Returns 0 when it is time to sample, -1 when a stop was requested. */
int ticker_wait(ticker *t);

#endif
