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

/* The state file's folder, made when missing: an explicit one as given, /run/gpuwatch shared, the
 * fallbacks private to the user. 0, or -1 when it is missing or not safe to write into. */
static int state_dir_ready(const char *path)
{
    char dir[4096];
    gw_strlcpy(dir, path, sizeof dir);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return 0;
    *slash = 0;
    const char *own = getenv("GPUWATCH_RUNTIME_DIR");
    if (own && *own == '/')
        return gw_make_dirs(dir, 0755);
    if (strcmp(dir, "/run/gpuwatch") == 0)
        return gw_shared_dir(dir) ? 0 : -1;
    char why[600];
    return gw_private_dir(dir, why, sizeof why);
}

int agent_state_write(const agent_state *s, const char *const *keys, const char *const *values, int nfacts)
{
    char path[4096], tmp[4200];
    agent_state_path(path, sizeof path);
    if (state_dir_ready(path) != 0)
        return -1;
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
