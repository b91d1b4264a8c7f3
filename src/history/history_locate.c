/* history_locate.c - which history file the local commands read, and opening it for them. */
#include "history_locate.h"
#include "agent_state.h"
#include "history.h"
#include "util.h"
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

void history_locate(const char *opt, char *out, size_t n)
{
    const char *env = getenv("GPUWATCH_HISTORY_DB");
    agent_state st;
    if (opt && *opt) {
        gw_strlcpy(out, opt, n);
        return;
    }
    if (env && *env) {
        gw_strlcpy(out, env, n);
        fprintf(stderr, "gpuwatch: reading %s (GPUWATCH_HISTORY_DB)\n", out);
    } else if (agent_state_find(&st) && st.db[0]) {
        gw_strlcpy(out, st.db, n);
        fprintf(stderr, "gpuwatch: reading %s (the running agent's, pid %d)\n", out, st.pid);
    } else {
        history_default_path(out, n);
        fprintf(stderr, "gpuwatch: reading %s (the default; no running agent found, --db PATH for another)\n", out);
    }
}

store *history_open_read(const char *path)
{
    if (access(path, F_OK) != 0) {
        fprintf(stderr, "gpuwatch: no history file at %s (is the agent recording? use --db PATH)\n", path);
        return NULL;
    }
    char err[512];
    store *st = store_open(path, 1, err, sizeof err);
    if (!st)
        fprintf(stderr, "gpuwatch: cannot read the history: %s\n", err);
    return st;
}
