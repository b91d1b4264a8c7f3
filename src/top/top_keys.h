/* top_keys.h - key handling of top and the signal action behind k / K. */
#ifndef GPUWATCH_TOP_KEYS_H
#define GPUWATCH_TOP_KEYS_H

#include <stddef.h>
#include "top_ui.h"

/* Applies one key; returns 1 when the screen should be redrawn. p may be NULL (tests). */
int top_handle_key(top_ui *u, int ch, int ngpus, top_poller *p);

/* Sends sig to pid and writes what happened (sent, gone, not permitted, not visible here)
 * into msg; returns a top_level for the message. Nothing is sent in remote mode. */
int top_signal_process(unsigned pid, int sig, int remote, char *msg, size_t n);

#endif
