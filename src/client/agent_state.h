/* agent_state.h - how the local commands find the running agent: the agent writes a small state
 * file (its pid, listen address, history file, config) and removes it when it stops; `history`,
 * `events`, `diagnose` and `run` read it, so they use the agent's history file and address rather
 * than a default that may be stale. */
#ifndef GPUWATCH_AGENT_STATE_H
#define GPUWATCH_AGENT_STATE_H

#include <stddef.h>

typedef struct agent_state {
    int pid;
    char listen[128]; /* "127.0.0.1:9400" as bound (port resolved) */
    char db[4096];    /* its history file, "" when history is off */
    char config[4096];
    char file[4096]; /* where this state was read from */
} agent_state;

/* The folder of the agent's state file: $GPUWATCH_RUNTIME_DIR, else /run/gpuwatch for root, else
 * $XDG_RUNTIME_DIR/gpuwatch, else /tmp/gpuwatch-UID (`run`'s GPU locks have their own, reserve.h). */
void gw_runtime_dir(char *out, size_t n);
/* The state file this process would write: RUNTIME_DIR/agent.state. */
void agent_state_path(char *out, size_t n);
/* Writes pid, listen and config of s, then the facts plugins advertised ("db=PATH": the history
 * file), atomically, creating the folder; 0, or -1. A folder of the fallbacks is used only when it is
 * the user's own (0700, not a link; /run/gpuwatch: root's, sticky), and the file is never written
 * through a link. */
int agent_state_write(const agent_state *s, const char *const *keys, const char *const *values, int nfacts);
/* Removes this process's state file if it still names this process. */
void agent_state_remove(void);
/* Finds a running agent: this user's state file first, then the system's; a file whose pid is gone
 * is ignored, and so is one that is a link, not a regular file, or owned by another user than us or
 * root (planted in a shared folder). Returns 1 with *s filled, or 0. */
int agent_state_find(agent_state *s);

#endif
