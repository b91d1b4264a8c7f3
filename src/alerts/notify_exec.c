/* notify_exec.c - the exec receiver: runs a program (argv, never a shell) per alert change, with
 * the alert as JSON on stdin and GPUWATCH_ALERT_* in its environment; killed after the timeout. */
#include "notify_impl.h"
#include "alert_json.h"
#include "template.h"
#include "util.h"
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* A NULL-terminated list of NAME=value entries being built; oom: an entry could not be added. */
typedef struct env_list {
    char **v;
    int n, oom;
} env_list;

static void env_add(env_list *e, const char *prefix, const char *name, const char *value)
{
    if (e->oom)
        return;
    char key[128];
    snprintf(key, sizeof key, "%s%s", prefix, name);
    for (char *c = key; *c; c++)
        *c = isalnum((unsigned char)*c) ? (char)toupper((unsigned char)*c) : '_';
    char *entry = NULL;
    if (asprintf(&entry, "%s=%s", key, value) < 0) {
        e->oom = 1;
        return;
    }
    char **p = realloc(e->v, (size_t)(e->n + 2) * sizeof *p);
    if (!p) {
        free(entry);
        e->oom = 1;
        return;
    }
    e->v = p;
    p[e->n++] = entry;
    p[e->n] = NULL;
}

/* The alert's GPUWATCH_ALERT_* entries; NULL when out of memory. */
static char **alert_env(const alert_view *v)
{
    env_list e = {0};
    char buf[64];
    env_add(&e, "GPUWATCH_ALERT_", "NAME", v->alertname);
    env_add(&e, "GPUWATCH_ALERT_", "STATUS", v->state == ALERT_INACTIVE ? "resolved" : "firing");
    gw_format_number(v->value, buf, sizeof buf);
    env_add(&e, "GPUWATCH_ALERT_", "VALUE", buf);
    alert_time_format(v->active_at_us, buf, sizeof buf);
    env_add(&e, "GPUWATCH_ALERT_", "STARTS_AT", buf);
    if (v->resolved_at_us) {
        alert_time_format(v->resolved_at_us, buf, sizeof buf);
        env_add(&e, "GPUWATCH_ALERT_", "ENDS_AT", buf);
    }
    for (int i = 0; i < v->nlabels; i++)
        env_add(&e, "GPUWATCH_ALERT_LABEL_", v->label_names[i], v->label_values[i]);
    for (int i = 0; i < v->nannotations; i++)
        env_add(&e, "GPUWATCH_ALERT_ANNOTATION_", v->annotation_names[i], v->annotation_values[i]);
    if (!e.oom)
        return e.v;
    for (int i = 0; i < e.n; i++)
        free(e.v[i]);
    free(e.v);
    return NULL;
}

void notify_exec_queue(receiver *r, const alert_list *alerts)
{
    for (int i = 0; i < alerts->n; i++) {
        const alert_view *v = &alerts->v[i];
        if (!v->changed || (v->state == ALERT_INACTIVE && !r->cfg.send_resolved))
            continue;
        cJSON *o = alert_json_exec(v);
        char *text = o ? cJSON_PrintUnformatted(o) : NULL;
        cJSON_Delete(o);
        notify_job j = {NULL, text ? alert_env(v) : NULL};
        if (j.env && asprintf(&j.body, "%s\n", text) < 0)
            j.body = NULL;
        free(text);
        if (!j.body) {
            notify_job_free(&j);
            notify_drop(r);
            continue;
        }
        notify_enqueue(r, &j);
    }
}

/* The process environment plus the job's entries (built before fork: no malloc in the child). */
static char **merged_env(char **extra)
{
    int n = 0, m = 0;
    while (environ && environ[n])
        n++;
    while (extra && extra[m])
        m++;
    char **env = calloc((size_t)(n + m + 1), sizeof *env);
    if (!env)
        return NULL;
    memcpy(env, extra, (size_t)m * sizeof *env);
    int k = m;
    for (int i = 0; i < n; i++)
        if (strncmp(environ[i], "GPUWATCH_ALERT_", 15) != 0)
            env[k++] = environ[i];
    return env;
}

/* Writes all of body; a reader that exits early gives EPIPE (SIGPIPE is blocked in workers). */
static void write_all(int fd, const char *body)
{
    size_t len = body ? strlen(body) : 0, off = 0;
    while (off < len) {
        ssize_t w = write(fd, body + off, len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        off += (size_t)w;
    }
    sigset_t pipe_set;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    struct timespec zero = {0, 0};
    while (sigtimedwait(&pipe_set, NULL, &zero) > 0) { /* consume a pending SIGPIPE */
    }
}

int notify_exec_send(receiver *r, const notify_job *j, char *err, size_t errlen)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        return -1;
    }
    char **env = merged_env(j->env);
    pid_t pid = env ? fork() : -1;
    if (pid == 0) {
        setpgid(0, 0);
        dup2(fds[0], 0);
        dup2(2, 1);
        sigset_t none;
        sigemptyset(&none);
        pthread_sigmask(SIG_SETMASK, &none, NULL);
        execvpe(r->cfg.argv[0], r->cfg.argv, env);
        _exit(127);
    }
    free(env);
    close(fds[0]);
    if (pid < 0) {
        close(fds[1]);
        snprintf(err, errlen, "fork: %s", strerror(errno));
        return -1;
    }
    write_all(fds[1], j->body);
    close(fds[1]);
    uint64_t until = gw_mono_us() + (uint64_t)(r->cfg.timeout_s * 1e6);
    int status = 0;
    for (;;) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid)
            break;
        if (w < 0 && errno != EINTR) {
            snprintf(err, errlen, "waitpid: %s", strerror(errno));
            return -1;
        }
        if (gw_mono_us() > until) {
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            snprintf(err, errlen, "%s: killed after %.1f s timeout", r->cfg.argv[0], r->cfg.timeout_s);
            return -1;
        }
        gw_sleep_us(5000);
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    if (WIFEXITED(status))
        snprintf(err, errlen, "%s exited with status %d%s", r->cfg.argv[0], WEXITSTATUS(status),
                 WEXITSTATUS(status) == 127 ? " (not found?)" : "");
    else
        snprintf(err, errlen, "%s killed by signal %d", r->cfg.argv[0], WTERMSIG(status));
    return -1;
}
