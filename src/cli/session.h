/* session.h - what every GPU command does first: open the backend (one-line error, exit 3),
 * say on stderr when the GPUs are simulated, and turn --id into a set of GPUs. */
#ifndef GPUWATCH_SESSION_H
#define GPUWATCH_SESSION_H

#include <stdio.h>
#include "options.h"
#include "sampler.h"

/* Opens the sampler. On failure prints "gpuwatch CMD: <reason>" and returns GW_EXIT_BACKEND (3).
 * When banner is set and the backend is gpusim, prints the SIMULATED GPUs banner on stderr. */
int session_open(sampler *s, const char *cmd, int banner);

/* Selects GPUs from --id: comma separated indexes or ranges ("0,2,5-7"), UUIDs or PCI bus ids
 * (full "00000000:3B:00.0" or short "3B:00.0", any case). ids NULL selects all.
 * sel has s->count entries. Returns 0, or CLI_USAGE after a usage error on stderr. */
int session_select(const sampler *s, const char *cmd, const char *ids, unsigned char *sel);

/* One round of a report command (-q, the summary table): writes the selected GPUs to out; returns
 * 0, or non-zero to end with that status. */
typedef int (*session_round_fn)(sampler *s, const unsigned char *sel, FILE *out, void *ctx);

/* A report command's life: opens the sampler (with the banner), selects o->ids, opens o->file
 * (overwritten; stdout when NULL), then calls round once, or every o->loop_s seconds until SIGINT or
 * SIGTERM (status 0 then, as nvidia-smi). Returns the exit status. */
int session_rounds(const char *cmd, const cli_opts *o, session_round_fn round, void *ctx);

#endif
