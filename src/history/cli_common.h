/* cli_common.h - what the history, events and export commands share: the file path and time range. */
#ifndef GPUWATCH_HISTORY_CLI_COMMON_H
#define GPUWATCH_HISTORY_CLI_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include "store.h"

/* --db, else $GPUWATCH_HISTORY_DB, else the running agent's file (agent_state.h), else
 * history_default_path(); says on stderr which it reads when --db was not given. */
void hcli_db_path(const char *opt, char *out, size_t n);
/* Opens the file read-only, printing a clear line when it cannot (returns NULL). */
store *hcli_open(const char *path);
/* --since / --from / --to into [from, to]; default the last hour. Prints the error; returns 0 or -1. */
int hcli_range(const char *since, const char *from, const char *to, int64_t *from_us, int64_t *to_us);

#endif
