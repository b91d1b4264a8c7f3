/* agent_state.c - the running agent's state file (see agent_state.h): "key=value" lines. */
#include "agent_state.h"
#include "files.h"
#include "util.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SYSTEM_STATE GW_RUNTIME_SYSTEM_DIR "/agent.state"

#define RUNTIME_VAR "GPUWATCH_RUNTIME_DIR"

/* Where this process wrote its state file ("" before it did): agent_state_remove's. */
static char written[4096];

static void agent_state_path(char *out, size_t n)
{
    char dir[4000], why[16];
    gw_runtime_dir(RUNTIME_VAR, GW_RUNTIME_LOOKUP, dir, sizeof dir, why, sizeof why);
    snprintf(out, n, "%s/agent.state", dir);
}

int agent_state_write(const agent_state *s, const char *const *keys, const char *const *values, int nfacts)
{
    char dir[4000], path[4096], tmp[4200], why[600];
    if (gw_runtime_dir(RUNTIME_VAR, 0, dir, sizeof dir, why, sizeof why) != 0)
        return -1;
    snprintf(path, sizeof path, "%s/agent.state", dir);
    snprintf(tmp, sizeof tmp, "%s.XXXXXX", path);
    int fd = mkostemp(tmp, O_CLOEXEC); /* O_EXCL underneath: never through a link another user left */
    if (fd < 0)
        return -1;
    FILE *f = fdopen(fd, "w");
    if (!f || fchmod(fd, 0644) != 0) {
        if (f)
            fclose(f);
        else
            close(fd);
        unlink(tmp);
        return -1;
    }
    fprintf(f, "pid=%d\nlisten=%s\nconfig=%s\n", s->pid, s->listen, s->config);
    for (int i = 0; i < nfacts; i++)
        if (!strchr(keys[i], '=') && !strchr(keys[i], '\n') && !strchr(values[i], '\n'))
            fprintf(f, "%s=%s\n", keys[i], values[i]);
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        unlink(tmp);
        return -1;
    }
    gw_strlcpy(written, path, sizeof written);
    return 0;
}

static int read_state(const char *path, agent_state *s)
{
    char why[128];
    int fd = gw_open_file(path, O_RDONLY, 0, GW_OPEN_OWNED, why, sizeof why);
    char *text = fd >= 0 ? gw_read_fd(fd, 16384, NULL, why, sizeof why) : NULL;
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
    agent_state s;
    if (written[0] && read_state(written, &s) && s.pid == (int)getpid())
        unlink(written);
}

int agent_state_find(agent_state *s)
{
    char mine[4096];
    agent_state_path(mine, sizeof mine);
    /* a runtime directory named in the environment is the whole answer: no system-wide agent stands in */
    const char *own = getenv(RUNTIME_VAR);
    if (own && *own)
        return read_state(mine, s);
    return read_state(mine, s) || (strcmp(mine, SYSTEM_STATE) != 0 && read_state(SYSTEM_STATE, s));
}
