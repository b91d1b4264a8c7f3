/* history_locate.c - which history file the local commands read, and opening it for them. */
#include "history_locate.h"
#include "agent_state.h"
#include "history.h"
#include "timeparse.h"
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

int hcli_range(const char *since, const char *from, const char *to, int64_t *from_us, int64_t *to_us)
{
    int64_t now = (int64_t)gw_now_us();
    *to_us = now;
    *from_us = now - 3600ll * 1000000;
    if (since && from) {
        fprintf(stderr, "gpuwatch: give --since or --from, not both\n");
        return -1;
    }
    const char *start = since ? since : from;
    if (start && tp_parse_time(start, now, from_us) != 0) {
        fprintf(stderr, "gpuwatch: bad time '%s' (RFC 3339, Unix seconds, or a duration such as 2h or -30m)\n", start);
        return -1;
    }
    if (to && tp_parse_time(to, now, to_us) != 0) {
        fprintf(stderr, "gpuwatch: bad time '%s' (RFC 3339, Unix seconds, or a duration such as 2h or -30m)\n", to);
        return -1;
    }
    if (*from_us > *to_us) {
        fprintf(stderr, "gpuwatch: the range is empty: the start is after the end\n");
        return -1;
    }
    return 0;
}
