/* agent_state.c - the running agent's state file (see agent_state.h): "key=value" lines. */
#include "agent_state.h"
#include "files.h"
#include "util.h"
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SYSTEM_STATE "/run/gpuwatch/agent.state"

void gw_runtime_dir(char *out, size_t n)
{
    const char *own = getenv("GPUWATCH_RUNTIME_DIR"), *xdg = getenv("XDG_RUNTIME_DIR");
    if (own && *own == '/')
        gw_strlcpy(out, own, n);
    else if (geteuid() == 0)
        gw_strlcpy(out, "/run/gpuwatch", n);
    else if (xdg && *xdg == '/')
        snprintf(out, n, "%s/gpuwatch", xdg);
    else
        snprintf(out, n, "/tmp/gpuwatch-%u", (unsigned)geteuid());
}

void agent_state_path(char *out, size_t n)
{
    char dir[4000];
    gw_runtime_dir(dir, sizeof dir);
    snprintf(out, n, "%s/agent.state", dir);
}

int agent_state_write(const agent_state *s, const char *const *keys, const char *const *values, int nfacts)
{
    char path[4096], tmp[4200];
    agent_state_path(path, sizeof path);
    if (gw_make_parent_dirs(path) != 0)
        return -1;
    snprintf(tmp, sizeof tmp, "%s.%d", path, (int)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f)
        return -1;
    fprintf(f, "pid=%d\nlisten=%s\nconfig=%s\n", s->pid, s->listen, s->config);
    for (int i = 0; i < nfacts; i++)
        if (!strchr(keys[i], '=') && !strchr(keys[i], '\n') && !strchr(values[i], '\n'))
            fprintf(f, "%s=%s\n", keys[i], values[i]);
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        unlink(tmp);
        return -1;
    }
    return 0;
}

static int read_state(const char *path, agent_state *s)
{
    char why[64];
    char *text = gw_read_file(path, 16384, NULL, why, sizeof why);
    if (!text)
        return 0;
    memset(s, 0, sizeof *s);
    gw_strlcpy(s->file, path, sizeof s->file);
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        char *eq = strchr(line, '=');
        if (!eq)
            continue;
        *eq++ = 0;
        if (!strcmp(line, "pid"))
            s->pid = atoi(eq);
        else if (!strcmp(line, "listen"))
            gw_strlcpy(s->listen, eq, sizeof s->listen);
        else if (!strcmp(line, "db"))
            gw_strlcpy(s->db, eq, sizeof s->db);
        else if (!strcmp(line, "config"))
            gw_strlcpy(s->config, eq, sizeof s->config);
    }
    free(text);
    /* a file left behind by an agent that was killed names a pid that is gone */
    return s->pid > 0 && (kill(s->pid, 0) == 0 || errno == EPERM);
}

void agent_state_remove(void)
{
    char path[4096];
    agent_state_path(path, sizeof path);
    agent_state s;
    if (read_state(path, &s) && s.pid == (int)getpid())
        unlink(path);
}

int agent_state_find(agent_state *s)
{
    char mine[4096];
    agent_state_path(mine, sizeof mine);
    /* a runtime directory named in the environment is the whole answer: no system-wide agent stands in */
    const char *own = getenv("GPUWATCH_RUNTIME_DIR");
    if (own && *own == '/')
        return read_state(mine, s);
    return read_state(mine, s) || (strcmp(mine, SYSTEM_STATE) != 0 && read_state(SYSTEM_STATE, s));
}
