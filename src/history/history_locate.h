/* history_locate.h - the history file the local commands read (history, events, diagnose, run,
 * jobs): the one named on the command line, else the running agent's, else the default. */
#ifndef GPUWATCH_HISTORY_LOCATE_H
#define GPUWATCH_HISTORY_LOCATE_H

#include <stddef.h>
#include <stdint.h>
#include "store.h"

/* --db, else $GPUWATCH_HISTORY_DB, else the running agent's file (agent_state.h), else
 * history_default_path(); says on stderr which it reads when --db was not given. */
void history_locate(const char *opt, char *out, size_t n);
/* Opens the file read-only, printing a clear line when it cannot (returns NULL). */
store *history_open_read(const char *path);

#endif
