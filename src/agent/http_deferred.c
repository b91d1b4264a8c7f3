/* http_deferred.c - password checks and slow routes run on work queues (see http_deferred.h). */
#include "http_deferred.h"
#include <stdlib.h>
#include <string.h>

deferred *deferred_new(struct MHD_Connection *c)
{
    deferred *d = calloc(1, sizeof *d);
    if (d) {
        d->c = c;
        d->resp.status = 200;
        d->resp.content_type = "application/json";
        buf_init(&d->resp.body);
    }
    return d;
}

void deferred_free(deferred *d)
{
    if (!d)
        return;
    explicit_bzero(&d->cred, sizeof d->cred);
    for (int i = 0; i < d->nargs; i++)
        free(d->args[i]);
    free(d->args);
    free(d->method);
    free(d->path);
    buf_release(&d->resp.body);
    free(d);
}

static void run_password(wq_job *job, int cancelled)
{
    deferred *d = (deferred *)job;
    if (cancelled) {
        explicit_bzero(&d->cred, sizeof d->cred);
        d->auth_result = DEF_DENIED;
    } else {
        d->auth_result = auth_check_slow(d->auth, &d->cred) ? DEF_ALLOWED : DEF_DENIED;
    }
    d->phase = DEF_AUTH_DONE;
    MHD_resume_connection(d->c); /* last use of d here: the HTTP thread may free it from now on */
}

void deferred_check_password(deferred *d, work_queue *q, auth *au, const auth_cred *cred)
{
    d->auth = au;
    d->cred = *cred;
    d->phase = DEF_AUTH_WAIT;
    d->job.run = run_password;
    /* Suspended before it is queued: the job may resume it at once. */
    MHD_suspend_connection(d->c);
    if (wq_submit(q, &d->job) != 0) {
        explicit_bzero(&d->cred, sizeof d->cred);
        d->auth_result = DEF_BUSY;
        d->phase = DEF_AUTH_DONE;
        MHD_resume_connection(d->c);
    }
}

static const char *param_of(const agent_request *req, const char *name)
{
    const deferred *d = req->impl;
    for (int i = 0; i + 1 < d->nargs; i += 2)
        if (strcmp(d->args[i], name) == 0)
            return d->args[i + 1];
    return NULL;
}

static void run_route(wq_job *job, int cancelled)
{
    deferred *d = (deferred *)job;
    if (cancelled) {
        d->busy = 1;
    } else {
        agent_request req = {d->method, d->path, param_of, d};
        d->route(d->a, &req, &d->resp);
    }
    d->phase = DEF_ROUTE_DONE;
    MHD_resume_connection(d->c); /* last use of d here */
}

static enum MHD_Result copy_arg(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
    (void)kind;
    deferred *d = cls;
    char **grown = realloc(d->args, (size_t)(d->nargs + 2) * sizeof *grown);
    if (!grown)
        return MHD_NO;
    d->args = grown;
    d->args[d->nargs] = strdup(key);
    d->args[d->nargs + 1] = strdup(value ? value : "");
    if (!d->args[d->nargs] || !d->args[d->nargs + 1]) {
        free(d->args[d->nargs]);
        free(d->args[d->nargs + 1]);
        return MHD_NO;
    }
    d->nargs += 2;
    return MHD_YES;
}

void deferred_route(deferred *d, work_queue *q, agent *a, route_fn route, const char *method, const char *path)
{
    d->a = a;
    d->route = route;
    d->method = strdup(method);
    d->path = strdup(path);
    MHD_get_connection_values(d->c, MHD_GET_ARGUMENT_KIND, copy_arg, d);
    d->phase = DEF_ROUTE_WAIT;
    d->job.run = run_route;
    MHD_suspend_connection(d->c);
    if (!d->method || !d->path || wq_submit(q, &d->job) != 0) {
        d->busy = 1;
        d->phase = DEF_ROUTE_DONE;
        MHD_resume_connection(d->c);
    }
}
